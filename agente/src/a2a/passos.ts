/**
 * The one clock of a Task's open step. A pause does not live forever: one
 * older than the requestState it holds can no longer be continued, and
 * the number of pauses is capped; in both cases the Task ends FAILED with
 * a message that says what to do. A step being run is claimed, with an
 * owner and an expiry, in the same write as the Task's WORKING state; its
 * outcome, the Task's next state and the step's change are written
 * together too. A claim that expires (its agent died, or the call's
 * outcome never arrived) is replayed by the sweep of any agent (the room
 * booking with the same idempotency key; a generic tool only when it says
 * a replay is safe: see Ponte) until the step gives a definite outcome.
 */
import { TaskState } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { Junto } from '../armazenamento/gravacao.js';
import type { PublicarForaDoPedido } from './publicador.js';
import { noBanco } from '../armazenamento/banco.js';
import { DONO_ANONIMO } from '../armazenamento/escopo.js';
import type { Eventos } from './eventos.js';
import type { Exclusao } from '../armazenamento/exclusao.js';
import type { Pausas, PassoGuardado } from '../armazenamento/pausas.js';
import type { Ponte } from '../ponte/ponte.js';
import { ehPedido, type Desfecho, type Pausa, type Passo, type Pedido, type Pergunta, type Respostas } from '../ponte/tipos.js';

export interface Limites {
  readonly maxPausadas: number;
  readonly validadeMs: number;
  /** How long a claim holds: longer than the MCP call it covers may take (AGENTE_MCP_TIMEOUT_SECONDS). */
  readonly prazoMs: number;
}

export const MENSAGEM_DE_PAUSA_EXPIRADA =
  'A pergunta expirou sem resposta (o estado pendente no servidor MCP vale por tempo limitado): envie o pedido de novo.';
export const mensagemDeExcesso = (maximo: number) =>
  `Pausa descartada: o agente ja guardava ${maximo} Tasks pausadas e esta era a mais antiga. Envie o pedido de novo.`;

/**
 * Another run of the same step holds the Task (the turn was lost with a
 * database connection): nothing is changed. An A2AError, so the client
 * hears this message, not "database unavailable".
 */
const passoOcupado = (taskId: string) =>
  new A2AError(`A Task ${taskId} ja esta sendo respondida por outra chamada: consulte a Task para ver o desfecho.`);

const ESTADO_DO_DESFECHO = {
  pausada: TaskState.TASK_STATE_INPUT_REQUIRED,
  concluida: TaskState.TASK_STATE_COMPLETED,
  cancelada: TaskState.TASK_STATE_CANCELED,
  falhou: TaskState.TASK_STATE_FAILED,
  rejeitada: TaskState.TASK_STATE_REJECTED,
  incerto: TaskState.TASK_STATE_WORKING,
} as const satisfies Record<Desfecho['estado'], TaskState>;

/** The Task state an outcome leaves: a question that sends the user to a URL asks for authorization, not input. */
export const estadoDo = (desfecho: Desfecho): TaskState =>
  desfecho.estado === 'pausada' && desfecho.url ? TaskState.TASK_STATE_AUTH_REQUIRED : ESTADO_DO_DESFECHO[desfecho.estado];

/** The events that tell a step's outcome: an artifact first when there is one, then the Task's new status. */
export function eventosDo(desfecho: Desfecho, eventos: Eventos): AgentExecutionEvent[] {
  const estado = estadoDo(desfecho);
  switch (desfecho.estado) {
    case 'concluida':
      return [eventos.artefato(desfecho.artefato), eventos.estado(estado, desfecho.mensagem)];
    case 'pausada':
      return [eventos.estado(estado, desfecho.mensagem, desfecho.dados)];
    default:
      return [eventos.estado(estado, desfecho.mensagem)];
  }
}

const LOTE_DA_VARREDURA = 500;

export class Passos {
  constructor(
    private readonly base: Pausas,
    private readonly limites: Limites,
    private readonly exclusao: Exclusao,
    /** This agent, as claims name their owner. */
    readonly por: string,
    private readonly agora: () => number = Date.now,
  ) {}

  /** The Task's open step, saying whether a pause outlived its requestState. */
  async ler(taskId: string): Promise<(PassoGuardado & { expirada: boolean }) | undefined> {
    const guardado = await noBanco(this.base.ler(taskId));
    return guardado && { ...guardado, expirada: !ehPedido(guardado.passo) && this.expirou(guardado.passo) };
  }

  /** A new Task's request, dated now. */
  pedido(pedido: Omit<Pedido, 'criadaEm'>): Pedido {
    return { ...pedido, criadaEm: this.agora() };
  }

  /** A new Task's request, claimed by this agent: written with the Task's first state. */
  reivindicarPedido(taskId: string, pedido: Pedido): Junto {
    return (pausas) => pausas.guardar(taskId, pedido, this.reivindicacao());
  }

  /** An answer to the Task's pause, claimed by this agent: written with the Task's WORKING state, or not at all. */
  reivindicarResposta(taskId: string, respostas: Respostas): Junto {
    return async (pausas) => {
      if (!(await pausas.reivindicar(taskId, this.reivindicacao(respostas), this.agora()))) throw passoOcupado(taskId);
    };
  }

  /**
   * What a step's outcome does to the step, written with the Task's new
   * state: a finished Task has none; a new question is kept, dated now; the
   * same question is released as it was; an uncertain call stays claimed,
   * expired at once, for the sweep to replay.
   */
  depoisDo(taskId: string, desfecho: Desfecho, passo: Passo | undefined, respostas?: Respostas): Junto {
    const { pergunta } = desfecho.estado === 'pausada' ? desfecho : {};
    if (pergunta) return this.abrir(taskId, pergunta);
    if (passo && desfecho.estado === 'pausada') return (pausas) => pausas.guardar(taskId, passo);
    if (passo && desfecho.estado === 'incerto')
      return (pausas) => pausas.guardar(taskId, passo, { ...this.reivindicacao(respostas), ate: this.agora() });
    return (pausas) => pausas.apagar(taskId);
  }

  /**
   * depoisDo for a step this agent claimed: written only if the claim is
   * still this agent's. A step slower than its lease may have been claimed
   * and replayed by a sweep meanwhile; that replay's outcome stands.
   */
  depoisDoReivindicado(taskId: string, desfecho: Desfecho, passo: Passo, respostas?: Respostas): Junto {
    const depois = this.depoisDo(taskId, desfecho, passo, respostas);
    return async (pausas) => {
      if ((await pausas.ler(taskId))?.reivindicacao?.por !== this.por) throw passoOcupado(taskId);
      await depois(pausas);
    };
  }

  /** Keeps a new question for the Task, dated now. */
  abrir(taskId: string, pergunta: Pergunta): Junto {
    return (pausas) => pausas.guardar(taskId, { ...pergunta, criadaEm: this.agora() });
  }

  /** Over the cap, the oldest paused Tasks end; on a best-effort basis: failing to end another Task must not fail this one. */
  async conterExcesso(publicar: PublicarForaDoPedido): Promise<void> {
    const excesso = (await noBanco(this.base.total())) - this.limites.maxPausadas;
    if (excesso <= 0) return;
    await this.descartarAs(
      publicar,
      await this.base.ate(Number.MAX_SAFE_INTEGER, excesso),
      mensagemDeExcesso(this.limites.maxPausadas),
    ).catch(() => undefined);
  }

  /**
   * One pass of the sweep: ends every expired pause nobody is answering,
   * and replays every step whose claim ran out. Returns how many Tasks it
   * changed.
   */
  async varrer(
    ponte: Pick<Ponte, 'atender' | 'responder' | 'reapresentar' | 'cancelar'>,
    publicar: PublicarForaDoPedido,
    log: (linha: string) => void = () => undefined,
  ): Promise<number> {
    let mudadas = 0;
    for (;;) {
      const ids = await this.base.ate(this.agora() - this.validade, LOTE_DA_VARREDURA);
      const nesteLote = await this.descartarAs(publicar, ids, MENSAGEM_DE_PAUSA_EXPIRADA, log, (taskId) => ponte.cancelar(taskId));
      mudadas += nesteLote;
      // A batch of Tasks all being answered now would come back unchanged: stop rather than spin.
      if (ids.length < LOTE_DA_VARREDURA || nesteLote === 0) break;
    }
    for (const taskId of await this.base.vencidas(this.agora(), LOTE_DA_VARREDURA)) {
      // One Task's replay failing (the database gone again) leaves it claimed for the next pass, and the others go on.
      const desfecho = await this.exclusao
        .seLivre(taskId, () => this.repetir(taskId, ponte, publicar))
        .catch((erro: unknown) => {
          log(`varredura: a Task ${taskId} fica para a proxima passada (${erro instanceof Error ? erro.message : String(erro)})`);
          return undefined;
        });
      if (desfecho === undefined) continue;
      mudadas += 1;
      log(`varredura: passo da Task ${taskId} repetido, desfecho ${desfecho}`);
    }
    return mudadas;
  }

  /** Sweeps every `intervaloMs`; the timer never keeps the process alive. */
  varrerPeriodicamente(
    intervaloMs: number,
    ponte: Pick<Ponte, 'atender' | 'responder' | 'reapresentar' | 'cancelar'>,
    publicar: PublicarForaDoPedido,
    log: (linha: string) => void,
  ): void {
    let varrendo = false;
    setInterval(() => {
      // A pass that outlasts the interval (a replay waiting on MCP) is not stacked on.
      if (varrendo) return;
      varrendo = true;
      void this.varrer(ponte, publicar, log)
        .catch((erro: unknown) => log(`varredura de passos falhou: ${erro instanceof Error ? erro.message : String(erro)}`))
        .finally(() => (varrendo = false));
    }, intervaloMs).unref();
  }

  /**
   * Replays a step whose claim ran out, in the Task's turn: claimed anew
   * (of two sweeps, one gets it), run again with the same key and answer,
   * and its outcome stored with the step's change. A Task already finished
   * only loses its step.
   */
  private async repetir(
    taskId: string,
    ponte: Pick<Ponte, 'atender' | 'responder' | 'reapresentar' | 'cancelar'>,
    publicar: PublicarForaDoPedido,
  ): Promise<Desfecho['estado'] | undefined> {
    const guardado = await this.base.ler(taskId);
    const anterior = guardado?.reivindicacao;
    if (!guardado || !anterior || anterior.ate >= this.agora()) return undefined;
    const { respostas } = anterior;
    const passo = await this.base.reivindicar(taskId, this.reivindicacao(respostas), this.agora());
    if (!passo) return undefined;
    const desfecho: Desfecho = ehPedido(passo)
      ? await ponte.atender(taskId, passo, { repeticao: true })
      : respostas
        ? await ponte.responder(taskId, passo, respostas, passo.trace, { repeticao: true })
        : // A pause claimed with no answer recorded has nothing to replay: the same question, answerable again.
          ponte.reapresentar(passo);
    const dono = passo.dono ?? DONO_ANONIMO;
    const publicado = await publicar(
      taskId,
      dono,
      (eventos) => eventosDo(desfecho, eventos),
      this.depoisDoReivindicado(taskId, desfecho, passo, respostas),
    );
    if (!publicado) await this.base.apagar(taskId);
    return desfecho.estado;
  }

  /**
   * In the Task's turn, and only if free: a Task being answered right now is
   * not abandoned, and waiting for it here (maybe inside another Task's
   * turn) could wait forever. Only an unclaimed pause is ended, with its
   * removal written with the Task's FAILED state.
   */
  private async descartarAs(
    publicar: PublicarForaDoPedido,
    taskIds: readonly string[],
    mensagem: string,
    log: (linha: string) => void = () => undefined,
    /** A call still waiting here on the ended pause's question is given up (a session's, see ponte/vivas.ts). */
    aoDescartar: (taskId: string) => void = () => undefined,
  ): Promise<number> {
    let descartadas = 0;
    for (const taskId of taskIds) {
      // One Task that cannot be ended now (its row unreadable, the database gone again) does not stop the others.
      const descartada = await this.exclusao
        .seLivre(taskId, async () => {
          const guardado = await this.base.ler(taskId);
          if (!guardado || guardado.reivindicacao) return false;
          const dono = guardado.passo.dono ?? DONO_ANONIMO;
          const fim = (eventos: Eventos) => [eventos.estado(TaskState.TASK_STATE_FAILED, mensagem)];
          if (!(await publicar(taskId, dono, fim, (pausas) => pausas.apagar(taskId)))) await this.base.apagar(taskId);
          aoDescartar(taskId);
          return true;
        })
        .catch((erro: unknown) => {
          log(`varredura: a pausa da Task ${taskId} fica para a proxima passada (${erro instanceof Error ? erro.message : String(erro)})`);
          return false;
        });
      if (descartada) descartadas += 1;
    }
    return descartadas;
  }

  private reivindicacao(respostas?: Respostas) {
    return { por: this.por, ate: this.agora() + this.limites.prazoMs, ...(respostas ? { respostas } : {}) };
  }

  private expirou(pausa: Pausa): boolean {
    return this.agora() - pausa.criadaEm >= this.validade;
  }

  /**
   * How long a pause is answerable: its requestState's lifetime less one
   * claim (at most half of it). An answer whose call goes uncertain must
   * still be replayable before the server stops accepting the state.
   */
  private get validade(): number {
    return this.limites.validadeMs - Math.min(this.limites.prazoMs, this.limites.validadeMs / 2);
  }
}
