/**
 * The agent's HTTP front around the SDK's express handlers (JSON-RPC and
 * HTTP+JSON): one log line per request, from what was recorded while it ran
 * (desfecho.ts records what the request handler did), a URL with NUL
 * refused before any route, body errors answered in the binding's error
 * form before the SDK sees the request, and error messages kept short
 * whoever wrote them. Everything A2A past that is the SDK's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { inspect } from 'node:util';
import { A2A_ERROR_CODE, RequestMalformedError, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { erroJsonRpc } from 'compartilhado/contrato';
import { mensagemContida, NUL_NA_URL, nulNoCorpo, urlComNul } from 'compartilhado/entrada';
import { problemaNoJson } from 'compartilhado/json';
import { campos, objeto } from 'compartilhado/log';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { CAMINHO_A2A, CAMINHO_CONSOLE, CAMINHO_REST } from '../a2a/card.js';
import { envelopeInvalido, parametroInvalido } from './estrito.js';
import { lerTraceparent } from '../ponte/trace.js';
import { abrirVaoA2A, encerrarVaoA2A, metodoDaRota, type Rota } from './vaos.js';
import { telemetriaLigada, type Vao } from 'compartilhado/telemetria';

/** What the request handler answered of a Task (desfecho.ts). */
export interface Resultado {
  readonly task?: string;
  /** TASK_STATE_*: in a stream, its latest event's. */
  readonly estado?: string;
  readonly contextId?: string;
}

/** What a request's line says, recorded while it runs. */
export interface Registro {
  /** What the request handler answered; a stream's latest event wins. */
  resultado?: Resultado;
  /** The error the request handler threw. */
  falha?: unknown;
  /** The error code a JSON answer carried (JSON-RPC's code, HTTP+JSON's status), as serialized (codigoNaResposta). */
  erro?: number;
  /** The caller's identity, with AGENTE_TOKENS. */
  quem?: string;
  /** Why the request was refused: by AGENTE_TOKENS (never the header's value) or by the Origin rule. */
  recusa?: string;
  /** With telemetry on, an A2A request's span (vaos.ts). */
  vao?: Vao;
  /** The A2A method and tenant an HTTP+JSON route names. */
  rota?: Rota;
}
const registroAtual = new AsyncLocalStorage<Registro>();

/** Runs `seguir` as part of a request: what anotarAcesso and the SDK's notes say then goes to its line. */
export const noRegistro = <T>(registro: Registro, seguir: () => T): T => registroAtual.run(registro, seguir);

/** Names the caller of the current request in its log line, or why it was refused (identity or origin). */
export function anotarAcesso(identidade: { readonly quem: string } | { readonly recusa: string }): void {
  const registro = registroAtual.getStore();
  if (registro) Object.assign(registro, identidade);
}

/** What the request handler answered, for the current request's line (desfecho.ts). */
export function anotarResultado(resultado: Resultado): void {
  const registro = registroAtual.getStore();
  if (registro) registro.resultado = { ...registro.resultado, ...resultado };
}

/** The error the request handler threw, for the current request's line (desfecho.ts). */
export function anotarFalha(erro: unknown): void {
  const registro = registroAtual.getStore();
  if (registro) registro.falha = erro;
}

/**
 * Express's `json replacer` (app.set), called by res.json once per answer
 * at its root and then for each key. An error answer's message is cut by
 * mensagemContida: the SDK writes the client's A2A-Version header, Task
 * id, role or Content-Type into its messages, whole. And its code is noted
 * for the line: the SDK's transports answer some requests (a Content-Type,
 * a version or a method they refuse) without calling the request handler,
 * so the answer is the one place that code exists.
 */
export function codigoNaResposta(this: unknown, chave: string, valor: unknown): unknown {
  if (chave !== '') return valor;
  const erro = objeto(objeto(valor)?.error);
  if (!erro) return valor;
  const registro = registroAtual.getStore();
  if (registro && typeof erro.code === 'number') registro.erro = erro.code;
  if (typeof erro.message !== 'string') return valor;
  const contida = mensagemContida(erro.message);
  return contida === erro.message ? valor : { ...objeto(valor), error: { ...erro, message: contida } };
}

/** A note is a hint for whoever reads the log, cut short: an error's message may quote what the client sent. */
const TAMANHO_MAXIMO_DA_NOTA = 300;

/** The handler's error as the line's `nota`: its name, message and cause. */
function notaDa(falha: unknown): string | undefined {
  if (!(falha instanceof Error)) return falha === undefined ? undefined : inspect(falha).slice(0, TAMANHO_MAXIMO_DA_NOTA);
  const causa = falha.cause instanceof Error ? ` (${falha.cause.message})` : '';
  return `${falha.name}: ${falha.message}${causa}`.slice(0, TAMANHO_MAXIMO_DA_NOTA);
}

/** The Task a request names: a message's taskId, a push config's taskId, a Task's id. */
function taskNomeada(pedido: unknown): unknown {
  const params = objeto(objeto(pedido)?.params) ?? objeto(pedido);
  return [objeto(params?.message)?.taskId, params?.taskId, params?.id].find((id) => typeof id === 'string' && id !== '');
}

/**
 * The error code an HTTP answer carried: noted as it was serialized, or,
 * for an error in the middle of a stream (written as an SSE event, no JSON
 * answer), the code the SDK maps the handler's error to on that binding.
 */
function erroDoPedido(req: Request, registro: Registro): number | undefined {
  if (registro.erro !== undefined || registro.falha === undefined) return registro.erro;
  return bindingDoCaminho(req) === 'rest' ? restStatusFor(registro.falha) : JsonRpcTransportHandler.mapToJSONRPCError(registro.falha).code;
}

/** Which error form a path's routes answer in: HTTP+JSON's under its base and for the console's data, JSON-RPC's elsewhere. */
export const bindingDoCaminho = (req: Request): Binding =>
  [CAMINHO_REST, CAMINHO_CONSOLE].some((base) => req.path === base || req.path.startsWith(`${base}/`)) ? 'rest' : 'jsonrpc';

/**
 * The first handler of every request. One stderr line per request: method,
 * JSON-RPC id, task, state reached, trace-id, HTTP status, duration. The
 * Task and its state are what the request handler recorded (desfecho.ts);
 * no body is read back. A stream is logged when it ends; a client that
 * left before the end is said so. And a URL that names NUL is refused
 * here, on every route alike: a Task id with NUL would reach PostgreSQL,
 * which refuses NUL in text, as a database failure (500) instead of the
 * client's mistake.
 */
export function registrarRequisicoes(log: (linha: string) => void): RequestHandler {
  return (req, res, next) => {
    const comeco = performance.now();
    const registro: Registro = {};
    res.on('close', () => {
      const pedido: unknown = req.body;
      // Only a JSON-RPC body has a request id; a REST body's `id` is a Task's or a config's.
      const recebido = objeto(pedido);
      const jsonRpc = recebido && 'jsonrpc' in recebido ? recebido : undefined;
      log(
        linhaDoPedido({
          alvo: `${req.method} ${req.originalUrl}`,
          metodo: jsonRpc?.method ?? '-',
          id: JSON.stringify(jsonRpc?.id ?? null),
          pedido,
          erro: erroDoPedido(req, registro),
          traceparent: req.headers.traceparent,
          registro,
          desfecho: { http: res.statusCode },
          inteiro: res.writableFinished,
          comeco,
        }),
      );
    });
    if (urlComNul(req.originalUrl)) {
      responderErro(res, 400, A2A_ERROR_CODE.INVALID_PARAMS, `Invalid params: ${NUL_NA_URL}`, bindingDoCaminho(req));
      return;
    }
    registro.vao = vaoDaRequisicao(req, registro);
    // The page (the console) reads which trace its request made: W3C Trace Context's traceresponse.
    if (registro.vao) res.setHeader('traceresponse', registro.vao.traceparent);
    const { vao } = registro;
    if (vao) vao.dentro(() => registroAtual.run(registro, next));
    else registroAtual.run(registro, next);
  };
}

/** An A2A route's request opens its span (with telemetry on); the card, the console and unknown paths have none. */
function vaoDaRequisicao(req: Request, registro: Registro): Vao | undefined {
  if (!telemetriaLigada()) return undefined;
  const { traceparent, 'a2a-version': versao } = req.headers;
  // As express routes: the base path in any case, and a trailing slash (`POST /A2A/` is served as `/a2a`).
  const caminho = req.path.length > 1 ? req.path.replace(/\/$/, '') : req.path;
  const base = caminho.slice(0, CAMINHO_REST.length + 1).toLowerCase();
  if (caminho.toLowerCase() === CAMINHO_A2A) return abrirVaoA2A(`${req.method} ${CAMINHO_A2A}`, traceparent, versao);
  if (base !== `${CAMINHO_REST}/`) return undefined;
  registro.rota = metodoDaRota(req.method, caminho.slice(CAMINHO_REST.length));
  return abrirVaoA2A(registro.rota?.metodo ?? `${req.method} ${CAMINHO_REST}`, traceparent, versao);
}

/** One request as its log line tells it, on every binding. */
export interface Pedido {
  /** What was asked of the server: `POST /a2a`, `GET /rest/tasks/...`, the gRPC method's path. */
  readonly alvo: string;
  /** The A2A method, when the request names it. */
  readonly metodo: unknown;
  /** The JSON-RPC id, as JSON; `-` where the binding has none. */
  readonly id: string;
  /** The request's parameters (a JSON-RPC body, a REST body, a gRPC request message). */
  readonly pedido: unknown;
  /** The error the binding answered, by its own name for it (a JSON-RPC code, an HTTP status, a gRPC status); none for a success. */
  readonly erro: number | string | undefined;
  readonly traceparent: string | string[] | undefined;
  readonly registro: Registro;
  /** The binding's own outcome field: `{http: 200}`, `{grpc: 'OK'}`. */
  readonly desfecho: Readonly<Record<string, unknown>>;
  /** False when the client left before the answer was whole. */
  readonly inteiro: boolean;
  /** When the request began (performance.now()). */
  readonly comeco: number;
}

/** The line of a request that ended: method, id, task, state reached, trace-id, who, the binding's outcome, duration; never a token. */
export function linhaDoPedido({ alvo, metodo, id, pedido, erro, traceparent, registro, desfecho, inteiro, comeco }: Pedido): string {
  const { vao, rota, resultado, falha } = registro;
  const task = resultado?.task ?? taskNomeada(pedido) ?? '-';
  const estado = erro === undefined ? (resultado?.estado ?? '-') : `erro ${String(erro)}`;
  const contextId = resultado?.contextId;
  const nota = notaDa(falha);
  if (vao) {
    const params = objeto(objeto(pedido)?.params) ?? objeto(pedido);
    encerrarVaoA2A(vao, {
      metodo: rota?.metodo ?? metodo,
      params,
      // A REST request names its Task in the path: an error answer (a 404) has none to read.
      taskId: task === '-' ? rota?.taskId : task,
      estado,
      contextId,
      ...(rota?.tenant ? { tenant: rota.tenant } : {}),
    });
  }
  const linha = campos({
    metodo,
    id,
    task,
    estado,
    trace: lerTraceparent(traceparent)?.traceId ?? '-',
    ...(vao ? { trace_id: vao.traceId, span_id: vao.spanId } : {}),
    ...(registro.quem ? { quem: registro.quem } : {}),
    ...(registro.recusa ? { recusa: registro.recusa } : {}),
    ...desfecho,
    ...(inteiro ? {} : { cliente: 'saiu antes do fim' }),
    ...(nota ? { nota } : {}),
  });
  return `${alvo} ${linha} ${(performance.now() - comeco).toFixed(1)}ms`;
}

/** How an error is written on each binding: a JSON-RPC error object, or HTTP+JSON's `{error: {code, status, message}}`. */
export type Binding = 'jsonrpc' | 'rest';

/** HTTP+JSON status names (google.rpc.Code) the SDK's toRestErrorBody has no error class for. */
const NOMES_REST: Readonly<Record<number, string>> = { 401: 'UNAUTHENTICATED', 429: 'RESOURCE_EXHAUSTED', 503: 'UNAVAILABLE' };

/**
 * Whether a request is a call on the JSON-RPC binding: a POST to its path,
 * as express routes it (any case, a trailing slash).
 */
const chamadaJsonRpc = (req: Request): boolean =>
  req.method === 'POST' && (req.originalUrl.split('?')[0] ?? '').replace(/(.)\/$/, '$1').toLowerCase() === CAMINHO_A2A;

/**
 * The HTTP statuses a JSON-RPC error keeps on its binding: a refusal at
 * the door, whose header the client acts on (401 with WWW-Authenticate, 429
 * with Retry-After), and a server fault, answered 500 as the SDK answers
 * its own -32603.
 */
const STATUS_PROPRIOS_NO_JSON_RPC: ReadonlySet<number> = new Set([401, 429, 500]);

/**
 * `codigo` is the JSON-RPC error code; HTTP+JSON names the error by `status`
 * alone. `pedido` is the parsed body, when there is one: a JSON-RPC error
 * answers its id (null when it has none that is valid). On the JSON-RPC
 * binding itself the answer is HTTP 200, as the SDK answers its own errors:
 * a JSON-RPC client reads the error from the body, and takes any other
 * status for a transport failure before it reads the code. Elsewhere (the
 * card's path, an unknown one) `status` stands.
 */
export function responderErro(
  res: Response,
  status: number,
  codigo: number,
  mensagem: string,
  binding: Binding = 'jsonrpc',
  pedido?: unknown,
): void {
  if (binding === 'jsonrpc') {
    const id = objeto(pedido)?.id;
    const http = chamadaJsonRpc(res.req) && !STATUS_PROPRIOS_NO_JSON_RPC.has(status) ? 200 : status;
    res.status(http).json(erroJsonRpc(typeof id === 'string' || typeof id === 'number' ? id : null, codigo, mensagem));
    return;
  }
  const proprio = NOMES_REST[status];
  if (proprio) {
    res.status(status).json({ error: { code: status, status: proprio, message: mensagem, details: [] } });
    return;
  }
  // A request the client can fix is INVALID_ARGUMENT; anything else gets the status's own name (NOT_FOUND, INTERNAL).
  const corrigivel = status >= 400 && status < 500 && status !== 404;
  res.status(status).json(toRestErrorBody(corrigivel ? new RequestMalformedError(mensagem) : new Error(mensagem), status));
}

interface ErroHttp {
  type?: unknown;
  status?: unknown;
  message?: unknown;
}

/** A 4xx that express or its body parser raised, answered as the client's mistake; false for anything else. */
function erroDoCliente(erro: ErroHttp, res: Response, limiteDoCorpoBytes: number, binding: Binding): boolean {
  const status = typeof erro.status === 'number' ? erro.status : 0;
  if (erro.type === 'entity.too.large') {
    responderErro(res, 413, A2A_ERROR_CODE.INVALID_REQUEST, `Corpo acima do limite de ${String(limiteDoCorpoBytes)} bytes`, binding);
  } else if (erro instanceof SyntaxError || erro.type === 'entity.parse.failed') {
    responderErro(res, 400, A2A_ERROR_CODE.PARSE_ERROR, 'Parse error: o corpo nao e JSON valido', binding);
  } else if (Number.isInteger(status) && status >= 400 && status < 500) {
    responderErro(res, status, A2A_ERROR_CODE.INVALID_REQUEST, `Invalid Request: ${String(erro.message)}`, binding);
  } else {
    return false;
  }
  return true;
}

/** What in a body the SDK would trip on (a TypeError, a 500) instead of answering as the client's mistake. */
function conferirValor(valor: unknown, chave: string): string | undefined {
  // PostgreSQL's text type has no NUL: a Task id, contextId or config id with it would fail as a database error.
  const nul = nulNoCorpo(valor, chave);
  if (nul !== undefined) return nul;
  if (chave === 'parts' && Array.isArray(valor) && valor.some((parte) => objeto(parte) === undefined))
    return 'cada item de message.parts deve ser um objeto (text, data, url ou raw)';
  return undefined;
}

/** What in a request (its body, and its parameters: JSON-RPC params, HTTP+JSON query, a gRPC message) A2A or the database refuses and the SDK takes. */
export const problemaNoPedido = (corpo: unknown, params: Readonly<Record<string, unknown>>): string | undefined =>
  problemaNoJson(corpo, conferirValor) ?? parametroInvalido(params);

/** A parsed body checked for what the SDK and the database cannot take, answered as InvalidParams (the URL was checked first, in registrarRequisicoes). */
export function pedidoAceitavel(binding: Binding): RequestHandler {
  return (req, res, next) => {
    if (binding === 'jsonrpc') {
      // A body of another media type is not read here: the SDK refuses it as -32005 ContentTypeNotSupported, no malformed envelope.
      if (req.headers['content-type'] !== undefined && !req.is('application/json')) {
        next();
        return;
      }
      const envelope = envelopeInvalido(req.body);
      if (envelope) {
        responderErro(res, 400, A2A_ERROR_CODE.INVALID_REQUEST, `Invalid Request: ${envelope}`, binding, req.body);
        return;
      }
    }
    const params = binding === 'jsonrpc' ? (objeto(objeto(req.body)?.params) ?? {}) : (req.query as Record<string, unknown>);
    const problema = problemaNoPedido(req.body, params);
    if (problema === undefined) next();
    else responderErro(res, 400, A2A_ERROR_CODE.INVALID_PARAMS, `Invalid params: ${problema}`, binding, req.body);
  };
}

/**
 * Errors raised on the way, in the binding's own error form: the body's
 * size, bad JSON and any other 4xx express or its body parser raises (an
 * unknown charset or Content-Encoding, a corrupt compressed body, a path
 * that does not decode) as the client's mistake; anything else is a bug,
 * a generic error and a log line, never a stack trace on the wire.
 */
export function errosDoPedido(log: (linha: string) => void, limiteDoCorpoBytes: number, binding: Binding): ErrorRequestHandler {
  // Express knows an error handler by its four parameters, so the unused `next` stays.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  return (erro: unknown, _req, res, _next) => {
    if (typeof erro === 'object' && erro !== null && erroDoCliente(erro, res, limiteDoCorpoBytes, binding)) return;
    log(`erro inesperado: ${erro instanceof Error ? erro.message : String(erro)}`);
    responderErro(res, 500, A2A_ERROR_CODE.INTERNAL_ERROR, 'Internal error', binding);
  };
}
