/**
 * A thin AgentExecutor: the bridge decides, the executor publishes. Every
 * Task goes SUBMITTED -> WORKING -> (INPUT_REQUIRED | COMPLETED | CANCELED | FAILED).
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, STATE_HEADERS_KEY, type AgentExecutor, type ExecutionEventBus, type RequestContext, type ServerCallContext } from '@a2a-js/sdk/server';
import { Eventos, type Estado } from './eventos.js';
import type { Desfecho, Ponte } from './ponte.js';
import { lerTraceparent, novoTrace, type Trace } from './trace.js';

const ESTADO_FINAL: Record<Desfecho['estado'], Estado> = {
  pausada: 'TASK_STATE_INPUT_REQUIRED',
  concluida: 'TASK_STATE_COMPLETED',
  cancelada: 'TASK_STATE_CANCELED',
  falhou: 'TASK_STATE_FAILED',
};

export const NOME_DO_ARTEFATO = 'reserva';

function traceDaRequisicao(contexto: RequestContext): Trace | undefined {
  const headers = contexto.context.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
  return lerTraceparent(headers?.traceparent);
}

function textoDe(contexto: RequestContext): string {
  return contexto.userMessage.parts
    .map((parte) => (parte.content?.$case === 'text' ? parte.content.value : ''))
    .join(' ');
}

/** Reads a Task as the store holds it now. */
export type CarregarTarefa = (taskId: string, contexto: ServerCallContext) => Promise<Task | undefined>;

export class Executor implements AgentExecutor {
  /** contextId of each Task being executed right now, for a cancel that arrives meanwhile. */
  private readonly emExecucao = new Map<string, string>();
  /** The tail of each Task's queue of executions. */
  private readonly filas = new Map<string, Promise<void>>();

  constructor(
    private readonly ponte: Ponte,
    private readonly carregar: CarregarTarefa,
  ) {}

  /** Executions of one Task run one after another, so a second answer to a pause sees what the first did. */
  async execute(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const vez = (this.filas.get(contexto.taskId) ?? Promise.resolve()).then(() => this.executar(contexto, bus));
    const fim = vez.catch(() => undefined);
    this.filas.set(contexto.taskId, fim);
    try {
      await vez;
    } finally {
      if (this.filas.get(contexto.taskId) === fim) this.filas.delete(contexto.taskId);
    }
  }

  private async executar(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.emExecucao.set(contexto.taskId, contexto.contextId);
    try {
      await (contexto.task ? this.continuar(contexto, bus) : this.abrir(contexto, bus));
    } finally {
      this.emExecucao.delete(contexto.taskId);
    }
  }

  private async abrir(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const eventos = new Eventos(contexto.taskId, contexto.contextId);
    bus.publish(eventos.tarefaNova(contexto.userMessage));
    bus.publish(eventos.estado('TASK_STATE_WORKING'));
    this.publicar(eventos, bus, await this.ponte.atender(contexto.taskId, textoDe(contexto), traceDaRequisicao(contexto) ?? novoTrace()));
  }

  private async continuar(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    // The snapshot the SDK handed over may be stale (an earlier answer in the queue): publish what is stored now.
    const atual = (await this.carregar(contexto.taskId, contexto.context)) ?? contexto.task!;
    bus.publish(AgentEvent.task(atual));
    const pausa = atual.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? await this.ponte.reivindicar(contexto.taskId) : undefined;
    if (!pausa) {
      // Already answered (or ended) by someone else: nothing to change.
      bus.finished();
      return;
    }
    const eventos = new Eventos(contexto.taskId, contexto.contextId);
    bus.publish(eventos.estado('TASK_STATE_WORKING'));
    this.publicar(eventos, bus, await this.ponte.retomar(contexto.taskId, pausa, textoDe(contexto), traceDaRequisicao(contexto)));
  }

  private publicar(eventos: Eventos, bus: ExecutionEventBus, desfecho: Desfecho): void {
    if (desfecho.estado === 'concluida') bus.publish(eventos.artefato(NOME_DO_ARTEFATO, JSON.stringify(desfecho.reserva)));
    bus.publish(eventos.estado(ESTADO_FINAL[desfecho.estado], desfecho.mensagem));
    bus.finished();
  }

  /**
   * Only reached while an execution is running: paused Tasks keep no event
   * bus (keepBusAliveStates is empty), so the SDK cancels those itself.
   */
  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    await this.ponte.esquecer(taskId);
    bus.publish(new Eventos(taskId, this.emExecucao.get(taskId) ?? '').estado('TASK_STATE_CANCELED', 'Task cancelada a pedido do cliente.'));
    bus.finished();
  }
}
