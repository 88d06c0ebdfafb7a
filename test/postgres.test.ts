/** TASKS_DB=postgres://...: two agents share Tasks, so any instance can continue a pause. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { enviar, estado, obter, pedido, tarefa } from './apoio/a2a.js';
import { iniciarPostgres, semPostgres } from './apoio/postgres.js';
import { iniciarAgente, iniciarServidorMcp } from './apoio/processos.js';

it('a Task paused on one agent is continued on another behind the same PostgreSQL', { skip: semPostgres() }, async () => {
  const banco = await iniciarPostgres();
  const mcp = await iniciarServidorMcp();
  const [a, b] = [await iniciarAgente(mcp.url, { TASKS_DB: banco.url }), await iniciarAgente(mcp.url, { TASKS_DB: banco.url })];
  try {
    assert.ok(a.linhas.some((l) => l.includes('Tasks em PostgreSQL')));
    assert.equal(estado(await enviar(a.url, pedido('sala-garagem', '2027-04-01', '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
    const pausa = await enviar(a.url, pedido('sala-garagem', '2027-04-01', '14:00', '15:00', 'Biff'));
    assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(estado(await obter(b.url, tarefa(pausa).id)), 'TASK_STATE_INPUT_REQUIRED');
    const fim = await enviar(b.url, 'escolha=sala-mirante', { taskId: tarefa(pausa).id });
    assert.equal(estado(fim), 'TASK_STATE_COMPLETED', fim.texto);
    assert.equal(estado(await obter(a.url, tarefa(pausa).id)), 'TASK_STATE_COMPLETED');
  } finally {
    await a.parar();
    await b.parar();
    await mcp.parar();
    await banco.parar();
  }
});
