/**
 * A thin AgentExecutor: the bridge decides, the executor publishes. Every
 * Task goes SUBMITTED -> WORKING -> (INPUT_REQUIRED | COMPLETED | CANCELED | FAILED).
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, STATE_HEADERS_KEY, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { objeto } from 'compartilhado/log';
import { donoDe } from './escopo.js';
import type { FioMcp } from './fio.js';
import { Eventos } from './eventos.js';
import type { TarefasDaPonte } from './armazenamento.js';
import type { Exclusao } from './exclusao.js';
import type { Entrada } from './intencao.js';
import type { Desfecho, Ponte } from './ponte.js';
import { lerTraceparent, novoTrace, type Trace } from './trace.js';

const ESTADO_FINAL: Record<Desfecho['estado'], TaskState> = {
  pausada: TaskState.TASK_STATE_INPUT_REQUIRED,
  concluida: TaskState.TASK_STATE_COMPLETED,
  cancelada: TaskState.TASK_STATE_CANCELED,
  falhou: TaskState.TASK_STATE_FAILED,
};

function traceDaRequisicao(contexto: RequestContext): Trace | undefined {
  const headers = contexto.context.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
  return lerTraceparent(headers?.traceparent);
}

/** The message's text parts joined, and its first data part. */
function entradaDe(contexto: RequestContext): Entrada {
  const textos: string[] = [];
  let dados: unknown;
  for (const { content } of contexto.userMessage.parts) {
    if (content?.$case === 'text') textos.push(content.value);
    else if (content?.$case === 'data' && dados === undefined) dados = content.value;
  }
  return { texto: textos.join(' '), ...(dados === undefined ? {} : { dados }) };
}

/** The question's schema a paused Task shows in its status message's data part (see Eventos.estado). */
function perguntaDa(task: Task): Readonly<Record<string, unknown>> | undefined {
  for (const { content } of task.status?.message?.parts ?? []) {
    const pergunta: unknown = content?.$case === 'data' ? objeto(content.value)?.pergunta : undefined;
    if (objeto(pergunta)) return objeto(pergunta);
  }
  return undefined;
}

export class Executor implements AgentExecutor {
  /** contextId of each Task being executed right now, for a cancel that arrives meanwhile. */
  private readonly emExecucao = new Map<string, string>();

  constructor(
    private readonly ponte: Ponte,
    private readonly exclusao: Exclusao,
    private readonly tarefas: Pick<TarefasDaPonte, 'gravado'>,
    /** With the console on: each step's MCP exchanges noted under its Task. */
    private readonly fio?: Pick<FioMcp, 'naTask'>,
  ) {}

  async execute(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.emExecucao.set(contexto.taskId, contexto.contextId);
    try {
      // An answer arrives already in its Task's turn (Atendimento took it before
      // the SDK read the Task). A new Task takes its own, in every process: a
      // stream or returnImmediately hands its id out before the step ends, and a
      // cancel or an early answer, here or on another agent, waits until this
      // step's outcome is stored.
      const { task } = contexto;
      const passo = () =>
        task ? this.continuar(contexto, task, bus) : this.exclusao.com(contexto.taskId, () => this.abrir(contexto, bus));
      await (this.fio ? this.fio.naTask(contexto.taskId, passo) : passo());
    } finally {
      this.emExecucao.delete(contexto.taskId);
    }
  }

  private async abrir(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const eventos = new Eventos(contexto.taskId, contexto.contextId);
    // Nothing is asked of MCP before the Task is on record: a booking must never outlive a Task that was never stored.
    const registrada = this.tarefas.gravado(contexto.taskId, TaskState.TASK_STATE_WORKING);
    bus.publish(eventos.tarefaNova(contexto.userMessage));
    bus.publish(eventos.estado(TaskState.TASK_STATE_WORKING));
    await registrada;
    const trace = traceDaRequisicao(contexto) ?? novoTrace();
    const desfecho = await this.ponte.atender(contexto.taskId, entradaDe(contexto), trace, donoDe(contexto.context));
    // The turn lasts until the outcome is stored, not merely published; a failed save is the SDK's to report.
    const gravado = this.tarefas.gravado(contexto.taskId, ESTADO_FINAL[desfecho.estado]).catch(() => undefined);
    this.publicar(eventos, bus, desfecho);
    await gravado;
  }

  private async continuar(contexto: RequestContext, task: Task, bus: ExecutionEventBus): Promise<void> {
    bus.publish(AgentEvent.task(task));
    if (task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      // Not waiting for an answer (a step that never finished): nothing to change.
      bus.finished();
      return;
    }
    const eventos = new Eventos(contexto.taskId, contexto.contextId);
    const trabalhando = () => bus.publish(eventos.estado(TaskState.TASK_STATE_WORKING));
    const desfecho = await this.ponte.retomar(
      contexto.taskId,
      entradaDe(contexto),
      traceDaRequisicao(contexto),
      trabalhando,
      perguntaDa(task),
    );
    this.publicar(eventos, bus, desfecho);
  }

  private publicar(eventos: Eventos, bus: ExecutionEventBus, desfecho: Desfecho): void {
    if (desfecho.estado === 'concluida') bus.publish(eventos.artefato(desfecho.artefato.nome, desfecho.artefato.dados));
    const dados = desfecho.estado === 'pausada' ? desfecho.dados : undefined;
    bus.publish(eventos.estado(ESTADO_FINAL[desfecho.estado], desfecho.mensagem, dados));
    bus.finished();
  }

  /**
   * The SDK calls this only while an execution of the Task is running. Since
   * a cancel waits for the Task's turn, that is never the case here; the
   * method stays because the AgentExecutor contract requires it.
   */
  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(
      new Eventos(taskId, this.emExecucao.get(taskId) ?? '').estado(TaskState.TASK_STATE_CANCELED, 'Task cancelada a pedido do cliente.'),
    );
    bus.finished();
    return Promise.resolve();
  }
}
