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

  /** A status change; its message, when there is one, is the text line first and, for machines, the same facts as data. */
  estado(estado: TaskState, texto?: string, dados?: object): AgentExecutionEvent {
    const parts = [{ text: texto }, ...(dados ? [parteDeDados(dados)] : [])];
    const message =
      texto === undefined
        ? undefined
        : { messageId: randomUUID(), role: 'ROLE_AGENT', parts, taskId: this.taskId, contextId: this.contextId };
    return AgentEvent.statusUpdate(
      TaskStatusUpdateEvent.fromJSON({
        taskId: this.taskId,
        contextId: this.contextId,
        status: { state: taskStateToJSON(estado), message, timestamp: agora() },
      }),
    );
  }

  /** An artifact as JSON text (the part clients of the text contract read) and as the same object in a data part. */
  artefato(nome: string, dados: object): AgentExecutionEvent {
    return AgentEvent.artifactUpdate(
      TaskArtifactUpdateEvent.fromJSON({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: { artifactId: randomUUID(), name: nome, parts: [{ text: JSON.stringify(dados) }, parteDeDados(dados)] },
        lastChunk: true,
      }),
    );
  }
}

const agora = () => new Date().toISOString();

const parteDeDados = (dados: object) => ({ data: dados, mediaType: 'application/json' });
