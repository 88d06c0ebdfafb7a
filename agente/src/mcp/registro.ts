/**
 * One stderr line per MCP request to a configured server, written when it
 * ends: answered, failed to send, cancelled, or cut by the connection
 * closing. Watched on the transport, not on fetch, so a stdio server logs
 * as an HTTP one does, and an answer streamed over SSE is timed to its end.
 * The agent's requests are `mcp->`, the server's requests to the agent
 * (elicitation/create) `mcp<-`. Never arguments, headers, tokens or
 * requestState: only what camposDoPedidoMcp reads, and the outcome.
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/client';
import { campos, camposDoPedidoMcp, objeto } from 'compartilhado/log';

export type Log = (linha: string) => void;

/** A request sent or received, waiting for its answer to write its line. */
interface Pendente {
  readonly comeco: number;
  readonly campos: Record<string, unknown>;
}

/**
 * A result's outcome as a line says it: an elicitation's action, or its
 * resultType (complete when it names none: a 2025 result, a list, a read),
 * and isError.
 */
export function desfechoDoResultado(valor: unknown): string {
  const resultado = objeto(valor);
  const tipo = [resultado?.action, resultado?.resultType].find((campo) => typeof campo === 'string') ?? 'complete';
  return `${tipo}${resultado?.isError === true ? ' isError' : ''}`;
}

/** An answer's outcome: the error code, or the result's. */
const desfecho = (mensagem: JSONRPCMessage): string =>
  isJSONRPCErrorResponse(mensagem)
    ? `erro ${String(mensagem.error.code)}`
    : desfechoDoResultado(isJSONRPCResultResponse(mensagem) ? mensagem.result : undefined);

const resposta = (mensagem: JSONRPCMessage) => isJSONRPCResultResponse(mensagem) || isJSONRPCErrorResponse(mensagem);

/**
 * Watches `transporte` before the SDK Client connects it (the Client chains
 * the handlers already set); `rotulo` starts each line (server, session).
 * Returns what ends the server/discover probe's line: over HTTP the SDK
 * reads the probe's answer before its handlers (and these) are chained, so
 * the session, once connected, tells the outcome (the era).
 */
export function registrar(transporte: Transport, rotulo: Readonly<Record<string, unknown>>, log: Log): (era: string) => void {
  const nossos = new Map<RequestId, Pendente>();
  const deles = new Map<RequestId, Pendente>();
  const escrever = (seta: string, pendentes: Map<RequestId, Pendente>, id: unknown, resultado: string) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const pendente = pendentes.get(id);
    if (!pendente) return;
    pendentes.delete(id);
    log(`${seta} ${campos({ ...rotulo, ...pendente.campos, resultado })} ${(performance.now() - pendente.comeco).toFixed(1)}ms`);
  };
  const abrir = (pendentes: Map<RequestId, Pendente>, mensagem: JSONRPCMessage) => {
    if (isJSONRPCRequest(mensagem)) pendentes.set(mensagem.id, { comeco: performance.now(), campos: camposDoPedidoMcp(mensagem) });
  };

  const enviar = transporte.send.bind(transporte);
  transporte.send = async (mensagem, opcoes) => {
    abrir(nossos, mensagem);
    if (isJSONRPCRequest(mensagem))
      // A 2026 HTTP connection cancels by aborting the request's own stream, with no notification.
      opcoes?.requestSignal?.addEventListener('abort', () => escrever('mcp->', nossos, mensagem.id, 'cancelada'), { once: true });
    else if (isJSONRPCNotification(mensagem) && mensagem.method === 'notifications/cancelled')
      escrever('mcp->', nossos, objeto(mensagem.params)?.requestId, 'cancelada');
    else if (resposta(mensagem)) escrever('mcp<-', deles, mensagem.id, desfecho(mensagem));
    try {
      await enviar(mensagem, opcoes);
    } catch (erro) {
      if (isJSONRPCRequest(mensagem))
        escrever('mcp->', nossos, mensagem.id, `falha ${erro instanceof Error ? erro.message : String(erro)}`);
      throw erro;
    }
  };
  transporte.onmessage = (mensagem) => {
    if (resposta(mensagem)) escrever('mcp->', nossos, mensagem.id, desfecho(mensagem));
    else abrir(deles, mensagem);
  };
  transporte.onclose = () => {
    for (const id of [...nossos.keys()]) escrever('mcp->', nossos, id, 'conexao fechada');
    for (const id of [...deles.keys()]) escrever('mcp<-', deles, id, 'conexao fechada');
  };
  return (era) => {
    for (const [id, pendente] of nossos) if (pendente.campos.metodo === 'server/discover') escrever('mcp->', nossos, id, `era ${era}`);
  };
}
