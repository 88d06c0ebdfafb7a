/**
 * The record the log line and span read (http/desfecho.ts): each call of
 * the request handler notes, in its own request's record, the Task it
 * answered, the state reached (a stream's latest event) and the error it
 * threw, without reading any answer back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamResponse, Task } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { comDesfechoRegistrado } from '../src/http/desfecho.js';
import { noRegistro, type Registro } from '../src/http/http.js';

const tarefa = (state: string) => Task.fromJSON({ id: 't1', contextId: 'c1', status: { state } });

/** Two events, each handed out after an await, as a real stream hands them out. */
async function* eventos(): AsyncGenerator<StreamResponse, void, undefined> {
  await Promise.resolve();
  yield StreamResponse.fromJSON({ task: { id: 't2', contextId: 'c2', status: { state: 'TASK_STATE_WORKING' } } });
  await Promise.resolve();
  yield StreamResponse.fromJSON({ statusUpdate: { taskId: 't2', contextId: 'c2', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
}

// Only what each case calls; the decorator forwards every method alike.
const falso = {
  getTask: () => Promise.resolve(tarefa('TASK_STATE_COMPLETED')),
  cancelTask: () => Promise.reject(new TaskNotFoundError('Task not found: x')),
  sendMessageStream: eventos,
} as unknown as A2ARequestHandler;

const handler = comDesfechoRegistrado(falso);
const contexto = new ServerCallContext();

describe('the handler outcome recorded for the log line', () => {
  it('notes the Task answered and its state, in the request that asked', async () => {
    const registro: Registro = {};
    const outro: Registro = {};
    await Promise.all([
      noRegistro(registro, () => handler.getTask({ id: 't1', tenant: '', historyLength: undefined }, contexto)),
      noRegistro(outro, () => Promise.resolve()),
    ]);
    assert.deepEqual(registro.resultado, { task: 't1', estado: 'TASK_STATE_COMPLETED', contextId: 'c1' });
    assert.deepEqual(outro, {}, 'a request running beside it is not touched');
  });

  it('notes the error thrown, and throws it on', async () => {
    const registro: Registro = {};
    await assert.rejects(
      noRegistro(registro, () => handler.cancelTask({ id: 'x', tenant: '', metadata: undefined }, contexto)),
      TaskNotFoundError,
    );
    assert.ok(registro.falha instanceof TaskNotFoundError);
    assert.equal(registro.resultado, undefined);
  });

  it("a stream's latest event wins", async () => {
    const registro: Registro = {};
    const vistos: string[] = [];
    await noRegistro(registro, async () => {
      for await (const evento of handler.sendMessageStream({} as Parameters<A2ARequestHandler['sendMessageStream']>[0], contexto)) {
        vistos.push(evento.payload?.$case ?? '-');
        assert.ok(registro.resultado?.estado, 'noted as each event goes out');
      }
    });
    assert.deepEqual(vistos, ['task', 'statusUpdate']);
    assert.deepEqual(registro.resultado, { task: 't2', estado: 'TASK_STATE_INPUT_REQUIRED', contextId: 'c2' });
  });
});
