/**
 * Where a paused Task keeps what MCP needs to continue. It lives beside the
 * Task, never inside it: nothing here may appear in an A2A response.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { Trace } from './trace.js';

export interface Pausa {
  readonly ferramenta: string;
  readonly argumentos: Record<string, unknown>;
  /** The inputRequests key the server chose; the answer goes back under it. */
  readonly chave: string;
  /** Opaque: stored and echoed byte for byte, never opened. */
  readonly requestState: string;
  readonly alternativas: readonly string[];
  /** The Task's trace, for a continuation that brings no traceparent of its own. */
  readonly trace: Trace;
  /** When the MCP server asked (epoch ms): a pause lives as long as its requestState. */
  readonly criadaEm: number;
}

export interface Pausas {
  guardar(taskId: string, pausa: Pausa): Promise<void>;
  ler(taskId: string): Promise<Pausa | undefined>;
  /** Reads and removes in one step: of two callers racing for one pause, only one gets it. */
  tomar(taskId: string): Promise<Pausa | undefined>;
  apagar(taskId: string): Promise<void>;
  /** Ids of the pauses created at or before `instante`, oldest first, at most `limite`. */
  ate(instante: number, limite: number): Promise<string[]>;
  /** Ids of the oldest pauses, oldest first. */
  maisAntigas(quantas: number): Promise<string[]>;
  total(): Promise<number>;
}

/**
 * In memory. Pauses are saved as they are created, so a Map's insertion
 * order is their age order (a re-saved pause moves to the end).
 */
export class PausasEmMemoria implements Pausas {
  /** The pause as JSON text (half the memory of the object) beside the age the sweep reads. */
  private readonly porTask = new Map<string, { texto: string; criadaEm: number }>();

  async guardar(taskId: string, pausa: Pausa): Promise<void> {
    this.porTask.delete(taskId);
    this.porTask.set(taskId, { texto: JSON.stringify(pausa), criadaEm: pausa.criadaEm });
  }

  async ler(taskId: string): Promise<Pausa | undefined> {
    return this.decodificar(taskId);
  }

  async tomar(taskId: string): Promise<Pausa | undefined> {
    // No await between the read and the delete: that is what makes it one step.
    const pausa = this.decodificar(taskId);
    this.porTask.delete(taskId);
    return pausa;
  }

  private decodificar(taskId: string): Pausa | undefined {
    const guardada = this.porTask.get(taskId);
    return guardada && (JSON.parse(guardada.texto) as Pausa);
  }

  async apagar(taskId: string): Promise<void> {
    this.porTask.delete(taskId);
  }

  async ate(instante: number, limite: number): Promise<string[]> {
    const ids: string[] = [];
    for (const [taskId, pausa] of this.porTask) {
      if (pausa.criadaEm > instante || ids.length >= limite) break;
      ids.push(taskId);
    }
    return ids;
  }

  async maisAntigas(quantas: number): Promise<string[]> {
    const ids: string[] = [];
    for (const taskId of this.porTask.keys()) {
      if (ids.length >= quantas) break;
      ids.push(taskId);
    }
    return ids;
  }

  async total(): Promise<number> {
    return this.porTask.size;
  }
}

export const TERMINAIS: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_REJECTED]);

/**
 * A TaskStore that drops a Task's pause when the Task reaches a terminal
 * state, whoever ended it (the bridge, or the SDK answering CancelTask).
 */
export class TarefasSemPausasOrfas implements TaskStore {
  constructor(
    private readonly tarefas: TaskStore,
    private readonly pausas: Pausas,
  ) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.tarefas.save(task, context);
    if (task.status && TERMINAIS.has(task.status.state)) await this.pausas.apagar(task.id);
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.tarefas.load(taskId, context);
  }

  list(...args: Parameters<TaskStore['list']>): ReturnType<TaskStore['list']> {
    return this.tarefas.list(...args);
  }
}
