/** The soak's invariants, in a short run: concurrency must not break the bridge or the agenda. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { carga } from '../scripts/carga.js';
import { ambosOsProcessos } from './apoio/processos.js';

const processos = ambosOsProcessos();

it('many clients at once: no error, every Task terminal, own artifacts, no overlapping bookings', async () => {
  const relatorio = await carga({ agentes: [processos.agente.url], segundos: 3, clientes: 12 });
  assert.deepEqual(relatorio.erros, []);
  assert.deepEqual(relatorio.violacoes, []);
  assert.ok(relatorio.reservas.length > 0, 'some booking was made, so there were artifacts to check');
  assert.deepEqual(
    Object.keys(relatorio.tarefas).filter((e) => !['TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED'].includes(e)),
    [],
  );
});
