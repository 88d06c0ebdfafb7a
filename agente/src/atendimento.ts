/**
 * The SDK's request handler, with three things of ours around it:
 *  - every change to an existing Task is made in that Task's turn (see
 *    exclusao.ts). The turn is taken before the SDK reads the Task, so of
 *    many answers racing for one pause the first is served and each of the
 *    others then meets the Task as the first left it: a finished Task
 *    refuses the message before it enters history;
 *  - a stream is run to its end whatever its reader does: a client gone
 *    mid-stream loses nothing, the Task finishes and is stored;
 *  - a push-notification webhook is accepted only on an allowed host.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import {
  DefaultRequestHandler,
  type AgentExecutor,
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { TaskState } from '@a2a-js/sdk';
import { destinoRecusado } from './avisos.js';
import type { Exclusao } from './exclusao.js';
import type { PausasDaPonte } from './ponte.js';

/**
 * Names a client chooses, cut to what the database columns hold (the SDK's
 * schema): past them a write would fail as a database error, not as the
 * client's mistake. A Task's webhooks are few.
 */
const LIMITES = { contextId: 36, tenant: 255, idDoWebhook: 36, webhooksPorTask: 10 };

export interface Push {
  readonly configs: PushNotificationStore;
  readonly avisos: PushNotificationSender;
  /** The hosts a webhook may point at (AGENTE_PUSH_HOSTS). */
  readonly hosts: ReadonlySet<string>;
}

export class Atendimento extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tarefas: TaskStore,
    executor: AgentExecutor,
    private readonly exclusao: Exclusao,
    private readonly pausas: Pick<PausasDaPonte, 'apagar'>,
    private readonly push: Push,
  ) {
    // A paused Task needs no live event bus: its continuation is a new SendMessage.
    super(card, tarefas, executor, undefined, push.configs, push.avisos, undefined, undefined, { keepBusAliveStates: [] });
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    this.conferirPedido(params, context);
    const taskId = params.message?.taskId;
    if (!taskId) return await super.sendMessage(params, context);
    // Answered when the step is done (returnImmediately is not honoured here):
    // the turn must last until every event of the step is stored.
    const atePronto = { ...params, configuration: params.configuration && { ...params.configuration, returnImmediately: false } };
    return await this.exclusao.com(taskId, () => super.sendMessage(atePronto, context));
  }

  override sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    this.conferirPedido(params, context);
    const taskId = params.message?.taskId;
    const repassar = async (emitir: (evento: StreamResponse) => void) => {
      for await (const evento of super.sendMessageStream(params, context)) emitir(evento);
    };
    return ateOFim((emitir) => (taskId ? this.exclusao.com(taskId, () => repassar(emitir)) : repassar(emitir)));
  }

  override cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.exclusao.com(params.id, async () => {
      const antes = await this.tarefas.load(params.id, context);
      const task = await super.cancelTask(params, context);
      // The SDK cancels a paused Task by itself, without the executor and without
      // telling the webhooks: its pause goes, and they are told, here.
      await this.pausas.apagar(params.id);
      // Delivery is the sender's business: the cancel is answered without waiting for it.
      if (antes?.status?.state !== TaskState.TASK_STATE_CANCELED) this.avisarEstado(task, context);
      return task;
    });
  }

  override async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    conferirWebhook(params, this.push.hosts);
    const existentes = await this.push.configs.load(params.taskId, context);
    if (existentes.length >= LIMITES.webhooksPorTask && !existentes.some((config) => config.id === params.id)) {
      throw new RequestMalformedError(
        `A Task ${params.taskId} ja tem ${String(LIMITES.webhooksPorTask)} webhooks: apague um antes de criar outro.`,
      );
    }
    return super.createTaskPushNotificationConfig(params, context);
  }

  private conferirPedido(params: SendMessageRequest, context: ServerCallContext): void {
    const contextId = params.message?.contextId ?? '';
    if (contextId.length > LIMITES.contextId) {
      throw new RequestMalformedError(`contextId com mais de ${String(LIMITES.contextId)} caracteres.`);
    }
    if ((context.tenant ?? '').length > LIMITES.tenant) {
      throw new RequestMalformedError(`tenant com mais de ${String(LIMITES.tenant)} caracteres.`);
    }
    conferirWebhook(params.configuration?.taskPushNotificationConfig, this.push.hosts);
  }

  /** A status change made outside an execution, told to the Task's webhooks like the SDK tells the others. */
  private avisarEstado(task: Task, context: ServerCallContext): void {
    if (!task.status) return;
    const statusUpdate = { taskId: task.id, contextId: task.contextId, status: task.status, metadata: {} };
    void this.push.avisos.send({ payload: { $case: 'statusUpdate', value: statusUpdate } }, context, task);
  }
}

function conferirWebhook(config: TaskPushNotificationConfig | undefined, hosts: ReadonlySet<string>): void {
  if (!config) return;
  const recusa = destinoRecusado(config.url, hosts);
  if (recusa) throw new RequestMalformedError(`Webhook recusado: ${recusa}`);
  if (config.id.length > LIMITES.idDoWebhook) {
    throw new RequestMalformedError(`O id do webhook tem mais de ${String(LIMITES.idDoWebhook)} caracteres.`);
  }
}

/**
 * Runs `produzir` to its end whatever the reader does: what it emits is
 * handed to whoever iterates the result, and a reader that stops early
 * stops only its own reading. Its failure reaches the reader, if any.
 */
function ateOFim<T>(produzir: (emitir: (valor: T) => void) => Promise<void>): AsyncGenerator<T, void, undefined> {
  const fila: T[] = [];
  let fim: { erro?: unknown } | undefined;
  let acordar = (): void => undefined;
  void produzir((valor) => {
    fila.push(valor);
    acordar();
  })
    .then(
      () => (fim = {}),
      (erro: unknown) => (fim = { erro }),
    )
    .finally(() => acordar());
  return (async function* () {
    for (;;) {
      if (fila.length > 0) {
        yield* fila.splice(0);
        continue;
      }
      if (fim) {
        if ('erro' in fim) throw fim.erro;
        return;
      }
      await new Promise<void>((resolver) => (acordar = resolver));
    }
  })();
}
