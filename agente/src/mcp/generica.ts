/**
 * ConexaoMcp for any server in AGENTE_MCP_CONFIG, over HTTP or stdio, of
 * either era. Where a call runs depends on where a question can come back:
 *  - `moderna`: questions come back as the call's result (input_required),
 *    so every call shares the one session;
 *  - `sessao` over HTTP: each running call has a session of its own (an
 *    idle one reused, a new one opened when all are busy, busy too while
 *    its call waits for an answer), so a question on a session is that
 *    call's;
 *  - `sessao` over stdio: one child, and nothing on the wire says which call
 *    a question is for, so calls take turns: one at a time, in order, and a
 *    call waiting for an answer keeps the turn until it is answered (or its
 *    Task gives up and aborts it).
 * A child that exits fails the call running on it (its outcome unknown);
 * the next request starts a new child. A call that never went out (its
 * turn never came, its session could not be opened or was already closed)
 * fails with ChamadaNaoEnviada. Whatever leaves this class, thrown or
 * logged, is first cleared of the server's URL secrets (descricao.ts).
 */
import { SdkError, SdkErrorCode, type PriorDiscovery, type Tool } from '@modelcontextprotocol/client';
import { campos } from 'compartilhado/log';
import { ehHttp, type ServidorConfigurado } from './configuracao.js';
import type { ConexaoMcp, Era, OpcoesDaChamada, ResultadoDaFerramenta } from './conexao.js';
import { limparErro, ondeEsta, semSegredos } from './descricao.js';
import { ChamadaNaoEnviada, SeguimentoInterrompido } from './naoEnviada.js';
import type { FioDasTasks, Log } from './registro.js';
import { Relogio } from './relogio.js';
import { Sessao, type Juntar } from './sessao.js';
import { tarefaSemSeguidor } from './tarefa.js';

/** Idle HTTP sessions kept for the next calls besides the long-lived one; past this, a session is closed as its call ends. */
const OCIOSAS = 4;

/** Rejects with the signal's reason once it aborts. */
const abortado = (sinal: AbortSignal) =>
  new Promise<never>((_, rejeitar) => {
    const motivo = () => (sinal.reason instanceof Error ? sinal.reason : new Error('abortada'));
    if (sinal.aborted) rejeitar(motivo());
    sinal.addEventListener('abort', () => rejeitar(motivo()), { once: true });
  });

interface Vaga {
  readonly sessao: Sessao;
  readonly soltar: () => void;
}

export class ConexaoGenerica implements ConexaoMcp {
  readonly nome: string;
  readonly onde: string;
  /** The long-lived session: tools/list, list changes, and calls when free. */
  private principal: Promise<Sessao> | undefined;
  /** The long-lived session once open, to tell it apart when a session closes. */
  private conectada: Sessao | undefined;
  private veredito: PriorDiscovery | undefined;
  /** HTTP `sessao` era: the sessions opened for calls that ran alongside others. */
  private readonly extras = new Set<Sessao>();
  private readonly ocupadas = new Set<Sessao>();
  /** HTTP sessions of other processes, joined to follow the MCP tasks that live in them. */
  private readonly juntadas = new Set<Sessao>();
  /** stdio `sessao` era: settles when the last call in line gives up its turn. */
  private vez: Promise<void> = Promise.resolve();
  private readonly ouvintes: ((ferramentas: Tool[]) => void)[] = [];
  private fechada = false;
  private abertas = 0;
  private readonly limpar: (texto: string) => string;
  /** The agent's log, each line cleared of the server's URL secrets (an SDK or undici message may quote the URL). */
  private readonly log: Log;

  constructor(
    private readonly servidor: ServidorConfigurado,
    log: Log,
    /** AGENTE_MCP_TIMEOUT_SECONDS: each request's wait; a tools/call's pauses while a question is open and starts over on progress. */
    private readonly prazoMs: number,
    /** With the console on: where each Task's exchanges with this server are noted, for its Fio. */
    private readonly fio?: FioDasTasks,
  ) {
    this.nome = servidor.nome;
    this.onde = ondeEsta(servidor);
    this.limpar = semSegredos(servidor);
    this.log = (linha) => log(this.limpar(linha));
  }

  era(): Era {
    if (!this.veredito) throw new Error(`servidor MCP ${this.nome}: era desconhecida antes de conectar`);
    return this.veredito.kind === 'modern' ? 'moderna' : 'sessao';
  }

  conectar(): Promise<void> {
    return this.limpo(async () => {
      await this.sessaoPrincipal();
    });
  }

  ferramentas(traceparent: string): Promise<Tool[]> {
    return this.limpo(async () => (await this.sessaoPrincipal()).ferramentas(traceparent));
  }

  chamar(nome: string, argumentos: Record<string, unknown>, opcoes: OpcoesDaChamada): Promise<ResultadoDaFerramenta> {
    const { retomar } = opcoes;
    // A stdio child's task ended with the agent whose child it was: there is nothing to follow.
    if (retomar?.local) return Promise.resolve(tarefaSemSeguidor(retomar, this.onde));
    return this.limpo(async () => {
      const relogio = new Relogio(this.prazoMs, opcoes.sinal);
      try {
        const sessaoMcp = retomar?.sessaoMcp;
        const { sessao, soltar } = await (
          sessaoMcp === undefined
            ? this.vagaPara(relogio)
            : this.juntarA({ sessaoMcp, ...(retomar?.versao ? { versao: retomar.versao } : {}) })
        ).catch((erro: unknown) => {
          // No session to follow an existing task on: it may still run (an answer to it was not sent, though: nothing done).
          throw retomar && !opcoes.respostasDaTarefa ? new SeguimentoInterrompido(retomar.referencia.taskId, erro) : erro;
        });
        try {
          return await sessao.chamar(nome, argumentos, opcoes, relogio);
        } finally {
          soltar();
        }
      } finally {
        relogio.parar();
      }
    });
  }

  aoMudarFerramentas(ouvinte: (ferramentas: Tool[]) => void): void {
    this.ouvintes.push(ouvinte);
  }

  fechar(): Promise<void> {
    return this.limpo(async () => {
      this.fechada = true;
      const principal = await this.principal?.catch(() => undefined);
      await Promise.all([...(principal ? [principal] : []), ...this.extras, ...this.juntadas].map((sessao) => sessao.fechar()));
    });
  }

  /** A public method's work: what it throws leaves without the server's URL secrets. */
  private async limpo<T>(trabalho: () => Promise<T>): Promise<T> {
    try {
      return await trabalho();
    } catch (erro) {
      limparErro(erro, this.limpar);
      throw erro;
    }
  }

  private sessaoPrincipal(): Promise<Sessao> {
    if (this.fechada) return Promise.reject(new ChamadaNaoEnviada(`servidor MCP ${this.nome} fechado`));
    if (this.principal) return this.principal;
    const reinicio = this.veredito !== undefined;
    const aberta = this.abrir(true);
    this.principal = aberta;
    aberta.then(
      (sessao) => {
        this.conectada = sessao;
        this.veredito = sessao.veredito;
        // A restarted child (or a new HTTP session) may offer other tools than the one before.
        if (reinicio) this.recarregar();
      },
      () => {
        if (this.principal === aberta) this.principal = undefined;
      },
    );
    return aberta;
  }

  /**
   * The long-lived session probes the era every time it opens: a restarted
   * server may have changed, and the SDK opens a 2026 server's listen stream
   * only after a probe, never from a reused verdict. A call's extra session
   * reuses the verdict and skips the probe.
   */
  private abrir(principal: boolean): Promise<Sessao> {
    const { servidor, log, prazoMs, veredito, fio } = this;
    return Sessao.abrir({
      servidor,
      numero: ++this.abertas,
      log,
      prazoMs,
      ...(fio ? { fio } : {}),
      ...(principal ? { aoMudarFerramentas: () => this.recarregar() } : veredito ? { veredito } : {}),
      aoFechar: (sessao) => this.descartar(sessao),
    });
  }

  private descartar(sessao: Sessao): void {
    this.extras.delete(sessao);
    this.ocupadas.delete(sessao);
    if (sessao !== this.conectada) return;
    this.conectada = undefined;
    this.principal = undefined;
  }

  /**
   * The HTTP session an MCP task lives in (a 2025 server may keep its tasks
   * per session), joined by its id for as long as the task is followed:
   * never pooled, never deleted (whoever opened it may still use it).
   */
  private async juntarA(juntar: Juntar): Promise<Vaga> {
    if (this.fechada) throw new ChamadaNaoEnviada(`servidor MCP ${this.nome} fechado`);
    const { servidor, log, prazoMs, fio } = this;
    const sessao = await Sessao.abrir({
      servidor,
      numero: ++this.abertas,
      log,
      prazoMs,
      ...(fio ? { fio } : {}),
      juntar,
      aoFechar: () => undefined,
    });
    this.juntadas.add(sessao);
    return {
      sessao,
      soltar: () => {
        this.juntadas.delete(sessao);
        void sessao.fechar();
      },
    };
  }

  /** The session a call runs on, and what gives it back. */
  private async vagaPara(relogio: Relogio): Promise<Vaga> {
    const principal = await this.sessaoPrincipal();
    if (principal.era === 'moderna') return { sessao: principal, soltar: () => undefined };
    if (!ehHttp(this.servidor)) {
      const soltar = await this.aVez(relogio);
      try {
        // The child may have exited while this call waited: the turn's session is the current one.
        return { sessao: await this.sessaoPrincipal(), soltar };
      } catch (erro) {
        soltar();
        throw erro;
      }
    }
    const livre = [principal, ...this.extras].find((sessao) => sessao.usavel && !this.ocupadas.has(sessao));
    const sessao = livre ?? (await this.abrir(false));
    if (!livre) this.extras.add(sessao);
    this.ocupadas.add(sessao);
    return { sessao, soltar: () => this.soltar(sessao, principal) };
  }

  private soltar(sessao: Sessao, principal: Sessao): void {
    this.ocupadas.delete(sessao);
    const ociosas = [...this.extras].filter((extra) => !this.ocupadas.has(extra));
    if (sessao !== principal && ociosas.length > OCIOSAS) {
      this.extras.delete(sessao);
      void sessao.fechar();
    }
  }

  /** Waits for this stdio server's turn; resolves with what passes it on. Leaving the line early keeps the order of the rest. */
  private async aVez(relogio: Relogio): Promise<() => void> {
    const anterior = this.vez;
    let passar = () => {};
    const minha = new Promise<void>((resolver) => (passar = resolver));
    this.vez = anterior.then(() => minha);
    try {
      await Promise.race([anterior, abortado(relogio.sinal)]);
    } catch (erro) {
      passar();
      if (erro instanceof SdkError && erro.code === SdkErrorCode.RequestTimeout)
        throw new ChamadaNaoEnviada(
          `servidor MCP ${this.nome}: a vez desta chamada nao chegou em ${String(this.prazoMs)} ms (a anterior espera uma resposta); ela nao foi enviada`,
          erro,
        );
      throw erro;
    }
    return passar;
  }

  /** The server said its tools changed: read them again, past the cache, and tell the listeners. */
  private recarregar(): void {
    this.sessaoPrincipal()
      .then((sessao) => sessao.ferramentas(undefined, true))
      .then(
        (ferramentas) => {
          for (const ouvinte of this.ouvintes) ouvinte(ferramentas);
        },
        (erro: unknown) =>
          this.log(
            `mcp! ${campos({ servidor: this.nome, erro: `tools/list depois da mudanca: ${erro instanceof Error ? erro.message : String(erro)}` })}`,
          ),
      );
  }
}
