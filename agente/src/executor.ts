/**
 * A thin AgentExecutor: the bridge decides, the executor publishes. Every
 * Task goes SUBMITTED -> WORKING -> (INPUT_REQUIRED | COMPLETED | CANCELED | FAILED).
 */
import { STATE_HEADERS_KEY, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
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

export class Executor implements AgentExecutor {
  /** contextId of each Task being executed right now, for a cancel that arrives meanwhile. */
  private readonly emExecucao = new Map<string, string>();

  constructor(private readonly ponte: Ponte) {}

  async execute(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.emExecucao.set(contexto.taskId, contexto.contextId);
    try {
      await this.executar(contexto, bus);
    } finally {
      this.emExecucao.delete(contexto.taskId);
    }
  }

  private async executar(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const eventos = new Eventos(contexto.taskId, contexto.contextId);
    bus.publish(contexto.task ? AgentEvent.task(contexto.task) : eventos.tarefaNova(contexto.userMessage));
    bus.publish(eventos.estado('TASK_STATE_WORKING'));
    const trace = traceDaRequisicao(contexto);
    const desfecho = contexto.task
      ? await this.ponte.retomar(contexto.taskId, textoDe(contexto), trace)
      : await this.ponte.atender(contexto.taskId, textoDe(contexto), trace ?? novoTrace());
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
