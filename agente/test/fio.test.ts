/** FioMcp: the MCP exchanges kept per Task for the console, sealed when read, bounded, forgotten with the Task. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FioMcp, LIMITE_DE_CARACTERES, TROCAS_POR_TASK } from '../src/console/fio.js';

const pedido = (id: number, extra: object = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'reservar_sala', ...extra, _meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } },
  });
const pausa = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', requestState: 'v1.c2VsYWRv.bWFj' } });

it('keeps what a step of a Task asked MCP, sealed when read; nothing outside a step', async () => {
  const fio = new FioMcp();
  fio.anotar({ pedido: pedido(0), http: 200, resposta: '{}', ms: 1 });
  await fio.naTask('t1', () => {
    fio.anotar({ pedido: pedido(1), http: 200, resposta: pausa, ms: 1 });
    fio.anotar({
      pedido: pedido(2, { requestState: 'v1.c2VsYWRv.bWFj' }),
      http: 200,
      resposta: '{"jsonrpc":"2.0","id":2,"result":{}}',
      ms: 1,
    });
    return Promise.resolve();
  });
  const trocas = fio.trocas('t1');
  assert.deepEqual(
    trocas.map(({ metodo, id, traceparent, http }) => [metodo, id, traceparent, http]),
    [
      ['tools/call', '1', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 200],
      ['tools/call', '2', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 200],
    ],
  );
  assert.match(trocas[0]?.resposta ?? '', /"requestState":"<selado: 16 bytes>"/);
  assert.match(trocas[1]?.pedido ?? '', /"requestState":"<selado: 16 bytes>"/);
  assert.ok(!JSON.stringify(trocas).includes('v1.c2VsYWRv'));
  assert.deepEqual(fio.trocas('outra'), []);
  fio.esquecer('t1');
  assert.deepEqual(fio.trocas('t1'), []);
});

it('past LIMITE_DE_CARACTERES the least recently used Tasks go first, never the one being noted; a Task keeps its last TROCAS_POR_TASK', async () => {
  const fio = new FioMcp();
  const grande = 'x'.repeat(LIMITE_DE_CARACTERES / 4);
  for (const taskId of ['a', 'b', 'c', 'd', 'e'])
    await fio.naTask(taskId, () => {
      fio.anotar({ pedido: pedido(1), http: 200, resposta: grande, ms: 1 });
      return Promise.resolve();
    });
  assert.deepEqual(
    ['a', 'b', 'c', 'd', 'e'].map((taskId) => fio.trocas(taskId).length),
    [0, 0, 1, 1, 1],
  );
  assert.match(fio.trocas('e')[0]?.resposta ?? '', /… \(cortado\)$/, 'a body is cut for the panel');

  await fio.naTask('longa', () => {
    for (let id = 1; id <= TROCAS_POR_TASK + 2; id++) fio.anotar({ pedido: pedido(id), http: 200, resposta: '{}', ms: 1 });
    return Promise.resolve();
  });
  const ids = fio.trocas('longa').map((troca) => troca.id);
  assert.equal(ids.length, TROCAS_POR_TASK);
  assert.equal(ids[0], '3');
});

it('keeps each exchange’s duration and, with telemetry on, its trace id; the trace ids count towards LIMITE_DE_CARACTERES', async () => {
  const fio = new FioMcp();
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  await fio.naTask('t1', () => {
    fio.anotar({ pedido: pedido(1), http: 200, resposta: '{}', ms: 37.7, traceId });
    fio.anotar({ pedido: pedido(2), http: 200, resposta: '{}', ms: 2.5 });
    return Promise.resolve();
  });
  assert.deepEqual(
    fio.trocas('t1').map(({ id, ms, traceId }) => ({ id, ms, traceId })),
    [
      { id: '1', ms: 37.7, traceId },
      { id: '2', ms: 2.5, traceId: undefined },
    ],
  );
  assert.ok(!('traceId' in (fio.trocas('t1')[1] ?? {})), 'telemetry off: no trace id at all');

  // Two Tasks' bodies 8 characters short of the limit: 4 more of body fit, those 4 and a trace id's 32 do not.
  const corpo = 'x'.repeat(LIMITE_DE_CARACTERES / 2 - pedido(1).length - 4);
  const cheio = new FioMcp();
  for (const taskId of ['a', 'b'])
    await cheio.naTask(taskId, () => {
      cheio.anotar({ pedido: pedido(1), http: 200, resposta: corpo, ms: 1 });
      return Promise.resolve();
    });
  assert.equal(cheio.trocas('a').length, 1, 'bodies alone stay within the limit');
  await cheio.naTask('b', () => {
    cheio.anotar({ pedido: '{}', http: 200, resposta: '{}', ms: 1, traceId });
    return Promise.resolve();
  });
  assert.deepEqual([cheio.trocas('a').length, cheio.trocas('b').length], [0, 2]);
});
