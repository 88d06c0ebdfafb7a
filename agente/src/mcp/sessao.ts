/**
 * One connection to a configured MCP server: an SDK Client on its own
 * transport (a Streamable HTTP session, an SSE stream, or the stdio
 * child), its era found by the SDK's 'auto' negotiation. On a `sessao`
 * server a tools/call holds the session alone (generica.ts sees to it), so
 * an elicitation/create that arrives while it runs belongs to that call and
 * goes to its aoPerguntar.
 */
import {
  Client,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  TRACEPARENT_META_KEY,
  type ElicitRequestParams,
  type ElicitResult,
  type McpSubscription,
  type PriorDiscovery,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { campos } from 'compartilhado/log';
import { CLIENTE, CallToolResultOuPergunta } from './cliente.js';
import { ehHttp, type ServidorConfigurado } from './configuracao.js';
import type { Era, OpcoesDaChamada, ResultadoDaFerramenta } from './conexao.js';
import { ondeEsta } from './descricao.js';
import { ChamadaNaoEnviada } from './naoEnviada.js';
import { comTraceparent, observarTransporte } from './vaos.js';
import { registrar, type FioDasTasks, type Log } from './registro.js';
import { SEM_PRAZO_DO_SDK, type Relogio } from './relogio.js';
import { Despacho, EXTENSAO_DE_TASKS } from './despacho.js';
import { TarefasMcp } from './tarefa.js';

/**
 * The child's stderr, piped rather than inherited: each line goes to the
 * agent's stderr prefixed with the server's name, so with several servers
 * every line says whose it is, and no control character of the child's can
 * break or forge one of the agent's log lines.
 */
function stderrComPrefixo(transporte: StdioClientTransport, nome: string): void {
  let resto = '';
  transporte.stderr?.on('data', (parte: Buffer) => {
    const linhas = (resto + parte.toString('utf8')).split('\n');
    resto = linhas.pop() ?? '';
    for (const linha of linhas) process.stderr.write(`mcp[${nome}] ${linha.replace(/[^\t\x20-\x7e\u00a0-\uffff]/g, '?')}\n`);
  });
}

function transporteDe(servidor: ServidorConfigurado, juntar?: Juntar): Transport {
  if (ehHttp(servidor)) {
    const opcoes = {
      requestInit: { headers: { ...servidor.headers } },
      fetch: comTraceparent(fetch),
      ...(juntar ? { sessionId: juntar.sessaoMcp, ...(juntar.versao === undefined ? {} : { protocolVersion: juntar.versao }) } : {}),
    };
    if (servidor.transporte === 'streamable-http') return new StreamableHTTPClientTransport(servidor.url, opcoes);
    // The 2024-11-05 transport, deprecated by the SDK for Streamable HTTP: the only way to a server that serves nothing else.
    return new SSEClientTransport(servidor.url, opcoes); // eslint-disable-line @typescript-eslint/no-deprecated -- "sse" asked for in the file
  }
  // The SDK spawns with its safe default environment (PATH, HOME, USER, ...) under the configured env, never the agent's own.
  const transporte = new StdioClientTransport({
    command: servidor.command,
    args: [...servidor.args],
    env: { ...servidor.env },
    ...(servidor.cwd === undefined ? {} : { cwd: servidor.cwd }),
    stderr: 'pipe',
  });
  stderrComPrefixo(transporte, servidor.nome);
  return transporte;
}

/** Questions in both modes; no sampling and no roots: a server that asks for them gets the SDK's -32601. */
const CAPACIDADES = { elicitation: { form: {}, url: {} } };

/** A tools/call in flight on a `sessao` session: where its server's questions go. */
interface Dona {
  readonly aoPerguntar: OpcoesDaChamada['aoPerguntar'];
  readonly relogio: Relogio;
}

/** An HTTP session opened by some other process, joined by its id (no initialize: the session has had one). */
export interface Juntar {
  readonly sessaoMcp: string;
  readonly versao?: string;
}

export interface Abertura {
  readonly servidor: ServidorConfigurado;
  /** This session's ordinal in its server, for the log (the HTTP session id is a credential of sorts: never logged). */
  readonly numero: number;
  /** Already clear of the server's URL secrets (ConexaoGenerica's). */
  readonly log: Log;
  readonly prazoMs: number;
  /** The era another session of this server found: this one skips the probe. */
  readonly veredito?: PriorDiscovery;
  /** With the console on: where each Task's exchanges are noted. */
  readonly fio?: FioDasTasks;
  /** Only the long-lived session listens for tool list changes (list_changed, or subscriptions/listen on a 2026 server). */
  readonly aoMudarFerramentas?: () => void;
  /** Told once, when the session can no longer be used (closed, child exited, HTTP session lost). */
  readonly aoFechar: (sessao: Sessao) => void;
  /** Join this session instead of opening one (to follow an MCP task that lives in it). */
  readonly juntar?: Juntar;
}

export class Sessao {
  private dona: Dona | undefined;
  private aberta = true;
  /** Its 2026 listen stream ended: listened again before its next request. */
  private surda = false;

  /** What hears the transport before the Client (the request log, the spans): also told of the raw requests' responses. */
  private antesDoCliente: Transport['onmessage'];

  /** The MCP tasks this session's client starts and follows, made once connected (the server's generation of tasks known). */
  private tarefasMcp: TarefasMcp | undefined;

  private constructor(
    private readonly cliente: Client,
    private readonly transporte: Transport,
    private readonly abertura: Abertura,
  ) {}

  /**
   * A 2026-07-28 server that declares the tasks extension: every tools/call
   * declares it too, and goes out raw (despacho.ts), as the server may
   * answer it with a task.
   */
  private get comTarefas2026(): boolean {
    return this.era === 'moderna' && this.cliente.getServerCapabilities()?.extensions?.[EXTENSAO_DE_TASKS] !== undefined;
  }

  private get tarefas(): TarefasMcp {
    if (this.tarefasMcp) return this.tarefasMcp;
    const { servidor, numero, log, prazoMs } = this.abertura;
    const http = this.transporte instanceof StreamableHTTPClientTransport ? this.transporte : undefined;
    const versao = this.cliente.getNegotiatedProtocolVersion();
    this.tarefasMcp = new TarefasMcp(
      this.cliente,
      servidor.nome,
      prazoMs,
      (erro) => log(`mcp! ${campos({ servidor: servidor.nome, sessao: numero, erro: erro.message })}`),
      ehHttp(servidor) ? { sessaoMcp: () => http?.sessionId } : { stdio: true },
      this.comTarefas2026 && versao !== undefined
        ? {
            despacho: new Despacho(this.transporte, prazoMs, (mensagem) => this.antesDoCliente?.(mensagem)),
            enquadramento: { protocolVersion: versao, clientInfo: CLIENTE, clientCapabilities: CAPACIDADES },
          }
        : undefined,
    );
    return this.tarefasMcp;
  }

  static async abrir(abertura: Abertura): Promise<Sessao> {
    const { servidor, numero, log, prazoMs, veredito, aoMudarFerramentas, fio, juntar } = abertura;
    const rotulo = { servidor: servidor.nome, sessao: numero };
    const cliente = new Client(CLIENTE, {
      capabilities: CAPACIDADES,
      versionNegotiation: { mode: 'auto' },
      // A 2026 server's input_required comes back to the bridge as it is, to pause the A2A Task.
      inputRequired: { autoFulfill: false },
      ...(aoMudarFerramentas ? { listChanged: { tools: { autoRefresh: false, onChanged: () => aoMudarFerramentas() } } } : {}),
    });
    const transporte = transporteDe(servidor, juntar);
    const sessao = new Sessao(cliente, transporte, abertura);
    cliente.setRequestHandler('elicitation/create', ({ params }) => sessao.perguntar(params));
    cliente.onclose = () => sessao.encerrada();
    cliente.onerror = (erro) => {
      // A server that ignores a cancel keeps reporting progress of the call it was told to stop: expected, not worth a line each.
      if (erro.message.startsWith('Received a progress notification for an unknown token')) return;
      // ext-tasks gives up a tasks/get in flight when a status notification answers first: its late answer is expected too.
      if (erro.message.startsWith('Received a response for an unknown message ID') && erro.message.includes('"taskId"')) return;
      // Closing an SSE session aborts its own stream: the close was asked for, not an error.
      if (!sessao.usavel && erro.name === 'AbortError') return;
      log(`mcp! ${campos({ ...rotulo, erro: erro.message })}`);
    };
    const sondagem = registrar(transporte, rotulo, log, fio && { fio, servidor: servidor.nome });
    observarTransporte(transporte, ehHttp(servidor) ? servidor.url : 'stdio');
    sessao.antesDoCliente = transporte.onmessage;
    try {
      // A joined session skips initialize: the SDK's plain 2025 connect does, given the session's id.
      await cliente.connect(transporte, {
        timeout: prazoMs,
        ...(juntar ? { prior: { kind: 'legacy' } } : veredito ? { prior: veredito } : {}),
      });
    } catch (erro) {
      await cliente.close().catch(() => undefined);
      // No request of whoever needed this session went out. An HTTP refusal (4xx) already says so by its
      // status, and a 401 is how the caller names the credentials: that one is kept as it is.
      if (erro instanceof SdkHttpError && erro.status < 500) throw erro;
      throw new ChamadaNaoEnviada(erro instanceof Error ? erro.message : String(erro), erro);
    }
    sondagem(sessao.era);
    if (cliente.autoOpenedSubscription) sessao.vigiarEscuta(cliente.autoOpenedSubscription);
    if (ehHttp(servidor) && servidor.transporte === 'sse') sessao.fecharComOFluxo(transporte);
    return sessao;
  }

  get era(): Era {
    return this.cliente.getProtocolEra() === 'modern' ? 'moderna' : 'sessao';
  }

  /** What the next session of this server may reuse instead of probing again. */
  get veredito(): PriorDiscovery {
    const discover = this.cliente.getDiscoverResult();
    return discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  }

  get usavel(): boolean {
    return this.aberta;
  }

  /** tools/list, every page; `renovar` skips the SDK's cache (after a list change). */
  ferramentas(traceparent?: string, renovar = false): Promise<Tool[]> {
    return this.vigiado(async () => {
      const meta = traceparent === undefined ? {} : { _meta: { [TRACEPARENT_META_KEY]: traceparent } };
      const { tools } = await this.cliente.listTools(meta, {
        timeout: this.abertura.prazoMs,
        ...(renovar ? { cacheMode: 'refresh' } : {}),
      });
      return tools;
    });
  }

  /**
   * tools/call through the SDK's request path with allowInputRequired, so one
   * path serves both eras: a 2026 server's input_required is the result, a
   * 2025 server's questions arrive as elicitation/create while it runs.
   */
  chamar(nome: string, argumentos: Record<string, unknown>, opcoes: OpcoesDaChamada, relogio: Relogio): Promise<ResultadoDaFerramenta> {
    const params = {
      name: nome,
      arguments: argumentos,
      ...opcoes.continuacao,
      _meta: { ...opcoes.meta, [TRACEPARENT_META_KEY]: opcoes.traceparent },
    };
    const { servidor } = this.abertura;
    const naoEnviada = (causa?: unknown) =>
      new ChamadaNaoEnviada(`a conexao com ${servidor.nome} (${ondeEsta(servidor)}) ja estava fechada: ${nome} nao foi enviada`, causa);
    return this.vigiado(async () => {
      // The SDK hands the request to the transport in the same tick request() is called: a session open here is open then.
      if (!this.usavel) throw naoEnviada();
      // A 2026 session runs calls side by side: no question can arrive on it to be routed.
      if (this.era === 'sessao') this.dona = { aoPerguntar: opcoes.aoPerguntar, relogio };
      try {
        // A task has no deadline of its own (tarefa.ts): only the caller's cancel stops it.
        const daTarefa = {
          sinal: opcoes.sinal ?? new AbortController().signal,
          ...(opcoes.aoProgredir ? { aoProgredir: opcoes.aoProgredir } : {}),
          ...(opcoes.aoSeguir ? { aoSeguir: opcoes.aoSeguir } : {}),
        };
        if (opcoes.retomar) return await this.tarefas.retomar(opcoes.retomar, daTarefa, opcoes.respostasDaTarefa);
        if (this.comTarefas2026)
          return await this.tarefas.chamar2026(nome, argumentos, params._meta, opcoes.continuacao, relogio, daTarefa);
        if (opcoes.tarefa && this.era === 'sessao') return await this.tarefas.chamar(nome, argumentos, params._meta, daTarefa);
        return await this.cliente.request({ method: 'tools/call', params }, CallToolResultOuPergunta, {
          allowInputRequired: true,
          signal: relogio.sinal,
          timeout: SEM_PRAZO_DO_SDK,
          onprogress: (progresso) => {
            relogio.reiniciar();
            opcoes.aoProgredir?.(progresso);
          },
        });
      } catch (erro) {
        // Cancelled by the caller: its own reason, not the SDK's wrapping of it as a timeout.
        opcoes.sinal?.throwIfAborted();
        // The transport had no child left to write to (it stopped it after a garbled line, before the session heard it close).
        if (erro instanceof SdkError && erro.code === SdkErrorCode.NotConnected) throw naoEnviada(erro);
        if (!this.aberta)
          throw new SdkError(
            SdkErrorCode.ConnectionClosed,
            `a conexao com ${servidor.nome} (${ondeEsta(servidor)}) caiu durante ${nome}: o desfecho da chamada e desconhecido`,
          );
        throw erro;
      } finally {
        this.dona = undefined;
      }
    });
  }

  /** Ends the session: the HTTP session is deleted on the server (DELETE), a stdio child is stopped (stdin closed, then signals). */
  async fechar(): Promise<void> {
    this.aberta = false;
    const deixadas = (await this.tarefasMcp?.fechar().catch(() => 0)) ?? 0;
    // Left open on the server: a joined session is its opener's (who may still use it), and one whose MCP tasks
    // still run holds them (a 2025 server may keep tasks per session) for the agent that follows them next.
    if (this.transporte instanceof StreamableHTTPClientTransport && !this.abertura.juntar && deixadas === 0) {
      const prazo = new Promise<void>((resolver) => setTimeout(resolver, this.abertura.prazoMs).unref());
      await Promise.race([this.transporte.terminateSession().catch(() => undefined), prazo]);
    }
    await this.cliente.close();
  }

  /** The server asked during a call: the call holding this session answers, or the agent declines. */
  private async perguntar(pergunta: ElicitRequestParams): Promise<ElicitResult> {
    const dona = this.dona;
    if (!dona?.aoPerguntar) return { action: 'decline' };
    dona.relogio.pausar();
    try {
      return await dona.aoPerguntar(pergunta);
    } finally {
      dona.relogio.retomar();
    }
  }

  /**
   * Over SSE the session lives in its stream: once the stream breaks (the
   * server restarted, the network dropped), the server's session is gone,
   * and the SDK's EventSource would reconnect to a new one that nobody
   * initialized. The session ends there; the next request opens another.
   */
  private fecharComOFluxo(transporte: Transport): void {
    const avisar = transporte.onerror;
    transporte.onerror = (erro) => {
      avisar?.(erro);
      if (erro instanceof SseError && this.aberta) void this.fechar();
    };
  }

  private vigiarEscuta(escuta: McpSubscription): void {
    void escuta.closed.then((como) => {
      if (como !== 'local') this.surda = true;
    });
  }

  /**
   * The SDK does not reopen a 2026 server's listen stream that ended (the
   * server restarted, or closed it). It is reopened before this session's
   * next request, so a server that keeps closing it costs one listen per
   * request, never a loop; the tools are read again, as they may have
   * changed while nobody listened.
   */
  private async ouvirDeNovo(): Promise<void> {
    if (!this.surda) return;
    this.surda = false;
    try {
      this.vigiarEscuta(await this.cliente.listen({ toolsListChanged: true }, { timeout: this.abertura.prazoMs }));
      this.abertura.aoMudarFerramentas?.();
    } catch (erro) {
      this.surda = true;
      this.cliente.onerror?.(erro instanceof Error ? erro : new Error(String(erro)));
    }
  }

  /**
   * Every request: the listen stream first, if it ended. An HTTP request
   * that failed as HTTP (the session unknown to a restarted server, the
   * network down) leaves the session unusable.
   */
  private async vigiado<T>(pedido: () => Promise<T>): Promise<T> {
    await this.ouvirDeNovo();
    try {
      return await pedido();
    } catch (erro) {
      if (erro instanceof SdkHttpError || erro instanceof TypeError) void this.fechar();
      throw erro;
    }
  }

  private encerrada(): void {
    this.aberta = false;
    this.abertura.aoFechar(this);
  }
}
