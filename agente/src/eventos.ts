/** Small builders for the events an executor publishes, written in the A2A JSON form. */
import { randomUUID } from 'node:crypto';
import { Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent, taskStateToJSON } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';

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
        status: { state: taskStateToJSON(TaskState.TASK_STATE_SUBMITTED), timestamp: agora() },
        history: [Message.toJSON(pedido)],
        artifacts: [],
      }),
    );
  }

  estado(estado: TaskState, texto?: string): AgentExecutionEvent {
    const message =
      texto === undefined
        ? undefined
        : { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: texto }], taskId: this.taskId, contextId: this.contextId };
    return AgentEvent.statusUpdate(
      TaskStatusUpdateEvent.fromJSON({
        taskId: this.taskId,
        contextId: this.contextId,
        status: { state: taskStateToJSON(estado), message, timestamp: agora() },
      }),
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
