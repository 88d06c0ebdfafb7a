/**
 * What a save changed in a Task, as the events a subscriber would have
 * seen: a new Task is the Task itself; then each artifact added or
 * replaced, and a new status. A save that changes only history (the
 * client's message added before the step) tells subscribers nothing.
 * Built as the SDK's types and serialized by the SDK (StreamResponse).
 */
import { Artifact, TaskStatus, type StreamResponse, type Task } from '@a2a-js/sdk';

const igual = <T>(paraJson: (valor: T) => unknown, a: T | undefined, b: T | undefined) =>
  a !== undefined && b !== undefined && JSON.stringify(paraJson(a)) === JSON.stringify(paraJson(b));

export function mudancas(antes: Task | undefined, depois: Task): StreamResponse[] {
  if (!antes) return [{ payload: { $case: 'task', value: depois } }];
  const { id: taskId, contextId } = depois;
  const artefatos = depois.artifacts
    .filter(
      (artifact) =>
        !igual(
          (a: Artifact) => Artifact.toJSON(a),
          antes.artifacts.find((outro) => outro.artifactId === artifact.artifactId),
          artifact,
        ),
    )
    .map((artifact): StreamResponse => ({
      // The whole artifact as stored: a replay replaces it, it never appends to it.
      payload: { $case: 'artifactUpdate', value: { taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined } },
    }));
  const estado: StreamResponse[] =
    depois.status === undefined || igual((status: TaskStatus) => TaskStatus.toJSON(status), antes.status, depois.status)
      ? []
      : [{ payload: { $case: 'statusUpdate', value: { taskId, contextId, status: depois.status, metadata: undefined } } }];
  return [...artefatos, ...estado];
}
