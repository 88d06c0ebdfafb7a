/**
 * The agent's HTTP front around the SDK's express handlers (JSON-RPC and
 * HTTP+JSON): one log line per request, body errors answered in the
 * binding's error form before the SDK sees the request, and the SDK's
 * console.error notes moved into the request's own line. Everything A2A
 * past that is the SDK's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { A2A_ERROR_CODE, RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { erroJsonRpc } from 'compartilhado/contrato';
import { campos, objeto } from 'compartilhado/log';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { lerTraceparent } from './trace.js';

interface Registro {
  nota?: string;
  terminado?: boolean;
}
const registroAtual = new AsyncLocalStorage<Registro>();

/**
 * @a2a-js/sdk reports handled JSON-RPC errors with console.error and a
 * stack trace; inside a request they become that request's `nota=`, and
 * outside one (or once its line is written) they go to stderr as they are.
 */
export function notasDoSdkNaLinha(): void {
  const consoleError = console.error.bind(console);
  console.error = (...partes: unknown[]) => {
    const registro = registroAtual.getStore();
    if (!registro || registro.terminado) {
      consoleError(...partes);
      return;
    }
    const erro = partes.find((parte): parte is Error => parte instanceof Error);
    const causa = erro?.cause instanceof Error ? ` (${erro.cause.message})` : '';
    const nota = erro ? `${erro.name}: ${erro.message}${causa}` : partes.map(String).join(' ');
    registro.nota = registro.nota ? `${registro.nota}; ${nota}` : nota;
  };
}

function lerJson(texto: string): unknown {
  try {
    return JSON.parse(texto);
  } catch {
    return undefined;
  }
}

/**
 * The Task a request or its answer names, and the state it reached (or the
 * error code). The answer is a JSON body, or the last event of a stream;
 * JSON-RPC wraps it in `result`, HTTP+JSON sends it bare.
 */
function doResultado(pedido: unknown, corpo: string): { task: unknown; estado: unknown } {
  const resposta = objeto(lerJson(corpo.replace(/^(event: \w+\n)?data: /, '')));
  const erro = objeto(resposta?.error);
  const resultado = resposta && 'jsonrpc' in resposta ? objeto(resposta.result) : resposta;
  const evento = objeto(resultado?.task) ?? objeto(resultado?.statusUpdate) ?? objeto(resultado?.artifactUpdate) ?? resultado;
  const params = objeto(objeto(pedido)?.params) ?? objeto(pedido);
  const ids = erro ? [] : [evento?.id, evento?.taskId];
  const taskId = [...ids, objeto(params?.message)?.taskId, params?.id].find((id) => typeof id === 'string' && id !== '') ?? '-';
  return { task: taskId, estado: erro ? `erro ${String(erro.code)}` : (objeto(evento?.status)?.state ?? '-') };
}

/**
 * One stderr line per request: method, JSON-RPC id, task, state reached,
 * trace-id, HTTP status, duration. A stream is logged when it ends, with
 * its last event; a client that left before the end is said so.
 */
export function registrarRequisicoes(log: (linha: string) => void): RequestHandler {
  return (req, res, next) => {
    const comeco = performance.now();
    const registro: Registro = {};
    let corpo = '';
    const guardar = (parte: unknown) => {
      if (typeof parte === 'string' || Buffer.isBuffer(parte)) corpo = parte.toString();
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((parte: unknown, ...resto: unknown[]) => {
      guardar(parte);
      return write(parte, ...resto);
    }) as Response['write'];
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((parte?: unknown, ...resto: unknown[]) => {
      guardar(parte);
      return end(parte, ...resto);
    }) as Response['end'];
    res.on('close', () => {
      registro.terminado = true;
      const pedido: unknown = req.body;
      const linha = campos({
        metodo: objeto(pedido)?.method ?? '-',
        id: JSON.stringify(objeto(pedido)?.id ?? null),
        ...doResultado(pedido, corpo),
        trace: lerTraceparent(req.headers.traceparent)?.traceId ?? '-',
        http: res.statusCode,
        ...(res.writableFinished ? {} : { cliente: 'saiu antes do fim' }),
        ...(registro.nota ? { nota: registro.nota } : {}),
      });
      log(`${req.method} ${req.originalUrl} ${linha} ${(performance.now() - comeco).toFixed(1)}ms`);
    });
    registroAtual.run(registro, next);
  };
}

/** How an error is written on each binding: a JSON-RPC error object, or HTTP+JSON's `{error: {code, status, message}}`. */
export type Binding = 'jsonrpc' | 'rest';

export function responderErro(res: Response, status: number, codigo: number, mensagem: string, binding: Binding = 'jsonrpc'): void {
  if (binding === 'jsonrpc') {
    res.status(status).json(erroJsonRpc(null, codigo, mensagem));
    return;
  }
  // A request the client can fix is INVALID_ARGUMENT; anything else gets the status's own name (NOT_FOUND, INTERNAL).
  const corrigivel = status >= 400 && status < 500 && status !== 404;
  res.status(status).json(toRestErrorBody(corrigivel ? new RequestMalformedError(mensagem) : new Error(mensagem), status));
}

interface ErroDoCorpo {
  type?: unknown;
  status?: unknown;
  message?: unknown;
}

/**
 * Body errors answered in the binding's own error form before the SDK
 * sees the request: size, bad JSON, and any other 4xx the body parser
 * raises (an unknown charset or Content-Encoding, a corrupt compressed body).
 */
export function errosDoCorpo(limiteDoCorpoBytes: number, binding: Binding): ErrorRequestHandler {
  return (erro: ErroDoCorpo, _req, res, next) => {
    const status = typeof erro.status === 'number' ? erro.status : 0;
    if (erro.type === 'entity.too.large') {
      responderErro(res, 413, A2A_ERROR_CODE.INVALID_REQUEST, `Corpo acima do limite de ${String(limiteDoCorpoBytes)} bytes`, binding);
    } else if (erro instanceof SyntaxError || erro.type === 'entity.parse.failed') {
      responderErro(res, 400, A2A_ERROR_CODE.PARSE_ERROR, 'Parse error: o corpo nao e JSON valido', binding);
    } else if (Number.isInteger(status) && status >= 400 && status < 500) {
      responderErro(res, status, A2A_ERROR_CODE.INVALID_REQUEST, `Invalid Request: ${String(erro.message)}`, binding);
    } else {
      next(erro);
    }
  };
}

/** Last line of defence: a bug becomes a generic error and a log line, never a stack trace on the wire. */
export function erroInesperado(log: (linha: string) => void, binding: Binding): ErrorRequestHandler {
  // Express knows an error handler by its four parameters, so the unused `next` stays.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  return (erro: unknown, _req, res, _next) => {
    log(`erro inesperado: ${erro instanceof Error ? erro.message : String(erro)}`);
    responderErro(res, 500, A2A_ERROR_CODE.INTERNAL_ERROR, 'Internal error', binding);
  };
}
