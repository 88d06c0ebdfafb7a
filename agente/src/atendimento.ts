/**
 * The SDK's request handler, with every change to an existing Task made in
 * that Task's turn (see exclusao.ts). The turn is taken before the SDK
 * reads the Task, so of many answers racing for one pause the first is
 * served and each of the others then meets the Task as the first left it:
 * a finished Task refuses the message (-32004) before it enters history.
 */
import type { AgentCard, CancelTaskRequest, Message, SendMessageRequest, Task } from '@a2a-js/sdk';
import { DefaultRequestHandler, type AgentExecutor, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { Exclusao } from './exclusao.js';
import type { PausasDaPonte } from './ponte.js';

export class Atendimento extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    tarefas: TaskStore,
    executor: AgentExecutor,
    private readonly exclusao: Exclusao,
    private readonly pausas: Pick<PausasDaPonte, 'apagar'>,
  ) {
    // A paused Task needs no live event bus: its continuation is a new SendMessage.
    super(card, tarefas, executor, undefined, undefined, undefined, undefined, undefined, { keepBusAliveStates: [] });
  }

  override sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const taskId = params.message?.taskId;
    if (!taskId) return super.sendMessage(params, context);
    // Answered when the step is done (returnImmediately is not honoured here):
    // the turn must last until every event of the step is stored.
    const atePronto = { ...params, configuration: params.configuration && { ...params.configuration, returnImmediately: false } };
    return this.exclusao.com(taskId, () => super.sendMessage(atePronto, context));
  }

  override cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.exclusao.com(params.id, async () => {
      const task = await super.cancelTask(params, context);
      // The SDK cancels a paused Task by itself, without the executor: its pause goes too.
      await this.pausas.apagar(params.id);
      return task;
    });
  }
}
