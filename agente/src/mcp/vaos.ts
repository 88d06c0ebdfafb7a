/**
 * The agent's MCP client spans (with telemetry on): one CLIENT span per
 * request it sends, by the MCP conventions, watched on the transport so a
 * stdio server is traced as an HTTP one is, and its JSON-RPC id is known.
 * The span runs under whatever is running when the SDK sends (the A2A
 * request's span, for a step); its traceparent replaces the one the
 * caller put in `_meta`, so the server's spans are its children, and the
 * HTTP fetch made inside it sends the same one as a header (comTraceparent).
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  TRACEPARENT_META_KEY,
  type FetchLike,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/client';
import { objeto } from 'compartilhado/log';
import { encerrarVaoMcp, METRICA_MCP_CLIENTE, vaoDoPedidoMcp, type Rede } from 'compartilhado/telemetria/mcp';
import { iniciarVao, telemetriaLigada, vaoAtual, type Vao } from 'compartilhado/telemetria';

const versaoDo = (transporte: Transport): string | undefined => {
  const versao = (transporte as { readonly protocolVersion?: unknown }).protocolVersion;
  return typeof versao === 'string' ? versao : undefined;
};

/** Where an HTTP server listens, as the conventions' server.address and server.port. */
const servidorEm = (url: URL) => ({
  'server.address': url.hostname.replace(/^\[|\]$/g, ''),
  'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
});

/**
 * Watches `transporte` before the SDK Client connects it (the Client chains
 * the handlers already set): an HTTP server's URL, or a child's stdio.
 * Nothing while telemetry is off.
 */
export function observarTransporte(transporte: Transport, destino: URL | 'stdio'): void {
  if (!telemetriaLigada()) return;
  const rede: Rede = destino === 'stdio' ? 'stdio' : 'http';
  const servidor = destino === 'stdio' ? {} : servidorEm(destino);
  const abertos = new Map<RequestId, Vao>();
  /** A request's span ends with its answer, or with why none came (cancelled, failed to send, connection closed). */
  const encerrar = (id: unknown, fim: { readonly resposta: unknown } | { readonly falha: string }) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const vao = abertos.get(id);
    if (!vao) return;
    abertos.delete(id);
    if ('resposta' in fim) {
      encerrarVaoMcp(vao, fim.resposta);
      return;
    }
    vao.falhar(fim.falha);
    vao.encerrar();
  };

  const enviar = transporte.send.bind(transporte);
  transporte.send = async (mensagem, opcoes) => {
    // A 2025 session cancels with a notification, and the server answers nothing after it.
    if (isJSONRPCNotification(mensagem) && mensagem.method === 'notifications/cancelled')
      encerrar(objeto(mensagem.params)?.requestId, { falha: 'cancelled' });
    // subscriptions/listen is the connection's change feed, open for its whole life: no operation to time.
    if (!isJSONRPCRequest(mensagem) || mensagem.method === 'subscriptions/listen') return enviar(mensagem, opcoes);
    const { nome, atributos } = vaoDoPedidoMcp(mensagem, rede, versaoDo(transporte));
    const vao = iniciarVao(nome, { tipo: 'cliente', atributos: { ...atributos, ...servidor }, metrica: METRICA_MCP_CLIENTE });
    if (!vao) return enviar(mensagem, opcoes);
    abertos.set(mensagem.id, vao);
    // A 2026 HTTP connection cancels by aborting the request's own stream.
    opcoes?.requestSignal?.addEventListener('abort', () => encerrar(mensagem.id, { falha: 'cancelled' }), { once: true });
    const meta = { ...mensagem.params?._meta, [TRACEPARENT_META_KEY]: vao.traceparent };
    try {
      await vao.dentro(() => enviar({ ...mensagem, params: { ...mensagem.params, _meta: meta } }, opcoes));
    } catch (erro) {
      encerrar(mensagem.id, { falha: erro instanceof Error ? erro.name : 'Error' });
      throw erro;
    }
    // The SDK reads the version probe's answer itself, before any handler: sent is answered.
    if (mensagem.method === 'server/discover') encerrar(mensagem.id, { resposta: { jsonrpc: '2.0', id: mensagem.id, result: {} } });
  };
  const ouvir = transporte.onmessage;
  transporte.onmessage = (mensagem, extra) => {
    if (isJSONRPCResultResponse(mensagem) || isJSONRPCErrorResponse(mensagem)) encerrar(mensagem.id, { resposta: mensagem });
    ouvir?.(mensagem, extra);
  };
  const fechado = transporte.onclose;
  transporte.onclose = () => {
    for (const id of [...abertos.keys()]) encerrar(id, { falha: 'connection_closed' });
    fechado?.();
  };
}

/** A fetch that sends the running span's traceparent as a header too (with telemetry on): an HTTP hop's own tracing sees the same parent. */
export function comTraceparent(fetch: FetchLike): FetchLike {
  if (!telemetriaLigada()) return fetch;
  return (entrada, init) => {
    const vao = vaoAtual();
    if (!vao) return fetch(entrada, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', vao.traceparent);
    return fetch(entrada, { ...init, headers });
  };
}
