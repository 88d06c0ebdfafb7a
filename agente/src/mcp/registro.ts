/**
 * One stderr line per MCP request to a configured server, written when it
 * ends: answered, failed to send, cancelled, or cut by the connection
 * closing. Watched on the transport, not on fetch, so a stdio server logs
 * as an HTTP one does, and an answer streamed over SSE is timed to its end.
 * The agent's requests are `mcp->`, the server's requests to the agent
 * (elicitation/create) `mcp<-`. Never arguments, headers, tokens or
 * requestState: only what camposDoPedidoMcp reads, and the outcome. With
 * the console on, each exchange of a Task's step is also noted, whole, for
 * the Task's Fio (console/fio.ts seals its states when it is shown).
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
import { campos, camposDoPedidoMcp, desfechoDoResultado, objeto } from 'compartilhado/log';

export type Log = (linha: string) => void;

/** Where the console notes each Task's MCP exchanges (the agent's FioMcp, with the console on). */
export interface FioDasTasks {
  /** The Task whose step runs in this async context, if any. */
  tarefaAtual(): string | undefined;
  /** Notes a request as it goes; the function returned notes its answer. */
  anotarPedido(troca: { pedido: string; servidor: string; sentido?: 'recebida' }, taskId: string): (resposta: string, ms: number) => void;
}

/** A request sent or received, waiting for its answer to write its line. */
interface Pendente {
  readonly comeco: number;
  readonly campos: Record<string, unknown>;
  /** For the Fio: the Task whose step it belongs to, and how to note the answer there. */
  readonly daTask?: { readonly taskId: string; readonly responder: (resposta: string, ms: number) => void };
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
export function registrar(
  transporte: Transport,
  rotulo: Readonly<Record<string, unknown>>,
  log: Log,
  noFio?: { readonly fio: FioDasTasks; readonly servidor: string },
): (era: string) => void {
  const nossos = new Map<RequestId, Pendente>();
  const deles = new Map<RequestId, Pendente>();
  const escrever = (seta: string, pendentes: Map<RequestId, Pendente>, id: unknown, resultado: string, resposta?: JSONRPCMessage) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const pendente = pendentes.get(id);
    if (!pendente) return;
    pendentes.delete(id);
    const ms = performance.now() - pendente.comeco;
    log(`${seta} ${campos({ ...rotulo, ...pendente.campos, resultado })} ${ms.toFixed(1)}ms`);
    // No answer came (cancelled, failed, closed): the agent's note, not a body the server sent.
    pendente.daTask?.responder(resposta ? JSON.stringify(resposta) : `(sem resposta do servidor: ${resultado})`, ms);
  };
  /**
   * The Task of a request: ours, the step running here; the server's, the
   * one Task whose call is waiting on this transport (a stream's callbacks
   * keep the async context of whoever opened it, which may be another
   * Task's step: never read for the server's requests).
   */
  const taskDe = (pendentes: Map<RequestId, Pendente>): string | undefined => {
    if (pendentes === nossos) return noFio?.fio.tarefaAtual();
    const esperando = new Set([...nossos.values()].flatMap(({ daTask }) => (daTask ? [daTask.taskId] : [])));
    return esperando.size === 1 ? [...esperando][0] : undefined;
  };
  const abrir = (pendentes: Map<RequestId, Pendente>, mensagem: JSONRPCMessage) => {
    if (!isJSONRPCRequest(mensagem)) return;
    const taskId = taskDe(pendentes);
    const sentido = pendentes === deles ? { sentido: 'recebida' as const } : {};
    const daTask =
      noFio && taskId !== undefined
        ? { taskId, responder: noFio.fio.anotarPedido({ pedido: JSON.stringify(mensagem), servidor: noFio.servidor, ...sentido }, taskId) }
        : undefined;
    pendentes.set(mensagem.id, { comeco: performance.now(), campos: camposDoPedidoMcp(mensagem), ...(daTask ? { daTask } : {}) });
  };

  const enviar = transporte.send.bind(transporte);
  transporte.send = async (mensagem, opcoes) => {
    abrir(nossos, mensagem);
    if (isJSONRPCRequest(mensagem))
      // A 2026 HTTP connection cancels by aborting the request's own stream, with no notification.
      opcoes?.requestSignal?.addEventListener('abort', () => escrever('mcp->', nossos, mensagem.id, 'cancelada'), { once: true });
    else if (isJSONRPCNotification(mensagem) && mensagem.method === 'notifications/cancelled')
      escrever('mcp->', nossos, objeto(mensagem.params)?.requestId, 'cancelada');
    else if (resposta(mensagem)) escrever('mcp<-', deles, mensagem.id, desfecho(mensagem), mensagem);
    try {
      await enviar(mensagem, opcoes);
    } catch (erro) {
      if (isJSONRPCRequest(mensagem))
        escrever('mcp->', nossos, mensagem.id, `falha ${erro instanceof Error ? erro.message : String(erro)}`);
      throw erro;
    }
  };
  transporte.onmessage = (mensagem) => {
    if (resposta(mensagem)) escrever('mcp->', nossos, mensagem.id, desfecho(mensagem), mensagem);
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
