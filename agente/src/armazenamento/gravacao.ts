/**
 * How a Task's states reach its store: each with what goes to the Task's
 * open step and what it adds to the Task's event log in the same
 * transaction, told to whoever waits for it and to subscribers, and a
 * terminal state the SDK writes by itself refused while a step is open.
 */
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { A2AError } from '@a2a-js/sdk/errors';
import type { Task, TaskState, ListTasksRequest, ListTasksResponse } from '@a2a-js/sdk';
import type { Armazenamento } from './armazenamento.js';
import { BancoIndisponivel, noBanco } from './banco.js';
import type { Campainha } from './campainha.js';
import { escopoDe } from './escopo.js';
import { mudancas } from './mudancas.js';
import type { Pausas } from './pausas.js';
import { terminal } from './tarefas.js';

/** What is written to a Task's open step together with one of its states. */
export type Junto = (pausas: Pausas) => Promise<void>;

/**
 * A terminal state nobody of ours asked for (the SDK ends a Task FAILED by
 * itself when an execution throws or a later save fails) is refused while
 * the Task has an open step: a claimed step may have booked, and the sweep
 * gives it its real outcome; a pause is still answerable. The Task then
 * keeps the state it had, and the request that failed says so.
 */
const semPassoAberto =
  (taskId: string): Junto =>
  async (pausas) => {
    if (await pausas.ler(taskId))
      throw new A2AError(
        `A Task ${taskId} tem um passo aberto (uma pergunta ou uma chamada que pode ter reservado): ela nao termina por uma falha deste pedido.`,
      );
  };

/** Waits for one state of one Task to be stored, and what goes with it. */
interface Espera {
  readonly estado: TaskState;
  readonly junto: Junto | undefined;
  readonly terminar: (erro?: Error) => void;
}

/** Where a request's saves left each Task's event log, kept in the request's own state (see posicaoNoDiario). */
const POSICOES = 'a2a-ponte:posicoes-no-diario';

/**
 * The log sequence of the Task's last event as this request's saves left
 * it: the id of the event the SDK streams right after a save. Undefined
 * when this request saved nothing of the Task.
 */
export function posicaoNoDiario(context: ServerCallContext, taskId: string): number | undefined {
  const posicoes = context.state.get(POSICOES) as Map<string, number> | undefined;
  return posicoes?.get(taskId);
}

/**
 * The Task store as the SDK sees it, telling who waits that a state is
 * stored (or could not be): the SDK stores events some time after the
 * executor publishes them, and the bridge must know a Task is on record
 * before it asks MCP for anything, and before its turn ends. A change to
 * the Task's open step is written with the state it goes with, in one
 * transaction: a Task's state and its step never disagree, whenever a
 * process dies. Each save appends what it changed to the Task's event log
 * in that transaction too, and rings the subscribers once committed.
 */
export class TarefasDaPonte implements TaskStore {
  private readonly esperas = new Map<string, Espera[]>();

  constructor(
    private readonly tarefas: TaskStore,
    private readonly juntos: Armazenamento['juntos'],
    private readonly campainha?: Pick<Campainha, 'tocar'>,
  ) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const esperas = this.esperas.get(task.id) ?? [];
    const junto =
      esperas.find((espera) => espera.estado === task.status?.state && espera.junto)?.junto ??
      (terminal(task) ? semPassoAberto(task.id) : undefined);
    let posicao = 0;
    try {
      await noBanco(
        this.juntos(async (tarefas, pausas, diario) => {
          await diario.ocupar(task.id);
          // The step's change first: in memory, a change refused leaves the Task as it was, as a rollback does in SQL.
          await junto?.(pausas);
          const antes = await tarefas.load(task.id, context);
          await tarefas.save(task, context);
          posicao = await diario.anotar(task.id, escopoDe(context), mudancas(antes, task));
        }),
      );
    } catch (erro) {
      for (const espera of esperas) espera.terminar(erro as Error);
      throw erro;
    }
    const posicoes = (context.state.get(POSICOES) as Map<string, number> | undefined) ?? new Map<string, number>();
    context.state.set(POSICOES, posicoes.set(task.id, posicao));
    this.campainha?.tocar(task.id);
    for (const espera of esperas) if (espera.estado === task.status?.state) espera.terminar();
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return noBanco(this.tarefas.load(taskId, context));
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return noBanco(this.tarefas.list(params, context));
  }

  /**
   * Resolves once `estado` is stored for the Task, with `junto` written in
   * the same transaction; rejects if a save of the Task fails, or if
   * nothing is stored within `prazoMs` (a lost event must not hold anyone
   * forever).
   */
  gravado(taskId: string, estado: TaskState, junto?: Junto, prazoMs = 10_000): Promise<void> {
    return new Promise((resolver, rejeitar) => {
      const relogio = setTimeout(() => espera.terminar(new BancoIndisponivel(new Error(`estado nao gravado em ${prazoMs} ms`))), prazoMs);
      relogio.unref();
      const espera: Espera = {
        estado,
        junto,
        terminar: (erro) => {
          clearTimeout(relogio);
          const restantes = (this.esperas.get(taskId) ?? []).filter((outra) => outra !== espera);
          if (restantes.length > 0) this.esperas.set(taskId, restantes);
          else this.esperas.delete(taskId);
          if (erro) rejeitar(erro);
          else resolver();
        },
      };
      this.esperas.set(taskId, [...(this.esperas.get(taskId) ?? []), espera]);
    });
  }
}
