/**
 * The A2A server span of each request (with telemetry on), by the A2A
 * conventions (gen-ai/a2a.md): named by its method, SERVER kind, child of
 * the caller's traceparent, and told at its end what the log line is told:
 * the Task, the state it reached, the conversation (contextId), the error.
 * Every binding opens and ends it the same way (http.ts for JSON-RPC and
 * HTTP+JSON, grpc.ts for gRPC).
 */
import { objeto } from 'compartilhado/log';
import { iniciarVao, OUTRO, type Atributos, type Metrica, type Vao } from 'compartilhado/telemetria';

export const METRICA_A2A: Metrica = {
  nome: 'ponte.a2a.server.operation.duration',
  descricao: 'Duracao de cada pedido A2A que o agente atendeu, ate a resposta (ou o fim do stream).',
  atributos: ['a2a.method.name', 'a2a.task.state', 'a2a.protocol.version', 'error.type'],
};

/** The methods of A2A 1.0: a name the client made up becomes no span name (nor metric series). */
const METODOS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

/** The A2A version every binding of the card declares; the SDK refuses any other (-32009), which is OUTRO on the span. */
const VERSOES = new Set(['1.0']);

/** HTTP+JSON's routes (after the binding's base path, past an optional tenant) and the method each serves; in any case, as express matches them. */
const ROTAS: readonly (readonly [string, RegExp, string])[] = [
  ['POST', /^\/message:send$/i, 'SendMessage'],
  ['POST', /^\/message:stream$/i, 'SendStreamingMessage'],
  ['GET', /^\/tasks$/i, 'ListTasks'],
  ['GET', /^\/tasks\/([^/:]+)$/i, 'GetTask'],
  ['POST', /^\/tasks\/([^/:]+):cancel$/i, 'CancelTask'],
  ['POST', /^\/tasks\/([^/:]+):subscribe$/i, 'SubscribeToTask'],
  ['GET', /^\/tasks\/([^/:]+):subscribe$/i, 'SubscribeToTask'],
  ['POST', /^\/tasks\/([^/]+)\/pushNotificationConfigs$/i, 'CreateTaskPushNotificationConfig'],
  ['GET', /^\/tasks\/([^/]+)\/pushNotificationConfigs$/i, 'ListTaskPushNotificationConfigs'],
  ['GET', /^\/tasks\/([^/]+)\/pushNotificationConfigs\/[^/]+$/i, 'GetTaskPushNotificationConfig'],
  ['DELETE', /^\/tasks\/([^/]+)\/pushNotificationConfigs\/[^/]+$/i, 'DeleteTaskPushNotificationConfig'],
  ['GET', /^\/extendedAgentCard$/i, 'GetExtendedAgentCard'],
];

/** An HTTP+JSON request as its route names it: the A2A method, and the tenant and Task when the path has them. */
export interface Rota {
  readonly metodo: string;
  readonly tenant?: string;
  readonly taskId?: string;
}

/** The route `caminho` (after the base path) is, or nothing. */
export function metodoDaRota(verbo: string, caminho: string): Rota | undefined {
  for (const [comTenant, resto] of [
    [false, caminho],
    [true, caminho.replace(/^\/[^/]+/, '')],
  ] as const) {
    for (const [seu, padrao, metodo] of ROTAS) {
      const achado = seu === verbo ? padrao.exec(resto) : null;
      if (!achado) continue;
      const tenant = comTenant ? decodificado(caminho.split('/')[1]) : undefined;
      const taskId = decodificado(achado[1]);
      return { metodo, ...(tenant ? { tenant } : {}), ...(taskId ? { taskId } : {}) };
    }
  }
  return undefined;
}

/** A path segment as the client meant it; one that does not decode is kept as sent. */
function decodificado(segmento: string | undefined): string | undefined {
  if (!segmento) return undefined;
  try {
    return decodeURIComponent(segmento);
  } catch {
    return segmento;
  }
}

/** A request's span, opened as it arrives; its name is its method once known (a JSON-RPC body is read later). */
export function abrirVaoA2A(
  nome: string,
  traceparent: string | string[] | undefined,
  versao: string | string[] | undefined,
): Vao | undefined {
  return iniciarVao(nome, {
    tipo: 'servidor',
    ...(typeof traceparent === 'string' ? { pai: traceparent } : {}),
    atributos: {
      ...agente,
      'a2a.protocol.version': typeof versao === 'string' && versao !== '' ? (VERSOES.has(versao) ? versao : OUTRO) : '1.0',
    },
    metrica: METRICA_A2A,
  });
}

/** The agent as its card names it: the conventions' gen_ai.agent.* on every A2A span. */
let agente: Atributos = {};

/** Told once the card is built (its name, description and version never change while the process runs). */
export function apresentarAgente({
  name,
  description,
  version,
}: {
  readonly name: string;
  readonly description: string;
  readonly version: string;
}): void {
  agente = { 'gen_ai.agent.name': name, 'gen_ai.agent.description': description, 'gen_ai.agent.version': version };
}

/** What the request said and what it got, as the log line reads them (see http.ts's linhaDoPedido). */
export interface FimDoPedido {
  readonly metodo: unknown;
  /** The request's parameters: a JSON-RPC body's `params`, a REST body, a gRPC message. */
  readonly params: Record<string, unknown> | undefined;
  readonly taskId: unknown;
  /** TASK_STATE_* or `erro <code>`. */
  readonly estado: unknown;
  /** The contextId of the Task or message answered. */
  readonly contextId: unknown;
  readonly tenant?: string;
}

const texto = (valor: unknown): string | undefined => (typeof valor === 'string' && valor !== '' && valor !== '-' ? valor : undefined);

export function encerrarVaoA2A(vao: Vao, { metodo, params, taskId, estado, contextId, tenant }: FimDoPedido): void {
  const conhecido = typeof metodo === 'string' && METODOS.has(metodo) ? metodo : undefined;
  if (conhecido) vao.nomear(conhecido);
  const mensagem = objeto(params?.message);
  const situacao = texto(estado);
  vao.definir({
    'a2a.method.name': conhecido,
    'a2a.task.id': texto(taskId),
    'a2a.task.state': situacao?.startsWith('TASK_STATE_') ? situacao : undefined,
    'a2a.tenant': tenant ?? texto(params?.tenant),
    'a2a.message.id': texto(mensagem?.messageId),
    'gen_ai.conversation.id': texto(contextId) ?? texto(mensagem?.contextId),
  });
  if (situacao?.startsWith('erro ')) vao.falhar(situacao.slice('erro '.length));
  vao.encerrar();
}
