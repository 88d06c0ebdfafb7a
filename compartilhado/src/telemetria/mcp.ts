/**
 * What the OpenTelemetry MCP conventions (gen-ai/mcp.md) make of a JSON-RPC
 * request and its answer, for the agent's client spans and the server's
 * server spans alike: the span's name and attributes, and the histogram
 * each side feeds. One attribute is ours, `ponte.mcp.result_type`: the
 * conventions have none for a 2026 result's `resultType`, and an
 * `input_required` (the server asked a question; the call is not over) is
 * what an operator of this bridge looks for.
 */
import { objeto } from '../log.js';
import { iniciarVao, OUTRO, type Atributos, type Metrica, type Vao } from './telemetria.js';

/** The envelope's version key in `_meta` (2026-07-28), as the MCP SDKs name it. */
const CHAVE_DA_VERSAO = 'io.modelcontextprotocol/protocolVersion';

/** The methods MCP defines (2025-11-25 and 2026-07-28, either direction), as the SDK's schemas name them; any other is OUTRO. */
const METODOS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'completion/complete',
  'logging/setLevel',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/cancel',
  'roots/list',
  'sampling/createMessage',
  'elicitation/create',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/roots/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/elicitation/complete',
  'notifications/subscriptions/acknowledged',
  'notifications/tasks/status',
]);

/**
 * What a server serves: its tools' and prompts' names and its protocol
 * versions. On its spans, any other a client sends is OUTRO.
 */
export interface Conhecidos {
  readonly nomes: ReadonlySet<string>;
  readonly versoes: ReadonlySet<string>;
}

/** `valor`, when `validos` has it (or there is no list to check it against); else OUTRO. */
const conhecido = (valor: string, validos: ReadonlySet<string> | undefined): string =>
  validos === undefined || validos.has(valor) ? valor : OUTRO;

/** The result types of MCP 2026-07-28; another a server sends is OUTRO. */
const TIPOS_DE_RESULTADO = new Set(['complete', 'input_required', 'task']);

/** An error's message on a span is a hint, cut: a server may quote what it was sent. */
const TAMANHO_DA_DESCRICAO = 300;

/** The attributes both histograms keep: the span's, without the request id. */
const ATRIBUTOS_MEDIDOS = [
  'mcp.method.name',
  'gen_ai.tool.name',
  'gen_ai.prompt.name',
  'gen_ai.operation.name',
  'mcp.protocol.version',
  'error.type',
  'rpc.response.status_code',
  'network.transport',
  'network.protocol.name',
  'ponte.mcp.result_type',
];

export const METRICA_MCP_CLIENTE: Metrica = {
  nome: 'mcp.client.operation.duration',
  descricao: 'Duracao de cada pedido MCP que o agente fez, ate a resposta.',
  atributos: ATRIBUTOS_MEDIDOS,
};

export const METRICA_MCP_SERVIDOR: Metrica = {
  nome: 'mcp.server.operation.duration',
  descricao: 'Duracao de cada pedido MCP que o servidor atendeu.',
  atributos: ATRIBUTOS_MEDIDOS,
};

/** How the request travelled: over HTTP (TCP), or a child's stdio (a pipe). */
export type Rede = 'http' | 'stdio';

/**
 * A request's span: `{mcp.method.name} {target}` (the tool's or prompt's
 * name), its attributes, and the traceparent its `_meta` carries (SEP-414).
 * `versao` is the session's, for a request that carries no envelope.
 * `conhecidos`, on a server: what it serves (a client's own request names
 * only what its server offered).
 */
export function vaoDoPedidoMcp(
  pedido: unknown,
  rede: Rede,
  versao?: string,
  conhecidos?: Conhecidos,
): { nome: string; atributos: Atributos; traceparent: string | undefined } {
  const mensagem = objeto(pedido);
  const metodo = typeof mensagem?.method === 'string' ? (METODOS.has(mensagem.method) ? mensagem.method : OUTRO) : '-';
  const params = objeto(mensagem?.params);
  const meta = objeto(params?._meta);
  const nome = typeof params?.name === 'string' ? conhecido(params.name, conhecidos?.nomes) : undefined;
  const ferramenta = metodo === 'tools/call' ? nome : undefined;
  const prompt = metodo === 'prompts/get' ? nome : undefined;
  const id = mensagem?.id;
  const envelope = meta?.[CHAVE_DA_VERSAO];
  return {
    nome: [metodo, ferramenta ?? prompt].filter(Boolean).join(' '),
    atributos: {
      'mcp.method.name': metodo,
      'gen_ai.tool.name': ferramenta,
      'gen_ai.prompt.name': prompt,
      'gen_ai.operation.name': ferramenta === undefined ? undefined : 'execute_tool',
      'mcp.resource.uri': metodo === 'resources/read' && typeof params?.uri === 'string' ? params.uri : undefined,
      'jsonrpc.request.id': typeof id === 'string' || typeof id === 'number' ? String(id) : undefined,
      'mcp.protocol.version': typeof envelope === 'string' ? conhecido(envelope, conhecidos?.versoes) : versao,
      'network.transport': rede === 'http' ? 'tcp' : 'pipe',
      'network.protocol.name': rede === 'http' ? 'http' : undefined,
    },
    traceparent: typeof meta?.traceparent === 'string' ? meta.traceparent : undefined,
  };
}

/**
 * What an answer (a JSON-RPC response, parsed) says on the span: an error's
 * code as `error.type` and `rpc.response.status_code`, with its message; a
 * tool's `isError` as `tool_error`; and the result's type.
 */
export function desfechoMcp(resposta: unknown): { atributos: Atributos; falha?: { tipo: string; descricao?: string } } {
  const mensagem = objeto(resposta);
  const erro = objeto(mensagem?.error);
  if (erro) {
    // A server chooses its codes and words: a code outside JSON-RPC's reserved range is no series of its own, a message is cut.
    const codigo = Number.isInteger(erro.code) && Number(erro.code) >= -32768 && Number(erro.code) <= -32000 ? String(erro.code) : OUTRO;
    return {
      atributos: { 'rpc.response.status_code': codigo },
      falha: { tipo: codigo, ...(typeof erro.message === 'string' ? { descricao: erro.message.slice(0, TAMANHO_DA_DESCRICAO) } : {}) },
    };
  }
  const resultado = objeto(mensagem?.result);
  const tipo =
    typeof resultado?.resultType === 'string' ? (TIPOS_DE_RESULTADO.has(resultado.resultType) ? resultado.resultType : OUTRO) : 'complete';
  return {
    atributos: { 'ponte.mcp.result_type': tipo },
    ...(resultado?.isError === true ? { falha: { tipo: 'tool_error' } } : {}),
  };
}

/**
 * The server's span of a request (with telemetry on): child of the
 * traceparent in its `_meta`, as the conventions ask, else of the HTTP
 * header's; linked to the header's when the two differ (the hop the
 * request came through).
 */
export function abrirVaoDoServidorMcp(pedido: unknown, doHttp: string | string[] | undefined, conhecidos: Conhecidos): Vao | undefined {
  const { nome, atributos, traceparent } = vaoDoPedidoMcp(pedido, 'http', undefined, conhecidos);
  // A body that names no method is no request (the SDK refuses it): nothing to trace.
  if (atributos['mcp.method.name'] === '-') return undefined;
  const ambiente = typeof doHttp === 'string' ? doHttp : undefined;
  const pai = traceparent ?? ambiente;
  return iniciarVao(nome, {
    tipo: 'servidor',
    ...(pai === undefined ? {} : { pai }),
    ...(ambiente !== undefined && ambiente !== pai ? { ligacoes: [ambiente] } : {}),
    atributos,
    metrica: METRICA_MCP_SERVIDOR,
  });
}

/** Ends a span with its answer's outcome (a JSON-RPC response, parsed), or, for an HTTP refusal with none, its status. */
export function encerrarVaoMcp(vao: Vao, resposta: unknown, status?: number): void {
  const ehJsonRpc = objeto(resposta)?.jsonrpc !== undefined;
  if (ehJsonRpc) {
    const desfecho = desfechoMcp(resposta);
    vao.definir(desfecho.atributos);
    if (desfecho.falha) vao.falhar(desfecho.falha.tipo, desfecho.falha.descricao);
  } else if (status !== undefined && status >= 400) vao.falhar(String(status));
  vao.encerrar();
}
