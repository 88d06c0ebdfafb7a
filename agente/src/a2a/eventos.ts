/** Small builders for the events an executor publishes, written in the A2A JSON form. */
import { createHash, randomUUID } from 'node:crypto';
import { Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent, taskStateToJSON } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { Artefato, Parte } from '../ponte/tipos.js';

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
    const message = texto === undefined ? undefined : this.mensagem([{ text: texto }, ...(dados ? [parteDeDados(dados)] : [])]);
    return AgentEvent.statusUpdate(
      TaskStatusUpdateEvent.fromJSON({
        taskId: this.taskId,
        contextId: this.contextId,
        status: { state: taskStateToJSON(estado), message, timestamp: agora() },
      }),
    );
  }

  /**
   * An artifact: its parts, then its `dados`, if any, as JSON text (the
   * part clients of the room's text contract read) and as the same object
   * in a data part. Its id is derived from the Task and the name: a
   * replayed step replaces the artifact instead of adding a twin.
   */
  artefato({ nome, partes = [], dados }: Artefato): AgentExecutionEvent {
    return AgentEvent.artifactUpdate(
      TaskArtifactUpdateEvent.fromJSON({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: {
          artifactId: idDoArtefato(this.taskId, nome),
          name: nome,
          parts: [...partes.map(parteA2A), ...(dados ? [{ text: JSON.stringify(dados) }, parteDeDados(dados)] : [])],
        },
        lastChunk: true,
      }),
    );
  }

  /** An agent message of this Task, in the JSON form. */
  private mensagem(parts: object[]) {
    return { messageId: randomUUID(), role: 'ROLE_AGENT', parts, taskId: this.taskId, contextId: this.contextId };
  }
}

const agora = () => new Date().toISOString();

/** A UUID the same for the same Task and name: version 8 (RFC 9562, built from a hash), with the variant bits set. */
function idDoArtefato(taskId: string, nome: string): string {
  const hex = createHash('sha256').update(`${taskId}\0${nome}`).digest('hex');
  const variante = (8 | (parseInt(hex.charAt(16), 16) & 3)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variante}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const parteDeDados = (dados: object) => ({ data: dados, mediaType: 'application/json' });

/**
 * A text, a file or data, as A2A writes a part: bytes as `raw` (base64 in
 * JSON), a URI as `url`. A part holds one content: a text or bytes that
 * came with a URI (an embedded MCP resource) keep it in the part's metadata.
 */
function parteA2A(parte: Parte): object {
  if ('dados' in parte) return parteDeDados(parte.dados);
  if ('texto' in parte) {
    const { texto, mediaType, uri } = parte;
    return { text: texto, ...(mediaType ? { mediaType } : {}), ...(uri ? { metadata: { uri } } : {}) };
  }
  const { bytes, uri, mediaType, nome } = parte.arquivo;
  return {
    ...(bytes === undefined ? { url: uri } : { raw: bytes, ...(uri ? { metadata: { uri } } : {}) }),
    ...(mediaType ? { mediaType } : {}),
    ...(nome ? { filename: nome } : {}),
  };
}
