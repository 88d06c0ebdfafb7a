/**
 * The agent's stores: one contract for every pause engine (memory, SQLite,
 * PostgreSQL), the limits and the clock over them, the Task turns, and the
 * Task stores.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { TarefasDaPonte, TarefasEmMemoria } from '../src/armazenamento.js';
import { ExclusaoLocal, ExclusaoNoPostgres, type Exclusao } from '../src/exclusao.js';
import { MENSAGEM_DE_PAUSA_EXPIRADA, PausasLimitadas, mensagemDeExcesso } from '../src/limites.js';
import { PausasEmMemoria, PausasNoBanco, type Pausa, type Pausas, type TabelaDePausas } from '../src/pausas.js';
import type { Pergunta } from '../src/ponte.js';
import { iniciarPostgres, type Postgres } from '../../scripts/postgres.js';

/** The question of pausa(0): a pause without its date, as the bridge hands it to PausasLimitadas. */
const pergunta: Pergunta = {
  ferramenta: 'reservar_sala',
  argumentos: { sala: 'sala-garagem' },
  chave: 'escolha_de_sala',
  requestState: 'estado-0',
  alternativas: ['sala-fusca', 'sala-mirante'],
  trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', flags: '01' },
};

const pausa = (criadaEm: number, requestState = `estado-${criadaEm}`): Pausa => ({ ...pergunta, requestState, criadaEm });

/** A promise and the function that resolves it (Promise.withResolvers is newer than Node 20). */
function adiado(): { promessa: Promise<void>; resolver: () => void } {
  let resolver = (): void => {
    throw new Error('unreachable: the Promise executor runs at once');
  };
  const promessa = new Promise<void>((resolve) => (resolver = resolve));
  return { promessa, resolver };
}

let postgres: Postgres;
const abertos: { destroy(): Promise<void> }[] = [];
before(async () => {
  postgres = await iniciarPostgres();
});
after(async () => {
  for (const db of abertos) await db.destroy();
  await postgres.parar();
});

async function noBanco(dialeto: 'sqlite' | 'postgres'): Promise<Pausas> {
  const db =
    dialeto === 'sqlite'
      ? new Kysely<TabelaDePausas>({ dialect: new SqliteDialect({ database: new Sqlite(':memory:') }) })
      : new Kysely<TabelaDePausas>({
          dialect: new PostgresDialect({
            pool: new pg.Pool({ connectionString: await postgres.novoBanco(`pausas_${randomUUID().replaceAll('-', '')}`) }),
          }),
        });
  abertos.push(db);
  await PausasNoBanco.criarTabela(db, dialeto === 'postgres');
  return new PausasNoBanco(db);
}

const tomarTodas = async (pausas: Pausas) => {
  const ordem: string[] = [];
  for (const id of await pausas.ate(Number.MAX_SAFE_INTEGER, 100)) ordem.push(id);
  return ordem;
};

for (const [nome, criar] of [
  ['PausasEmMemoria', () => Promise.resolve(new PausasEmMemoria())],
  ['PausasNoBanco (SQLite)', () => noBanco('sqlite')],
  ['PausasNoBanco (PostgreSQL)', () => noBanco('postgres')],
] as const) {
  describe(nome, () => {
    it('keeps each Task pause apart, byte for byte, until taken or deleted', async () => {
      const pausas: Pausas = await criar();
      await pausas.guardar('a', pausa(1, 'v1.AAA.BBB'));
      await pausas.guardar('b', pausa(2));
      await pausas.guardar('c', pausa(3));
      assert.equal(await pausas.total(), 3);
      assert.deepEqual(await pausas.tomar('a'), pausa(1, 'v1.AAA.BBB'));
      await pausas.apagar('b');
      assert.equal(await pausas.tomar('b'), undefined);
      assert.deepEqual(await tomarTodas(pausas), ['c']);
    });

    it('takes a pause once: of many takers at the same time, one gets it', async () => {
      const pausas = await criar();
      await pausas.guardar('a', pausa(1));
      const tomadas = await Promise.all(Array.from({ length: 8 }, () => pausas.tomar('a')));
      assert.deepEqual(
        tomadas.filter((p) => p !== undefined).map((p) => p.criadaEm),
        [1],
      );
      assert.equal(await pausas.total(), 0);
    });

    it('a second question for the same Task replaces the first and moves to its own age', async () => {
      const pausas = await criar();
      await pausas.guardar('a', pausa(1));
      await pausas.guardar('b', pausa(2));
      await pausas.guardar('a', pausa(5, 'novo'));
      assert.equal(await pausas.total(), 2);
      assert.deepEqual(await tomarTodas(pausas), ['b', 'a']);
      assert.equal((await pausas.tomar('a'))?.requestState, 'novo');
    });

    it('lists the oldest, and those created up to an instant', async () => {
      const pausas = await criar();
      for (const [id, t] of [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ] as const)
        await pausas.guardar(id, pausa(t));
      assert.deepEqual(await pausas.ate(Number.MAX_SAFE_INTEGER, 2), ['a', 'b']);
      assert.deepEqual(await pausas.ate(2, 10), ['a', 'b']);
      assert.deepEqual(await pausas.ate(3, 1), ['a']);
    });

    it('a pause taken and put back keeps its place in expiry and eviction order', async () => {
      const pausas = await criar();
      for (const [id, t] of [
        ['a', 10],
        ['b', 20],
        ['c', 30],
      ] as const)
        await pausas.guardar(id, pausa(t));
      const tomada = await pausas.tomar('b');
      await pausas.guardar('d', pausa(40));
      assert.ok(tomada, 'b was there to take');
      await pausas.guardar('b', tomada);
      assert.deepEqual(await tomarTodas(pausas), ['a', 'b', 'c', 'd']);
      assert.deepEqual(await pausas.ate(25, 10), ['a', 'b'], 'the sweep still finds it by its age');
      const primeira = await pausas.tomar('a');
      assert.ok(primeira, 'a was there to take');
      await pausas.guardar('a', primeira);
      assert.deepEqual(await pausas.ate(Number.MAX_SAFE_INTEGER, 2), ['a', 'b'], 'eviction still picks it first');
    });
  });
}

describe('PausasLimitadas: one clock, a cap and a lifetime', () => {
  const montar = (maxPausadas: number, exclusao: Exclusao = new ExclusaoLocal()) => {
    let agora = 1_000_000;
    const encerradas: [string, string][] = [];
    const base = new PausasEmMemoria();
    const pausas = new PausasLimitadas(
      base,
      { maxPausadas, validadeMs: 600_000 },
      (id, msg) => {
        encerradas.push([id, msg]);
        return Promise.resolve();
      },
      exclusao,
      () => agora,
    );
    return { base, pausas, encerradas, pergunta, avancar: (ms: number) => (agora += ms) };
  };

  it('dates each new question with its clock, and says when a taken pause outlived its requestState', async () => {
    const { pausas, pergunta, avancar } = montar(10);
    await pausas.abrir('t', pergunta);
    assert.equal((await pausas.tomar('t'))?.pausa.criadaEm, 1_000_000);
    await pausas.abrir('t', pergunta);
    avancar(599_999);
    const quase = await pausas.tomar('t');
    assert.equal(quase?.expirada, false);
    await pausas.devolver('t', quase.pausa);
    avancar(1);
    assert.equal((await pausas.tomar('t'))?.expirada, true);
  });

  it('over the cap, the oldest paused Task ends FAILED with a clear message', async () => {
    const { pausas, base, pergunta, encerradas, avancar } = montar(2);
    for (const id of ['a', 'b', 'c']) {
      await pausas.abrir(id, pergunta);
      avancar(1);
    }
    assert.deepEqual(encerradas, [['a', mensagemDeExcesso(2)]]);
    assert.deepEqual(await base.ate(Number.MAX_SAFE_INTEGER, 10), ['b', 'c']);
  });

  it('a pause older than its lifetime is swept and its Task ended', async () => {
    const { pausas, base, pergunta, encerradas, avancar } = montar(10);
    await pausas.abrir('velha', pergunta);
    avancar(300_000);
    await pausas.abrir('nova', pergunta);
    avancar(300_000);
    assert.equal(await pausas.varrer(), 1);
    assert.deepEqual(encerradas, [['velha', MENSAGEM_DE_PAUSA_EXPIRADA]]);
    assert.deepEqual(await base.ate(Number.MAX_SAFE_INTEGER, 10), ['nova']);
  });

  it('a Task being answered right now is neither swept nor evicted, and the sweep does not spin on it', async () => {
    const exclusao = new ExclusaoLocal();
    const { pausas, base, pergunta, encerradas, avancar } = montar(1, exclusao);
    await pausas.abrir('ocupada', pergunta);
    const { promessa: resposta, resolver: soltar } = adiado();
    const respondendo = exclusao.com('ocupada', () => resposta);
    avancar(600_000);
    assert.equal(await pausas.varrer(), 0);
    await pausas.abrir('outra', pergunta);
    assert.deepEqual(encerradas, []);
    assert.deepEqual(await base.ate(Number.MAX_SAFE_INTEGER, 10), ['ocupada', 'outra']);
    soltar();
    await respondendo;
    assert.equal(await pausas.varrer(), 1);
    assert.deepEqual(encerradas, [['ocupada', MENSAGEM_DE_PAUSA_EXPIRADA]]);
  });
});

describe('Task turns', () => {
  /** Two works in one Task's turn never overlap; a second Task is not held up. */
  async function provarExclusao(a: Exclusao, b: Exclusao) {
    const registro: string[] = [];
    const trabalho = (exclusao: Exclusao, nome: string, taskId = 't') =>
      exclusao.com(taskId, async () => {
        registro.push(`${nome}+`);
        await new Promise((resolver) => setImmediate(resolver));
        registro.push(`${nome}-`);
        return nome;
      });
    const resultados = await Promise.all([trabalho(a, '1'), trabalho(b, '2'), trabalho(a, '3'), trabalho(b, '4')]);
    assert.deepEqual(resultados, ['1', '2', '3', '4']);
    for (let i = 0; i < registro.length; i += 2) {
      const [comeco, fim] = [registro[i], registro[i + 1]];
      assert.ok(comeco !== undefined && fim !== undefined, registro.join(' '));
      assert.equal(comeco.slice(0, -1), fim.slice(0, -1), registro.join(' '));
    }
    const { promessa: dentro, resolver: entrou } = adiado();
    const { promessa: liberada, resolver: soltar } = adiado();
    const segura = a.com('t', () => {
      entrou();
      return liberada;
    });
    await dentro;
    assert.equal(await b.seLivre('t', () => Promise.resolve('entrou')), undefined, 'busy elsewhere');
    assert.equal(await b.seLivre('outra', () => Promise.resolve('entrou')), 'entrou');
    soltar();
    await segura;
    assert.equal(await b.seLivre('t', () => Promise.resolve('entrou')), 'entrou');
  }

  it('in one process', async () => {
    const exclusao = new ExclusaoLocal();
    await provarExclusao(exclusao, exclusao);
    await assert.rejects(
      exclusao.com('t', () => Promise.reject(new Error('falhou'))),
      /falhou/,
    );
    assert.equal(await exclusao.com('t', () => Promise.resolve('segue')), 'segue', 'a failed work does not block the next');
  });

  it('across processes sharing PostgreSQL (two pools stand for two agents)', async () => {
    const url = await postgres.novoBanco(`vez_${randomUUID().replaceAll('-', '')}`);
    const [a, b] = [
      new ExclusaoNoPostgres(new pg.Pool({ connectionString: url, max: 3 })),
      new ExclusaoNoPostgres(new pg.Pool({ connectionString: url, max: 3 })),
    ];
    try {
      await provarExclusao(a, b);
    } finally {
      await a.fechar();
      await b.fechar();
    }
  });
});

describe('Task stores', () => {
  const tarefa = (id: string, state: TaskState) => Task.fromJSON({ id, contextId: `c-${id}`, status: { state: TaskState[state] } });

  it('TarefasEmMemoria: past the cap forgets the least recently updated finished Tasks, never paused ones', async () => {
    const tarefas = new TarefasEmMemoria(3);
    await tarefas.save(tarefa('pausada', TaskState.TASK_STATE_INPUT_REQUIRED));
    await tarefas.save(tarefa('f1', TaskState.TASK_STATE_COMPLETED));
    await tarefas.save(tarefa('f2', TaskState.TASK_STATE_FAILED));
    await tarefas.save(tarefa('f3', TaskState.TASK_STATE_COMPLETED));
    assert.equal(tarefas.tamanho, 3);
    assert.equal(await tarefas.load('f1'), undefined);
    assert.equal((await tarefas.load('pausada'))?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  it('TarefasEmMemoria: hands out copies, never its own objects', async () => {
    const tarefas = new TarefasEmMemoria(10);
    const original = tarefa('t', TaskState.TASK_STATE_WORKING);
    await tarefas.save(original);
    assert.ok(original.status, 'the Task has a status');
    original.status.state = TaskState.TASK_STATE_FAILED;
    const copia = await tarefas.load('t');
    assert.ok(copia?.status, 'the store gives the Task back, with its status');
    copia.status.state = TaskState.TASK_STATE_CANCELED;
    assert.equal((await tarefas.load('t'))?.status?.state, TaskState.TASK_STATE_WORKING);
  });

  it('TarefasDaPonte: whoever waits for a state of a Task hears once that state is stored', async () => {
    const tarefas = new TarefasDaPonte(new TarefasEmMemoria(10));
    const contexto = new ServerCallContext();
    let ouviu = false;
    const gravado = tarefas.gravado('t', TaskState.TASK_STATE_COMPLETED).then(() => (ouviu = true));
    await tarefas.save(tarefa('t', TaskState.TASK_STATE_WORKING), contexto);
    await tarefas.save(tarefa('outra', TaskState.TASK_STATE_COMPLETED), contexto);
    await new Promise((resolver) => setImmediate(resolver));
    assert.equal(ouviu, false, 'another state, or another Task, is not what was waited for');
    await tarefas.save(tarefa('t', TaskState.TASK_STATE_COMPLETED), contexto);
    await gravado;
    assert.equal((await tarefas.load('t', contexto))?.status?.state, TaskState.TASK_STATE_COMPLETED);
  });

  it('TarefasDaPonte: a store that fails is reported as "banco indisponivel", to the caller and to whoever waits', async () => {
    const quebrada = new TarefasEmMemoria(10);
    quebrada.save = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    const tarefas = new TarefasDaPonte(quebrada);
    const gravado = tarefas.gravado('t', TaskState.TASK_STATE_WORKING);
    await assert.rejects(tarefas.save(tarefa('t', TaskState.TASK_STATE_SUBMITTED), new ServerCallContext()), {
      name: 'BancoIndisponivel',
      message: 'Banco de Tasks indisponivel: tente de novo em instantes',
    });
    await assert.rejects(gravado, { name: 'BancoIndisponivel' });
  });
});
