/** Pause stores (memory and SQL share one contract), their limits, and the bounded Task store. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Task, TaskState } from '@a2a-js/sdk';
import Sqlite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { PausasNoBanco, TarefasEmMemoria } from '../src/armazenamento.js';
import { MENSAGEM_DE_PAUSA_EXPIRADA, PausasLimitadas, mensagemDeExcesso } from '../src/limites.js';
import { PausasEmMemoria, type Pausa, type Pausas } from '../src/pausas.js';

const pausa = (criadaEm: number, requestState = `estado-${criadaEm}`): Pausa => ({
  ferramenta: 'reservar_sala',
  argumentos: { sala: 'sala-garagem' },
  chave: 'escolha_de_sala',
  requestState,
  alternativas: ['sala-fusca', 'sala-mirante'],
  trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', flags: '01' },
  criadaEm,
});

async function emSqlite(): Promise<Pausas> {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Sqlite(':memory:') }) });
  await PausasNoBanco.criarTabela(db);
  return new PausasNoBanco(db);
}

for (const [nome, criar] of [
  ['PausasEmMemoria', async () => new PausasEmMemoria()],
  ['PausasNoBanco (SQLite)', emSqlite],
] as const) {
  describe(nome, () => {
    it('keeps each Task pause apart, byte for byte, and forgets it on delete', async () => {
      const pausas: Pausas = await criar();
      await pausas.guardar('a', pausa(1, 'v1.AAA.BBB'));
      await pausas.guardar('b', pausa(2));
      assert.deepEqual(await pausas.ler('a'), pausa(1, 'v1.AAA.BBB'));
      assert.equal(await pausas.total(), 2);
      await pausas.apagar('a');
      assert.equal(await pausas.ler('a'), undefined);
      assert.equal(await pausas.total(), 1);
    });
    it('takes a pause once: the second taker gets nothing', async () => {
      const pausas = await criar();
      await pausas.guardar('a', pausa(1));
      const [uma, outra] = await Promise.all([pausas.tomar('a'), pausas.tomar('a')]);
      assert.deepEqual([uma?.criadaEm, outra], [1, undefined]);
      assert.equal(await pausas.total(), 0);
    });
    it('replaces a pause saved again for the same Task (a second question)', async () => {
      const pausas = await criar();
      await pausas.guardar('a', pausa(1));
      await pausas.guardar('a', pausa(5, 'novo'));
      assert.equal((await pausas.ler('a'))?.requestState, 'novo');
      assert.equal(await pausas.total(), 1);
    });
    it('lists the oldest, and those created up to an instant', async () => {
      const pausas = await criar();
      for (const [id, t] of [['a', 1], ['b', 2], ['c', 3]] as const) await pausas.guardar(id, pausa(t));
      assert.deepEqual(await pausas.maisAntigas(2), ['a', 'b']);
      assert.deepEqual(await pausas.ate(2, 10), ['a', 'b']);
      assert.deepEqual(await pausas.ate(3, 1), ['a']);
    });
  });
}

describe('PausasLimitadas', () => {
  const montar = (maxPausadas: number) => {
    let agora = 1_000_000;
    const encerradas: [string, string][] = [];
    const pausas = new PausasLimitadas(new PausasEmMemoria(), { maxPausadas, validadeMs: 600_000 }, async (id, msg) => void encerradas.push([id, msg]), () => agora);
    return { pausas, encerradas, avancar: (ms: number) => (agora += ms), agora: () => agora };
  };

  it('over the cap, the oldest paused Task ends FAILED with a clear message', async () => {
    const { pausas, encerradas, agora, avancar } = montar(2);
    for (const id of ['a', 'b', 'c']) {
      await pausas.guardar(id, pausa(agora()));
      avancar(1);
    }
    assert.deepEqual(encerradas, [['a', mensagemDeExcesso(2)]]);
    assert.equal(await pausas.ler('a'), undefined);
    assert.equal(await pausas.total(), 2);
  });

  it('a pause older than its lifetime is swept and its Task ended', async () => {
    const { pausas, encerradas, agora, avancar } = montar(10);
    await pausas.guardar('velha', pausa(agora()));
    avancar(300_000);
    await pausas.guardar('nova', pausa(agora()));
    avancar(300_000);
    assert.equal(pausas.expirada((await pausas.ler('velha'))!), true);
    assert.equal(pausas.expirada((await pausas.ler('nova'))!), false);
    assert.equal(await pausas.varrer(), 1);
    assert.deepEqual(encerradas, [['velha', MENSAGEM_DE_PAUSA_EXPIRADA]]);
    assert.equal(await pausas.total(), 1);
  });
});

describe('TarefasEmMemoria', () => {
  const tarefa = (id: string, state: TaskState) => Task.fromJSON({ id, contextId: `c-${id}`, status: { state: TaskState[state] } });

  it('past the cap forgets the least recently updated finished Tasks, never paused ones', async () => {
    const tarefas = new TarefasEmMemoria(3);
    await tarefas.save(tarefa('pausada', TaskState.TASK_STATE_INPUT_REQUIRED));
    await tarefas.save(tarefa('f1', TaskState.TASK_STATE_COMPLETED));
    await tarefas.save(tarefa('f2', TaskState.TASK_STATE_FAILED));
    await tarefas.save(tarefa('f3', TaskState.TASK_STATE_COMPLETED));
    assert.equal(tarefas.tamanho, 3);
    assert.equal(await tarefas.load('f1'), undefined);
    assert.equal((await tarefas.load('pausada'))?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  it('hands out copies, never its own objects', async () => {
    const tarefas = new TarefasEmMemoria(10);
    const original = tarefa('t', TaskState.TASK_STATE_WORKING);
    await tarefas.save(original);
    original.status!.state = TaskState.TASK_STATE_FAILED;
    (await tarefas.load('t'))!.status!.state = TaskState.TASK_STATE_CANCELED;
    assert.equal((await tarefas.load('t'))?.status?.state, TaskState.TASK_STATE_WORKING);
  });
});
