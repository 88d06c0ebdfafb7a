/** Small builders for the events an executor publishes, written in the A2A JSON form. */
import { randomUUID } from 'node:crypto';
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';

export type Estado =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_FAILED';

export class Eventos {
  constructor(
    readonly taskId: string,
    readonly contextId: string,
  ) {}

  tarefaNova(pedido: Message): AgentExecutionEvent {
    return AgentEvent.task(
      Task.fromJSON({
        id: this.taskId,
        contextId: this.contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: agora() },
        history: [Message.toJSON(pedido)],
        artifacts: [],
      }),
    );
  }

  estado(state: Estado, texto?: string): AgentExecutionEvent {
    const message =
      texto === undefined
        ? undefined
        : { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: texto }], taskId: this.taskId, contextId: this.contextId };
    return AgentEvent.statusUpdate(
      TaskStatusUpdateEvent.fromJSON({ taskId: this.taskId, contextId: this.contextId, status: { state, message, timestamp: agora() } }),
    );
  }

  artefato(nome: string, texto: string): AgentExecutionEvent {
    return AgentEvent.artifactUpdate(
      TaskArtifactUpdateEvent.fromJSON({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: { artifactId: randomUUID(), name: nome, parts: [{ text: texto }] },
        lastChunk: true,
      }),
    );
  }
}

const agora = () => new Date().toISOString();
