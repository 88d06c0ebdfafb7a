/**
 * The HTTP front of /mcp: NUL refused, size limit, JSON parse, era check,
 * error messages kept short whoever wrote them, and one log line per
 * request. Everything protocol-level past that is the SDK's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  specTypeSchemas,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { erroJsonRpc, REVISAO_MCP } from 'compartilhado/contrato';
import { mensagemContida, NUL_NA_URL, nulNoCorpo, urlComNul } from 'compartilhado/entrada';
import { lerJson, problemaNoJson } from 'compartilhado/json';
import { campo, campos, camposDoPedidoMcp, objeto, resultadoJsonRpc } from 'compartilhado/log';
import { toNodeHandler, type NodeServerResponseLike } from '@modelcontextprotocol/node';
import { responderRecusaDeOrigem, type RegraDeOrigem } from 'compartilhado/origem';
import { responderSaude, type Prontidao } from 'compartilhado/saude';
import type { Vao } from 'compartilhado/telemetria';
import { abrirVaoDoServidorMcp, encerrarVaoMcp, type Conhecidos } from 'compartilhado/telemetria/mcp';
import type { Acesso } from './acesso.js';
import { ReservasIndisponiveis } from './reservas/reservas.js';

export const CAMINHO = '/mcp';

interface Registro {
  status: number;
  corpo: string;
  motivo?: string;
  /** The JSON-RPC id of the request, once its body is read. */
  id?: unknown;
  /** Set when the bookings store could not answer: the reply becomes a JSON-RPC error. */
  indisponivel?: ReservasIndisponiveis;
  /** The caller's name, with MCP_TOKENS. */
  quem?: string;
  /** With telemetry on, the request's span, from the moment its body is read. */
  vao?: Vao;
}

/**
 * Each request's record, by the web Request the SDK serves it as: the
 * server instance built for it names that Request with its errors. Found
 * this way, not through an AsyncLocalStorage, whose hooks would tax every
 * promise of the process.
 */
const registros = new WeakMap<Request, Registro>();

/**
 * Out-of-band SDK errors (e.g. why a requestState was refused) join their
 * request's log line. The handler's own refusals (a header unlike the body,
 * an unsupported revision) name no request: their answer says why, and the
 * line shows its code.
 */
export function anotarFalha(erro: Error, pedido?: Request): void {
  const registro = pedido && registros.get(pedido);
  if (!registro) return;
  registro.motivo =
    erro instanceof ReservasIndisponiveis && erro.cause instanceof Error ? `${erro.message} (${erro.cause.message})` : erro.message;
  if (erro instanceof ReservasIndisponiveis) registro.indisponivel = erro;
}

/**
 * The SDK has already turned the store's failure into an isError tool
 * result; a server that cannot reach its bookings answers the request with
 * JSON-RPC -32603 instead, so no client takes it for a tool's verdict.
 */
function comFalhasDoBanco(handler: McpHttpHandler, registro: Registro): McpHttpHandler['fetch'] {
  return async (pedido, opcoes) => {
    registros.set(pedido, registro);
    const resposta = await handler.fetch(pedido, opcoes);
    if (!registro.indisponivel) return resposta;
    return Response.json(erroJsonRpc(registro.id, ProtocolErrorCode.InternalError, registro.indisponivel.message));
  };
}

/**
 * The SDK quotes the client, whole, in the errors it answers: the Mcp-Name,
 * Mcp-Method and MCP-Protocol-Version headers it finds unlike the body, an
 * unknown tool's or prompt's name, a resource URI. A JSON answer with an
 * error is written again with its message cut by mensagemContida; any
 * other JSON answer is written as the SDK wrote it.
 */
function comMensagemContida(texto: string): string {
  const corpo = objeto(texto.includes('"error"') ? lerJson(texto) : undefined);
  const erro = objeto(corpo?.error);
  const contida = typeof erro?.message === 'string' ? mensagemContida(erro.message) : undefined;
  return contida === undefined || contida === erro?.message ? texto : JSON.stringify({ ...corpo, error: { ...erro, message: contida } });
}

function responderErro(res: ServerResponse, status: number, codigo: number, mensagem: string, id: unknown = null): Registro {
  const corpo = JSON.stringify(erroJsonRpc(id, codigo, mensagem));
  res.writeHead(status, { 'content-type': 'application/json' }).end(corpo);
  return { status, corpo };
}

class CorpoGrandeDemais extends Error {}

/**
 * Requests whose params the SDK hands to its handler unchecked: a malformed
 * one would come back as -32603 with a multi-line zod dump. They are checked
 * here against the spec's own schema and refused as -32602, in one line.
 */
const PEDIDOS_CONFERIDOS: Readonly<Record<string, (typeof specTypeSchemas)[keyof typeof specTypeSchemas] | undefined>> = {
  'completion/complete': specTypeSchemas.CompleteRequest,
  'prompts/get': specTypeSchemas.GetPromptRequest,
  'resources/read': specTypeSchemas.ReadResourceRequest,
};

function paramsInvalidos(pedido: unknown): string | undefined {
  const metodo = objeto(pedido)?.method;
  const esquema = typeof metodo === 'string' ? PEDIDOS_CONFERIDOS[metodo] : undefined;
  const [problema] = esquema?.['~standard'].validate(pedido).issues ?? [];
  if (problema === undefined) return undefined;
  const caminho = (problema.path ?? []).map((parte) => String(typeof parte === 'object' ? parte.key : parte)).join('.');
  return `${caminho || 'params'}: ${problema.message.split('\n', 1)[0] ?? ''}`;
}

async function lerCorpo(req: IncomingMessage, limite: number): Promise<string> {
  const partes: Buffer[] = [];
  let tamanho = 0;
  for await (const parte of req as AsyncIterable<Buffer>) {
    tamanho += parte.length;
    if (tamanho > limite) throw new CorpoGrandeDemais();
    partes.push(parte);
  }
  return Buffer.concat(partes).toString('utf8');
}

const emTexto = (parte: string | Uint8Array) => (typeof parte === 'string' ? parte : Buffer.from(parte).toString('utf8'));

/** Passes a stream (SSE) on as the SDK's adapter writes it, keeping its text for the log line. */
function gravador(res: ServerResponse, registro: Registro): NodeServerResponseLike {
  return {
    writeHead(status, headers) {
      registro.status = status;
      return res.writeHead(status, headers);
    },
    write(parte) {
      registro.corpo += emTexto(parte);
      return res.write(parte);
    },
    end(parte) {
      if (parte !== undefined) registro.corpo += emTexto(parte);
      return res.end(parte);
    },
    on: (evento, ouvinte) => res.on(evento, ouvinte),
    get destroyed() {
      return res.destroyed;
    },
  };
}

/**
 * The web Request the SDK serves a request as, without a body: this front
 * has read and parsed a POST's, and the handler given `parsedBody` never
 * reads the Request's (toNodeHandler would serialize it again into one);
 * GET, DELETE and OPTIONS carry none the SDK reads. Its signal ends the
 * work when the client goes away, as toNodeHandler's does.
 */
function pedidoWebSemCorpo(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (const [nome, valor] of Object.entries(req.headers)) {
    if (valor === undefined || nome.startsWith(':') || CABECALHOS_DO_CORPO.has(nome)) continue;
    if (Array.isArray(valor)) for (const item of valor) headers.append(nome, item);
    else headers.set(nome, valor);
  }
  const abandono = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abandono.abort();
  });
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: abandono.signal,
  });
}
const CABECALHOS_DO_CORPO = new Set(['content-length', 'transfer-encoding', 'content-encoding']);

/**
 * The SDK's answer: JSON read whole and written with its error message cut
 * (comMensagemContida), a stream (SSE) passed on by toNodeHandler as it
 * comes, through gravador.
 */
async function escreverResposta(req: IncomingMessage, res: ServerResponse, resposta: Response, registro: Registro): Promise<void> {
  if (!resposta.headers.get('content-type')?.startsWith('application/json')) {
    return toNodeHandler({ fetch: () => Promise.resolve(resposta) })(req, gravador(res, registro));
  }
  const texto = await resposta.text();
  const headers = Object.fromEntries(resposta.headers);
  registro.status = resposta.status;
  registro.corpo = comMensagemContida(texto);
  if (registro.corpo !== texto) delete headers['content-length'];
  // Written with its end: headers, body and the last chunk in one write to the socket.
  res.writeHead(registro.status, headers).end(registro.corpo);
}

const temAlegacaoDeVersao = (pedido: unknown) =>
  typeof objeto(objeto(objeto(pedido)?.params)?._meta)?.[PROTOCOL_VERSION_META_KEY] === 'string';

function resumo(pedido: unknown, registro: Registro): string {
  return campos({
    ...camposDoPedidoMcp(pedido),
    ...(registro.quem ? { quem: registro.quem } : {}),
    http: registro.status,
    resultado: resultadoJsonRpc(registro.corpo),
    ...(registro.motivo ? { motivo: registro.motivo } : {}),
    ...(registro.vao ? { trace_id: registro.vao.traceId, span_id: registro.vao.spanId } : {}),
  });
}

/** The answer's JSON-RPC message: the body, or a stream's last event. */
const ultimaMensagem = (corpo: string): string => /(?:^|\n)data: (.*)\n*$/.exec(corpo)?.[1] ?? corpo;

/** What is served beside /mcp to anyone: JSON documents (path -> body) with CORS, the Link header announcing them, and health. */
export interface Publicos {
  readonly documentos: ReadonlyMap<string, string>;
  readonly link: string;
  /** For GET /readyz: why the server cannot serve now (compartilhado/saude). */
  readonly pronto: Prontidao;
}

export function criarAtendimento(
  handler: McpHttpHandler,
  limiteDoCorpo: number,
  log: (linha: string) => void,
  { documentos, link, pronto }: Publicos,
  origem: RegraDeOrigem,
  conhecidos: Conhecidos,
  acesso?: Acesso,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const comeco = performance.now();
    const registro: Registro = { status: 0, corpo: '' };
    let pedido: unknown;
    await (async () => {
      // Before any route, as in the agent: no path or query with NUL goes further, whatever it names.
      if (urlComNul(req.url ?? ''))
        return Object.assign(registro, responderErro(res, 400, ProtocolErrorCode.InvalidRequest, `Invalid Request: ${NUL_NA_URL}`));
      const caminho = new URL(req.url ?? '/', 'http://localhost').pathname;
      res.setHeader('link', link);
      const documento = documentos.get(caminho);
      if (documento !== undefined && (req.method === 'GET' || req.method === 'HEAD')) {
        res
          .writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
          .end(req.method === 'GET' ? documento : undefined);
        return void (registro.status = 200);
      }
      const saude = await responderSaude(req.method, caminho, pronto);
      if (saude) {
        res.writeHead(saude.status, saude.headers).end(req.method === 'GET' ? saude.corpo : undefined);
        return Object.assign(registro, { status: saude.status, corpo: saude.corpo });
      }
      if (caminho !== CAMINHO)
        return Object.assign(registro, responderErro(res, 404, ProtocolErrorCode.InvalidRequest, `Nada aqui: o endpoint MCP e ${CAMINHO}`));
      // DNS-rebinding guard, the agent's rule too: a browser page from a foreign origin is refused with 403.
      const recusa = origem(req.headers);
      if (recusa !== undefined) {
        responderRecusaDeOrigem(res, recusa);
        return Object.assign(registro, { status: 403, motivo: recusa });
      }
      // A browser's preflight carries no credentials: it is the SDK's to answer, as without tokens.
      if (acesso && req.method !== 'OPTIONS') {
        const autorizado = await acesso(req);
        if ('recusa' in autorizado) {
          const { recusa } = autorizado;
          registro.motivo = autorizado.motivo;
          registro.corpo = await recusa.text();
          registro.status = recusa.status;
          res.writeHead(recusa.status, Object.fromEntries(recusa.headers)).end(registro.corpo);
          return;
        }
        registro.quem = autorizado.quem;
      }
      if (req.method !== 'POST')
        return escreverResposta(req, res, await comFalhasDoBanco(handler, registro)(pedidoWebSemCorpo(req, res)), registro);
      let texto: string;
      try {
        texto = await lerCorpo(req, limiteDoCorpo);
      } catch (erro) {
        if (erro instanceof CorpoGrandeDemais) {
          return Object.assign(
            registro,
            responderErro(res, 413, ProtocolErrorCode.InvalidRequest, `Corpo acima do limite de ${limiteDoCorpo} bytes`),
          );
        }
        throw erro;
      }
      try {
        pedido = JSON.parse(texto);
      } catch {
        return Object.assign(registro, responderErro(res, 400, ProtocolErrorCode.ParseError, 'Parse error: o corpo nao e JSON valido'));
      }
      registro.id = objeto(pedido)?.id;
      registro.vao = abrirVaoDoServidorMcp(pedido, req.headers.traceparent, conhecidos);
      // PostgreSQL's text type has no NUL: a responsavel with it would fail as the bookings store being down.
      const problema = problemaNoJson(pedido, nulNoCorpo);
      if (problema !== undefined) {
        return Object.assign(registro, responderErro(res, 400, ProtocolErrorCode.InvalidRequest, `Invalid Request: ${problema}`));
      }
      // The SDK answers a request without the envelope as an unsupported
      // revision (-32022); the spec wants the missing _meta field named, -32602.
      // A body that carries the envelope's version claim is modern by definition.
      const pedidoWeb = pedidoWebSemCorpo(req, res);
      if (!temAlegacaoDeVersao(pedido) && (await isLegacyRequest(pedidoWeb, pedido))) {
        return Object.assign(
          registro,
          responderErro(
            res,
            400,
            ProtocolErrorCode.InvalidParams,
            `Invalid params: _meta sem ${PROTOCOL_VERSION_META_KEY} (esta rota atende so a revisao ${REVISAO_MCP})`,
            registro.id ?? null,
          ),
        );
      }
      const invalidos = paramsInvalidos(pedido);
      if (invalidos !== undefined) {
        // As the SDK answers a handler's -32602: in band, HTTP 200.
        return Object.assign(
          registro,
          responderErro(res, 200, ProtocolErrorCode.InvalidParams, `Invalid params: ${invalidos}`, registro.id ?? null),
        );
      }
      const { vao } = registro;
      const atender = () => comFalhasDoBanco(handler, registro)(pedidoWeb, { parsedBody: pedido });
      // The tool's work (the bookings store's queries) runs under the request's span.
      return escreverResposta(req, res, await (vao ? vao.dentro(atender) : atender()), registro);
    })().catch((erro: unknown) => {
      // Last line of defence: a bug becomes a generic JSON-RPC error, never a stack trace on the wire.
      registro.motivo = erro instanceof Error ? erro.message : String(erro);
      if (!res.headersSent) Object.assign(registro, responderErro(res, 500, ProtocolErrorCode.InternalError, 'Internal error'));
      else res.end();
    });
    if (registro.vao) encerrarVaoMcp(registro.vao, lerJson(ultimaMensagem(registro.corpo)), registro.status);
    log(
      `${new Date().toISOString()} ${req.method ?? '-'} ${req.url === CAMINHO ? '' : `${campo(req.url)} `}${resumo(pedido, registro)} ${(performance.now() - comeco).toFixed(1)}ms`,
    );
  };
}
