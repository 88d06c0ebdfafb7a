/**
 * The agent's MCP client for the room server: one SDK Client kept alive (no
 * protocol state rides on it: every request carries its own envelope),
 * pinned to 2026-07-28, declaring form elicitation, and never answering
 * input_required by itself.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  specTypeSchemas,
  TRACEPARENT_META_KEY,
  withInputRequired,
  type TextResourceContents,
  type Tool,
} from '@modelcontextprotocol/client';
import { Readable } from 'node:stream';
import { REVISAO_MCP } from 'compartilhado/contrato';
import { Agent, request, type Dispatcher } from 'undici';
import { campos, camposDoPedidoMcp, desfechoDoResultado } from 'compartilhado/log';
import { vaoAtual } from 'compartilhado/telemetria';
import { recusouCredenciais, type ConexaoMcp, type Era, type OpcoesDaChamada, type ResultadoDaFerramenta } from './conexao.js';
import { ondeDaUrl } from './descricao.js';
import type { Log } from './registro.js';
import { comTraceparent, observarTransporte } from './vaos.js';

export const CLIENTE = { name: 'agente-central-de-salas', version: '1.0.0' } as const;

/** What a tools/call can come back as (ResultadoDaFerramenta), each outcome checked by the SDK's own schemas. */
export const CallToolResultOuPergunta = withInputRequired(specTypeSchemas.CallToolResult);

function pedidoDe(corpo: unknown): Record<string, unknown> {
  try {
    return camposDoPedidoMcp(JSON.parse(typeof corpo === 'string' ? corpo : '{}'));
  } catch {
    // A body that is not JSON: the line says so rather than guessing.
    return { metodo: '-' };
  }
}

/**
 * Keep-alive connections to the MCP server, shared by every call. The SDK's
 * transport takes any fetch; this one is undici's pooled request path, which
 * costs a quarter of the CPU of Node's built-in fetch per call (measured in
 * docs/desempenho.md's optimisation table), under the same Response the SDK reads.
 */
const conexoes = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
const SEM_CORPO = new Set([204, 205, 304]);

function cabecalhosDe(brutos: Record<string, string | string[] | undefined>): Headers {
  const cabecalhos = new Headers();
  for (const [nome, valor] of Object.entries(brutos))
    for (const um of Array.isArray(valor) ? valor : valor === undefined ? [] : [valor]) cabecalhos.append(nome, um);
  return cabecalhos;
}

/**
 * Told each JSON exchange: the request body, the HTTP status, the answer's
 * text, the milliseconds to it and, with telemetry on, the trace id of the
 * MCP client span it was sent in (the console's Fio keeps them).
 */
export type AoTrocar = (pedido: string, http: number, resposta: string, ms: number, traceId: string | undefined) => void;

/**
 * One HTTP exchange with the MCP server, as the fetch saw it: the request's
 * log fields, then the HTTP status and the time to the answer, or why no
 * answer came (the transport failed).
 */
interface Troca {
  readonly pedido: Record<string, unknown>;
  http?: number;
  ms?: number;
  falha?: string;
}

/**
 * The slot of one ClienteMcp method's request: the fetch puts its Troca in
 * it, and the method writes the line once the SDK has handed back the
 * result it parsed or thrown, so the outcome is the SDK's, never read back
 * from the body. Found by the fetch through the async context the SDK's
 * request runs in (the only thread from a method to its fetch: the SDK
 * picks the JSON-RPC id).
 */
interface Chamada {
  troca?: Troca;
  escrita: boolean;
}
const chamadaAtual = new AsyncLocalStorage<Chamada>();

function escrever(log: Log, { pedido, http, ms = 0 }: Troca, resultado: string): void {
  log(`mcp-> ${campos({ ...pedido, ...(http === undefined ? {} : { http }), resultado })} ${ms.toFixed(1)}ms`);
}

/** A method's request ends: its line, if a request went out; a fetch still in its context afterwards logs by itself. */
function terminar(log: Log, chamada: Chamada, resultado: string): void {
  chamada.escrita = true;
  if (chamada.troca) escrever(log, chamada.troca, resultado);
}

/** An exchange whose outcome nobody told: its transport failure, or `-`. */
const semDesfecho = (troca: Troca) => (troca.falha === undefined ? '-' : `falha ${troca.falha}`);

/**
 * What the SDK threw: the transport's failure, the server's JSON-RPC error
 * code, or `-` (an HTTP refusal, told by `http=`; a result the SDK refused).
 * Never the error's message: the SDK quotes response bodies in it.
 */
function desfechoDoErro(erro: unknown, troca: Troca | undefined): string {
  if (troca?.falha !== undefined) return `falha ${troca.falha}`;
  return erro instanceof ProtocolError ? `erro ${String(erro.code)}` : '-';
}

/**
 * The agent's fetch for the SDK's transport: over the pool, answered as the
 * Response the SDK reads; JSON is read whole (for the Fio), any other body,
 * a server-sent event stream, goes on as a stream. A request made by a
 * ClienteMcp method leaves its Troca in the method's slot; a request made
 * before it in the same call (a redirect hop) and anything else (a
 * notification, a request of the SDK's own outside the methods) is logged
 * here at once, its outcome unknown. Never the arguments or the requestState.
 */
function fetchComLog(log: Log, aoTrocar?: AoTrocar): typeof fetch {
  return async (entrada, init) => {
    const comeco = performance.now();
    // The SDK sends inside the request's MCP client span (vaos.ts): its trace is the exchange's.
    const traceId = vaoAtual()?.traceId;
    const corpo = init?.body;
    const troca: Troca = { pedido: pedidoDe(corpo) };
    const chamada = chamadaAtual.getStore();
    const daChamada = chamada !== undefined && !chamada.escrita && troca.pedido.id !== 'null';
    if (daChamada) {
      if (chamada.troca) escrever(log, chamada.troca, semDesfecho(chamada.troca));
      chamada.troca = troca;
    }
    let resposta: Dispatcher.ResponseData;
    try {
      resposta = await request(entrada instanceof Request ? entrada.url : entrada, {
        method: init?.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init?.headers)),
        body: typeof corpo === 'string' || corpo instanceof Uint8Array ? corpo : undefined,
        signal: init?.signal ?? undefined,
        dispatcher: conexoes,
      });
    } catch (erro) {
      troca.falha = erro instanceof Error ? erro.message : String(erro);
      troca.ms = performance.now() - comeco;
      if (!daChamada) escrever(log, troca, semDesfecho(troca));
      // As fetch fails: the abort as it is, anything else a TypeError (the SDK tells them apart).
      if (erro instanceof Error && erro.name === 'AbortError') throw erro;
      throw new TypeError('fetch failed', { cause: erro });
    }
    const status = resposta.statusCode;
    troca.http = status;
    const headers = cabecalhosDe(resposta.headers);
    if (headers.get('content-type')?.includes('application/json')) {
      const texto = await resposta.body.text();
      troca.ms = performance.now() - comeco;
      if (!daChamada) escrever(log, troca, '-');
      aoTrocar?.(typeof corpo === 'string' ? corpo : '', status, texto, troca.ms, traceId);
      return new Response(texto, { status, headers });
    }
    troca.ms = performance.now() - comeco;
    if (!daChamada) escrever(log, troca, '-');
    // node:stream/web's ReadableStream is the one Response reads; only the two libraries' typings differ.
    if (!SEM_CORPO.has(status)) return new Response(Readable.toWeb(resposta.body) as unknown as BodyInit, { status, headers });
    await resposta.body.dump();
    return new Response(null, { status, headers });
  };
}

/** The MCP server refused the agent's credentials (MCP_TOKEN): what to say instead of "unavailable". */
export const credenciaisRecusadas = (erro: unknown, url: URL): string | undefined =>
  recusouCredenciais(erro) ? mensagemDeCredenciais(url) : undefined;

/** What to say when the room server refused the agent's credentials. */
export const mensagemDeCredenciais = (url: URL) =>
  `O servidor MCP em ${ondeDaUrl(url)} recusou as credenciais do agente (HTTP 401): confira o MCP_TOKEN do agente e o MCP_TOKENS do servidor.`;

export class ClienteMcp implements ConexaoMcp {
  readonly nome = 'salas';
  private conexao: Promise<Client> | undefined;

  constructor(
    readonly url: URL,
    private readonly log: Log,
    /** MCP_TOKEN, sent as `Authorization: Bearer` on every request by the SDK's transport. */
    private readonly token?: string,
    private readonly aoTrocar?: AoTrocar,
    /** How long each request is waited for (AGENTE_MCP_TIMEOUT_SECONDS): past it, a tools/call's outcome is unknown. */
    private readonly prazoMs = 30_000,
  ) {}

  get onde(): string {
    return ondeDaUrl(this.url);
  }

  /** Pinned to 2026-07-28: questions always come back as input_required. */
  era(): Era {
    return 'moderna';
  }

  /** Connects once; a failed connection is retried by the next caller. */
  private cliente(): Promise<Client> {
    this.conexao ??= (async () => {
      const cliente = new Client(CLIENTE, {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: REVISAO_MCP } },
        // The agent must see input_required raw, to pause the A2A Task.
        inputRequired: { autoFulfill: false },
      });
      const { token } = this;
      // Without onUnauthorized, a 401 is thrown as UnauthorizedError: a static token has nothing to refresh.
      const authProvider = token === undefined ? undefined : { token: () => Promise.resolve(token) };
      const transporte = new StreamableHTTPClientTransport(this.url, {
        fetch: comTraceparent(fetchComLog(this.log, this.aoTrocar)),
        authProvider,
      });
      observarTransporte(transporte, this.url);
      // The SDK's server/discover probe: the connect resolving is its outcome.
      await this.comLinha(() => cliente.connect(transporte));
      return cliente;
    })();
    this.conexao.catch(() => (this.conexao = undefined));
    return this.conexao;
  }

  /**
   * Runs one SDK request in its own slot (Chamada) and writes its line once
   * the SDK has answered or thrown: the fetch's fields, HTTP status and time,
   * with the outcome told here. No line when nothing went out (a list from
   * the SDK's cache).
   */
  private async comLinha<T>(pedir: () => Promise<T>): Promise<T> {
    const chamada: Chamada = { escrita: false };
    let valor: T;
    try {
      valor = await chamadaAtual.run(chamada, pedir);
    } catch (erro) {
      terminar(this.log, chamada, desfechoDoErro(erro, chamada.troca));
      throw erro;
    }
    terminar(this.log, chamada, desfechoDoResultado(valor));
    return valor;
  }

  conectar(): Promise<void> {
    return this.cliente().then(() => undefined);
  }

  /** tools/list, served from the SDK's cache while the server's ttlMs says it is fresh. */
  async ferramentas(traceparent: string): Promise<Tool[]> {
    const cliente = await this.cliente();
    const { tools } = await this.comLinha(() =>
      cliente.listTools({ _meta: { [TRACEPARENT_META_KEY]: traceparent } }, { timeout: this.prazoMs }),
    );
    return tools;
  }

  async lerTexto(uri: string, traceparent: string): Promise<string> {
    const cliente = await this.cliente();
    const { contents } = await this.comLinha(() =>
      cliente.readResource({ uri, _meta: { [TRACEPARENT_META_KEY]: traceparent } }, { timeout: this.prazoMs }),
    );
    const texto = contents.find((conteudo): conteudo is TextResourceContents => 'text' in conteudo);
    if (!texto) throw new Error(`${uri} sem conteudo de texto`);
    return texto.text;
  }

  /**
   * tools/call on a fresh JSON-RPC id; a continuation adds inputResponses
   * and the echoed state; `meta` adds entries to `_meta` (an idempotency key).
   * A 2026 server asks nothing during a call, so aoPerguntar is never used.
   */
  async chamar(name: string, args: Record<string, unknown>, opcoes: OpcoesDaChamada): Promise<ResultadoDaFerramenta> {
    const cliente = await this.cliente();
    const { traceparent, continuacao, meta, aoProgredir, sinal } = opcoes;
    const params = { name, arguments: args, ...continuacao, _meta: { ...meta, [TRACEPARENT_META_KEY]: traceparent } };
    try {
      return await this.comLinha(() =>
        cliente.request({ method: 'tools/call', params }, CallToolResultOuPergunta, {
          allowInputRequired: true,
          timeout: this.prazoMs,
          ...(aoProgredir ? { onprogress: aoProgredir, resetTimeoutOnProgress: true } : {}),
          ...(sinal ? { signal: sinal } : {}),
        }),
      );
    } catch (erro) {
      // Cancelled by the caller: its own reason, not the SDK's wrapping of it as a timeout.
      sinal?.throwIfAborted();
      throw erro;
    }
  }

  /** The room server's tools never change (it declares tools.listChanged false): there is nothing to tell. */
  aoMudarFerramentas(): void {}

  async fechar(): Promise<void> {
    const cliente = await this.conexao?.catch(() => undefined);
    this.conexao = undefined;
    await cliente?.close();
  }
}
