/**
 * What a change to a Task tells its subscribers, as the events they would
 * have seen: a new Task is the Task itself; then each artifact added or
 * replaced, and a new status. A change of history alone (the client's
 * message added before the step) tells nothing. Built as the SDK's types
 * and serialized by the SDK (StreamResponse).
 */
import { Artifact, TaskStatus, type StreamResponse, type Task } from '@a2a-js/sdk';

const igual = <T>(paraJson: (valor: T) => unknown, a: T | undefined, b: T) =>
  a !== undefined && JSON.stringify(paraJson(a)) === JSON.stringify(paraJson(b));

export const mesmoArtefato = (a: Artifact | undefined, b: Artifact) => igual((x: Artifact) => Artifact.toJSON(x), a, b);
export const mesmoEstado = (a: TaskStatus | undefined, b: TaskStatus) => igual((x: TaskStatus) => TaskStatus.toJSON(x), a, b);

/** The whole artifact as stored: a replay replaces it, it never appends to it. */
export const registroDoArtefato = ({ id: taskId, contextId }: Task, artifact: Artifact): StreamResponse => ({
  payload: { $case: 'artifactUpdate', value: { taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined } },
});

export const registroDoEstado = ({ id: taskId, contextId }: Task, status: TaskStatus): StreamResponse => ({
  payload: { $case: 'statusUpdate', value: { taskId, contextId, status, metadata: undefined } },
});

/** Everything that differs from `antes` to `depois`, for a Task replaced whole. */
export function mudancas(antes: Task | undefined, depois: Task): StreamResponse[] {
  if (!antes) return [{ payload: { $case: 'task', value: depois } }];
  const artefatos = depois.artifacts
    .filter(
      (artifact) =>
        !mesmoArtefato(
          antes.artifacts.find((outro) => outro.artifactId === artifact.artifactId),
          artifact,
        ),
    )
    .map((artifact) => registroDoArtefato(depois, artifact));
  const estado = depois.status === undefined || mesmoEstado(antes.status, depois.status) ? [] : [registroDoEstado(depois, depois.status)];
  return [...artefatos, ...estado];
}
