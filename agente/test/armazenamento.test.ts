/**
 * The agent's stores: one contract for every pause engine (memory, SQLite,
 * PostgreSQL), the limits and the clock over them, the Task turns, the
 * Task stores, and one ListTasks contract for the Task store in memory and
 * the SDK's DatabaseTaskStore (SQLite, PostgreSQL), and one contract for
 * the webhook stores (memory, and the SDK's DatabasePushNotificationStore).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ListTasksRequest, Task, TaskPushNotificationConfig, TaskState, type ListTasksResponse, type StreamResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { ServerCallContext, type PushNotificationStore, type TaskStore } from '@a2a-js/sdk/server';
import {
  DatabasePushNotificationStore,
  DatabaseTaskStore,
  PUSH_NOTIFICATION_TABLE,
  TASK_TABLE,
  type PushNotificationDatabase,
  type TaskDatabase,
} from '@a2a-js/sdk/server/database';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely';
import pg from 'pg';
import { encerradorDeTarefas, TarefasDaPonte, TarefasEmMemoria } from '../src/armazenamento.js';
import { DONO_ANONIMO, type Dono } from '../src/escopo.js';
import { ExclusaoLocal, ExclusaoNoPostgres, type Exclusao } from '../src/exclusao.js';
import { MENSAGEM_DE_PAUSA_EXPIRADA, PausasLimitadas, mensagemDeExcesso } from '../src/limites.js';
import { PausasEmMemoria, PausasNoBanco, type Pausa, type Pausas, type TabelaDePausas } from '../src/pausas.js';
import type { Pergunta } from '../src/ponte.js';
import { WebhooksEmMemoria, WebhooksNoBanco } from '../src/webhooks.js';
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

type Motor = 'sqlite' | 'postgres';

/** A fresh, empty database of each engine: SQLite in memory, or a new database on the throwaway PostgreSQL cluster; closed after all tests. */
async function bancoNovo<T>(motor: Motor, prefixo: string): Promise<Kysely<T>> {
  const dialect: Dialect =
    motor === 'sqlite'
      ? new SqliteDialect({ database: new Sqlite(':memory:') })
      : new PostgresDialect({
          pool: new pg.Pool({ connectionString: await postgres.novoBanco(`${prefixo}_${randomUUID().replaceAll('-', '')}`) }),
        });
  const db = new Kysely<T>({ dialect });
  abertos.push(db);
  return db;
}

/**
 * A fresh database with one of the SDK's tables as its migration (`a2a-db
 * upgrade`) creates it, byte-order collation included: the CLI cannot reach
 * an in-memory SQLite. `ddl` writes the table given the collated varchar type.
 */
async function comTabelaDoSdk<T>(motor: Motor, prefixo: string, ddl: (texto: (tamanho: number) => string) => string): Promise<Kysely<T>> {
  const db = await bancoNovo<T>(motor, prefixo);
  await sql.raw(ddl((tamanho) => `varchar(${String(tamanho)}) collate ${motor === 'sqlite' ? 'binary' : '"C"'}`)).execute(db);
  return db;
}

async function noBanco(motor: Motor): Promise<Pausas> {
  const db = await bancoNovo<TabelaDePausas>(motor, 'pausas');
  await PausasNoBanco.criarTabela(db, motor === 'postgres');
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
    const donos: Dono[] = [];
    const base = new PausasEmMemoria();
    const pausas = new PausasLimitadas(
      base,
      { maxPausadas, validadeMs: 600_000 },
      (id, msg, dono) => {
        encerradas.push([id, msg]);
        donos.push(dono);
        return Promise.resolve();
      },
      exclusao,
      () => agora,
    );
    return { base, pausas, encerradas, donos, pergunta, avancar: (ms: number) => (agora += ms) };
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

  it('a pause older than its lifetime is swept and its Task ended, as its owner in its tenant', async () => {
    const { pausas, base, pergunta, encerradas, donos, avancar } = montar(10);
    const acme: Dono = { tenant: 'acme', usuario: 'ana' };
    await pausas.abrir('velha', { ...pergunta, dono: acme });
    avancar(300_000);
    await pausas.abrir('nova', pergunta);
    avancar(300_000);
    assert.equal(await pausas.varrer(), 1);
    assert.deepEqual(encerradas, [['velha', MENSAGEM_DE_PAUSA_EXPIRADA]]);
    assert.deepEqual(donos, [acme]);
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
  const anonimo = new ServerCallContext();
  const tarefa = (id: string, state: TaskState) => Task.fromJSON({ id, contextId: `c-${id}`, status: { state: TaskState[state] } });

  it('TarefasEmMemoria: past the cap forgets the least recently updated finished Tasks, never paused ones', async () => {
    const tarefas = new TarefasEmMemoria(3);
    await tarefas.save(tarefa('pausada', TaskState.TASK_STATE_INPUT_REQUIRED), anonimo);
    await tarefas.save(tarefa('f1', TaskState.TASK_STATE_COMPLETED), anonimo);
    await tarefas.save(tarefa('f2', TaskState.TASK_STATE_FAILED), anonimo);
    await tarefas.save(tarefa('f3', TaskState.TASK_STATE_COMPLETED), anonimo);
    assert.equal(tarefas.tamanho, 3);
    assert.equal(await tarefas.load('f1', anonimo), undefined);
    assert.equal((await tarefas.load('pausada', anonimo))?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  it('TarefasEmMemoria: hands out copies, never its own objects', async () => {
    const tarefas = new TarefasEmMemoria(10);
    const original = tarefa('t', TaskState.TASK_STATE_WORKING);
    await tarefas.save(original, anonimo);
    assert.ok(original.status, 'the Task has a status');
    original.status.state = TaskState.TASK_STATE_FAILED;
    const copia = await tarefas.load('t', anonimo);
    assert.ok(copia?.status, 'the store gives the Task back, with its status');
    copia.status.state = TaskState.TASK_STATE_CANCELED;
    assert.equal((await tarefas.load('t', anonimo))?.status?.state, TaskState.TASK_STATE_WORKING);
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

describe('TarefasEmMemoria only', () => {
  const anonimo = new ServerCallContext();
  const finalizada = (id: string) => Task.fromJSON({ id, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } });

  it('tells aoEsquecer each Task the cap drops, in any tenant, and no other', async () => {
    const esquecidas: string[] = [];
    const tarefas = new TarefasEmMemoria(3, (taskId) => esquecidas.push(taskId));
    const outroTenant = new ServerCallContext({ tenant: 'outro' });
    await tarefas.save(Task.fromJSON({ id: 'pausada', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } }), anonimo);
    await tarefas.save(finalizada('f1'), outroTenant);
    await tarefas.save(finalizada('f2'), anonimo);
    await tarefas.save(finalizada('f1'), outroTenant);
    assert.deepEqual(esquecidas, [], 'a Task saved again is not dropped');
    await tarefas.save(finalizada('f3'), anonimo);
    assert.deepEqual(esquecidas, ['f2'], 'f1, saved again, became more recent than f2');
    await tarefas.save(finalizada('f4'), anonimo);
    assert.deepEqual(esquecidas, ['f2', 'f1']);
    assert.equal(await tarefas.load('f1', outroTenant), undefined);
    assert.equal((await tarefas.load('pausada', anonimo))?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.equal(tarefas.tamanho, 3);
  });

  it('refuses a pageToken it did not write, saying what to send instead', async () => {
    await assert.rejects(new TarefasEmMemoria(10).list(ListTasksRequest.fromJSON({ pageToken: 'lixo' }), new ServerCallContext()), {
      message: 'pageToken invalido: use o nextPageToken de uma resposta anterior',
    });
  });
});

async function tarefasNoBanco(motor: Motor): Promise<TaskStore> {
  const db = await comTabelaDoSdk<TaskDatabase>(
    motor,
    'tasks',
    (texto) =>
      `create table ${TASK_TABLE} (tenant ${texto(255)} not null, owner ${texto(255)} not null, id ${texto(36)} not null,
        context_id ${texto(36)} not null, status_last_updated bigint not null, status_state ${texto(255)},
        status text, artifacts text, history text, metadata text, protocol_version varchar(255), primary key (tenant, owner, id))`,
  );
  return new DatabaseTaskStore(db);
}

/** Status times are set, never read from the clock: second `s` is T0 + s seconds. */
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const aos = (segundo: number) => new Date(T0 + segundo * 1000).toISOString();

interface Modelo {
  readonly id: string;
  readonly segundo: number;
  readonly contextId?: string;
  readonly estado?: keyof typeof TaskState;
}

const tarefaEm = ({ id, segundo, contextId = 'ctx-1', estado = 'TASK_STATE_COMPLETED' }: Modelo) =>
  Task.fromJSON({
    id,
    contextId,
    status: { state: estado, timestamp: aos(segundo) },
    artifacts: [{ artifactId: `artefato-${id}`, parts: [{ text: 'reserva res-0001' }] }],
  });

const pedido = (campos: Record<string, unknown> = {}) => ListTasksRequest.fromJSON({ pageSize: 100, ...campos });
const idsDe = (resposta: ListTasksResponse) => resposta.tasks.map((task) => task.id);

/** Every page from the first, chained by nextPageToken until it is ''. */
async function percorrer(tarefas: TaskStore, contexto: ServerCallContext, campos: Record<string, unknown>): Promise<ListTasksResponse[]> {
  const paginas = [await tarefas.list(pedido(campos), contexto)];
  for (let ultima = paginas[0]; ultima?.nextPageToken; ultima = paginas.at(-1)) {
    assert.ok(paginas.length <= 100, 'a walk ends');
    paginas.push(await tarefas.list(pedido({ ...campos, pageToken: ultima.nextPageToken }), contexto));
  }
  return paginas;
}

for (const [nome, criar] of [
  ['TarefasEmMemoria', () => Promise.resolve(new TarefasEmMemoria(1000))],
  ['DatabaseTaskStore (SQLite)', () => tarefasNoBanco('sqlite')],
  ['DatabaseTaskStore (PostgreSQL)', () => tarefasNoBanco('postgres')],
] as const) {
  describe(`Task store contract (ListTasks, scopes, round trip) on ${nome}`, () => {
    const anonimo = new ServerCallContext();
    const guardar = async (tarefas: TaskStore, modelos: readonly Modelo[], contexto = anonimo) => {
      for (const modelo of modelos) await tarefas.save(tarefaEm(modelo), contexto);
    };

    it('newest status first, ties by id descending; totalSize counts every match; the last page ends with an empty token', async () => {
      const tarefas = await criar();
      await guardar(tarefas, [
        { id: 'c', segundo: 3 },
        { id: 'a', segundo: 1 },
        { id: 'd', segundo: 2 },
        { id: 'b', segundo: 3 },
      ]);
      const resposta = await tarefas.list(pedido(), anonimo);
      assert.deepEqual(idsDe(resposta), ['c', 'b', 'd', 'a']);
      assert.equal(resposta.totalSize, 4);
      assert.equal(resposta.pageSize, 100);
      assert.equal(resposta.nextPageToken, '');
      assert.equal(resposta.tasks[0]?.status?.timestamp, aos(3));
    });

    it('pages of pageSize, chained by nextPageToken, list every Task exactly once, in order', async () => {
      const tarefas = await criar();
      const segundos = [5, 1, 4, 4, 2, 6, 3];
      await guardar(
        tarefas,
        segundos.map((segundo, i) => ({ id: `t${i}`, segundo })),
      );
      const ordem = ['t5', 't0', 't3', 't2', 't6', 't4', 't1'];
      for (const pageSize of [1, 2, 3, 7, 100]) {
        const paginas = await percorrer(tarefas, anonimo, { pageSize });
        assert.deepEqual(paginas.flatMap(idsDe), ordem, `pageSize ${pageSize}`);
        assert.equal(paginas.length, Math.ceil(ordem.length / pageSize), `pageSize ${pageSize}: no empty page at the end`);
        for (const pagina of paginas) {
          assert.ok(pagina.tasks.length <= pageSize);
          assert.equal(pagina.pageSize, pageSize);
          assert.equal(pagina.totalSize, ordem.length);
        }
      }
    });

    it('filters by contextId, by state (UNSPECIFIED is no filter) and by status time, counting only the matches', async () => {
      const tarefas = await criar();
      await guardar(tarefas, [
        { id: 'a', segundo: 1, contextId: 'ctx-1' },
        { id: 'b', segundo: 2, contextId: 'ctx-1', estado: 'TASK_STATE_WORKING' },
        { id: 'c', segundo: 3, contextId: 'ctx-2' },
        { id: 'd', segundo: 4, contextId: 'ctx-2', estado: 'TASK_STATE_INPUT_REQUIRED' },
      ]);
      const listar = async (campos: Record<string, unknown>) => {
        const resposta = await tarefas.list(pedido(campos), anonimo);
        return [idsDe(resposta), resposta.totalSize];
      };
      assert.deepEqual(await listar({ contextId: 'ctx-1' }), [['b', 'a'], 2]);
      assert.deepEqual(await listar({ status: 'TASK_STATE_COMPLETED' }), [['c', 'a'], 2]);
      assert.deepEqual(await listar({ status: 'TASK_STATE_UNSPECIFIED' }), [['d', 'c', 'b', 'a'], 4]);
      assert.deepEqual(await listar({ statusTimestampAfter: aos(2) }), [['d', 'c'], 2], 'strictly after');
      assert.deepEqual(await listar({ contextId: 'ctx-2', status: 'TASK_STATE_COMPLETED' }), [['c'], 1]);
      assert.deepEqual(await listar({ contextId: 'ctx-3' }), [[], 0]);
      const paginas = await percorrer(tarefas, anonimo, { contextId: 'ctx-2', pageSize: 1 });
      assert.deepEqual(paginas.map(idsDe), [['d'], ['c']], 'a filter holds across pages');
    });

    it('gives artifacts only when includeArtifacts asks for them', async () => {
      const tarefas = await criar();
      await guardar(tarefas, [
        { id: 'a', segundo: 1 },
        { id: 'b', segundo: 2 },
      ]);
      const sem = await tarefas.list(pedido(), anonimo);
      assert.deepEqual(
        sem.tasks.map((task) => task.artifacts),
        [[], []],
      );
      const com = await tarefas.list(pedido({ includeArtifacts: true }), anonimo);
      assert.deepEqual(
        com.tasks.map((task) => task.artifacts.map((artefato) => artefato.artifactId)),
        [['artefato-b'], ['artefato-a']],
      );
      assert.equal((await tarefas.load('a', anonimo))?.artifacts.length, 1, 'the store itself keeps them');
    });

    /**
     * The rule: a page holds the Tasks strictly after the previous page's
     * last (status time, id), as they stand when it is asked for. A Task
     * updated during a walk moves ahead of it: not listed again if it was,
     * left for the next walk if it was not; every other Task comes exactly
     * once, and the walk goes on when the Task its token names changed.
     */
    it('a walk goes on across updates: the updated Tasks move to the front, the rest come once each', async () => {
      const tarefas = await criar();
      await guardar(
        tarefas,
        ['a', 'b', 'c', 'd', 'e', 'f'].map((id, i) => ({ id, segundo: i + 1 })),
      );
      const primeira = await tarefas.list(pedido({ pageSize: 2 }), anonimo);
      assert.deepEqual(idsDe(primeira), ['f', 'e']);
      // The Task the token names, already listed, and one not listed yet.
      await guardar(tarefas, [
        { id: 'e', segundo: 10, estado: 'TASK_STATE_FAILED' },
        { id: 'b', segundo: 11 },
      ]);
      const segunda = await tarefas.list(pedido({ pageSize: 2, pageToken: primeira.nextPageToken }), anonimo);
      assert.deepEqual(idsDe(segunda), ['d', 'c']);
      assert.equal(segunda.totalSize, 6);
      const terceira = await tarefas.list(pedido({ pageSize: 2, pageToken: segunda.nextPageToken }), anonimo);
      assert.deepEqual(idsDe(terceira), ['a']);
      assert.equal(terceira.nextPageToken, '');
      const novaVolta = await percorrer(tarefas, anonimo, { pageSize: 2 });
      assert.deepEqual(novaVolta.flatMap(idsDe), ['b', 'e', 'f', 'd', 'c', 'a'], 'the next walk starts with them');
    });

    it('refuses a pageToken it did not write as RequestMalformedError, through TarefasDaPonte, never as banco indisponivel', async () => {
      const tarefas = new TarefasDaPonte(await criar());
      await tarefas.save(tarefaEm({ id: 'a', segundo: 1 }), anonimo);
      for (const pageToken of ['lixo', Buffer.from('sem cursor').toString('base64')]) {
        await assert.rejects(tarefas.list(pedido({ pageToken }), anonimo), (erro) => {
          assert.ok(erro instanceof RequestMalformedError, `${pageToken}: ${String(erro)}`);
          return true;
        });
      }
    });

    it('a Task is seen by its own tenant and owner only', async () => {
      const tarefas = await criar();
      const [tenantA, tenantB] = [new ServerCallContext({ tenant: 'a' }), new ServerCallContext({ tenant: 'b' })];
      const anaEmA = new ServerCallContext({ tenant: 'a', user: { isAuthenticated: true, userName: 'ana' } });
      await guardar(tarefas, [{ id: 't1', segundo: 1 }], tenantA);
      await guardar(tarefas, [{ id: 't2', segundo: 2 }], tenantB);
      await guardar(tarefas, [{ id: 't3', segundo: 3 }], anaEmA);
      await guardar(tarefas, [{ id: 'mesma', segundo: 4, estado: 'TASK_STATE_WORKING' }], tenantA);
      await guardar(tarefas, [{ id: 'mesma', segundo: 5, estado: 'TASK_STATE_FAILED' }], tenantB);
      assert.equal(await tarefas.load('t1', tenantB), undefined);
      assert.equal(await tarefas.load('t1', anaEmA), undefined);
      assert.equal(await tarefas.load('t1', anonimo), undefined);
      assert.equal((await tarefas.load('mesma', tenantA))?.status?.state, TaskState.TASK_STATE_WORKING);
      assert.equal((await tarefas.load('mesma', tenantB))?.status?.state, TaskState.TASK_STATE_FAILED);
      const listados = async (contexto: ServerCallContext) => {
        const resposta = await tarefas.list(pedido(), contexto);
        return [idsDe(resposta), resposta.totalSize];
      };
      assert.deepEqual(await listados(tenantA), [['mesma', 't1'], 2]);
      assert.deepEqual(await listados(tenantB), [['mesma', 't2'], 2]);
      assert.deepEqual(await listados(anaEmA), [['t3'], 1]);
      assert.deepEqual(await listados(anonimo), [[], 0]);
    });

    it('gives a Task back exactly as saved, whether or not its history ends with its status message', async () => {
      const tarefas = await criar();
      const mensagem = (messageId: string, text: string) => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
      const comHistorico = (id: string, historico: object[]) =>
        Task.fromJSON({
          id,
          contextId: 'ctx-1',
          status: { state: 'TASK_STATE_INPUT_REQUIRED', message: mensagem('m2', 'alternativas: sala-fusca'), timestamp: aos(1) },
          history: historico,
        });
      const casos = [
        // What the SDK writes: the status message copied, as is, at the end of history.
        comHistorico('repetida', [mensagem('m1', 'reservar'), mensagem('m2', 'alternativas: sala-fusca')]),
        // The same messageId with other words is another message: both are kept.
        comHistorico('mesmo-id', [mensagem('m2', 'outra coisa')]),
        comHistorico('sem-historico', []),
        // Messages that name this Task and its context, another Task, or none.
        comHistorico('com-ids', [
          { ...mensagem('m1', 'reservar'), taskId: 'com-ids', contextId: 'ctx-1' },
          { ...mensagem('m3', 'de outra'), taskId: 'outra', contextId: 'ctx-2' },
          { ...mensagem('m4', 'so o contexto'), contextId: 'ctx-1' },
        ]),
        // A bare id that looks like a composite key, in the anonymous scope and in a tenant's.
        comHistorico('["[\\"\\",\\"unknown\\"]","x"]', [mensagem('m2', 'alternativas: sala-fusca')]),
      ];
      const tenant = new ServerCallContext({ tenant: 'a' });
      for (const task of casos) {
        await tarefas.save(task, anonimo);
        assert.deepEqual(await tarefas.load(task.id, anonimo), task, task.id);
      }
      assert.equal(await tarefas.load('x', anonimo), undefined);
      const parecida = comHistorico('["[\\"\\",\\"unknown\\"]","x"]', []);
      assert.ok(parecida.status);
      parecida.status.state = TaskState.TASK_STATE_WORKING;
      await tarefas.save(parecida, tenant);
      assert.equal((await tarefas.load(parecida.id, tenant))?.status?.state, TaskState.TASK_STATE_WORKING);
      assert.equal((await tarefas.load(parecida.id, anonimo))?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    });
  });
}

describe('encerradorDeTarefas', () => {
  it('ends an open Task FAILED with the message, stores it, and tells its webhooks once; a finished Task is left alone', async () => {
    const anonimo = new ServerCallContext();
    const tarefas = new TarefasEmMemoria(10);
    const avisadas: StreamResponse[] = [];
    const encerrar = encerradorDeTarefas(tarefas, {
      send: (resposta) => {
        avisadas.push(resposta);
        return Promise.resolve();
      },
    });
    await tarefas.save(Task.fromJSON({ id: 'pausada', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } }), anonimo);
    await tarefas.save(Task.fromJSON({ id: 'pronta', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } }), anonimo);
    await encerrar('pausada', MENSAGEM_DE_PAUSA_EXPIRADA, DONO_ANONIMO);
    await encerrar('pronta', MENSAGEM_DE_PAUSA_EXPIRADA, DONO_ANONIMO);
    const lida = await tarefas.load('pausada', anonimo);
    assert.equal(lida?.status?.state, TaskState.TASK_STATE_FAILED);
    assert.deepEqual(
      avisadas.map((resposta) => {
        const carga = resposta.payload;
        assert.ok(carga?.$case === 'statusUpdate');
        const [parte] = carga.value.status?.message?.parts ?? [];
        return [carga.value.taskId, TaskState[carga.value.status?.state ?? 0], parte?.content?.$case === 'text' && parte.content.value];
      }),
      [['pausada', 'TASK_STATE_FAILED', MENSAGEM_DE_PAUSA_EXPIRADA]],
    );
    assert.equal((await tarefas.load('pronta', anonimo))?.status?.state, TaskState.TASK_STATE_COMPLETED);
  });

  it('finds and ends a Task of another tenant as its owner', async () => {
    const tarefas = new TarefasEmMemoria(10);
    const dono: Dono = { tenant: 'acme', usuario: 'unknown' };
    const naAcme = new ServerCallContext({ tenant: 'acme' });
    await tarefas.save(Task.fromJSON({ id: 'pausada', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } }), naAcme);
    await encerradorDeTarefas(tarefas, { send: () => Promise.resolve() })('pausada', MENSAGEM_DE_PAUSA_EXPIRADA, dono);
    assert.equal((await tarefas.load('pausada', naAcme))?.status?.state, TaskState.TASK_STATE_FAILED);
    assert.equal(await tarefas.load('pausada', new ServerCallContext()), undefined, 'still out of sight of other tenants');
  });
});

async function webhooksNoBanco(motor: Motor): Promise<PushNotificationStore> {
  const db = await comTabelaDoSdk<PushNotificationDatabase>(
    motor,
    'push',
    (texto) =>
      `create table ${PUSH_NOTIFICATION_TABLE} (tenant ${texto(255)} not null, owner ${texto(255)} not null,
        task_id ${texto(36)} not null, config_id ${texto(36)} not null, config_data text, protocol_version varchar(255),
        primary key (tenant, owner, task_id, config_id))`,
  );
  return new WebhooksNoBanco(new DatabasePushNotificationStore(db));
}

for (const [nome, criar] of [
  ['WebhooksEmMemoria', () => Promise.resolve(new WebhooksEmMemoria())],
  ['DatabasePushNotificationStore (SQLite)', () => webhooksNoBanco('sqlite')],
  ['DatabasePushNotificationStore (PostgreSQL)', () => webhooksNoBanco('postgres')],
] as const) {
  describe(`Webhook store contract: ${nome}`, () => {
    const anonimo = new ServerCallContext({ requestedVersion: '1.0' });
    const config = (taskId: string, id: string, url = 'http://127.0.0.1/hook') =>
      TaskPushNotificationConfig.fromJSON({ taskId, id, url, token: `tok-${id}`, authentication: { scheme: 'Bearer', credentials: 'c' } });
    const porId = (configs: TaskPushNotificationConfig[]) => configs.map((lida) => [lida.id, lida.url, lida.token]).sort();

    it('keeps each Task its own configs, whole; the same id replaces, another adds', async () => {
      const webhooks = await criar();
      await webhooks.save('t1', anonimo, config('t1', 'a'));
      await webhooks.save('t1', anonimo, config('t1', 'b'));
      await webhooks.save('t1', anonimo, config('t1', 'a', 'http://127.0.0.1/outro'));
      await webhooks.save('t2', anonimo, config('t2', 'a'));
      assert.deepEqual(porId(await webhooks.load('t1', anonimo)), [
        ['a', 'http://127.0.0.1/outro', 'tok-a'],
        ['b', 'http://127.0.0.1/hook', 'tok-b'],
      ]);
      assert.deepEqual(await webhooks.load('t2', anonimo), [config('t2', 'a')]);
      assert.deepEqual(await webhooks.load('t3', anonimo), []);
    });

    it('names a config saved without an id', async () => {
      const webhooks = await criar();
      const semId = config('t1', '');
      await webhooks.save('t1', anonimo, semId);
      assert.ok(semId.id, 'the id chosen is written back');
      assert.deepEqual(porId(await webhooks.load('t1', anonimo)), [[semId.id, 'http://127.0.0.1/hook', 'tok-']]);
    });

    it("deletes one config by id, never another tenant's, and refuses a delete without an id", async () => {
      const webhooks = await criar();
      const acme = new ServerCallContext({ tenant: 'acme', requestedVersion: '1.0' });
      await webhooks.save('t1', anonimo, config('t1', 'a'));
      await webhooks.save('t1', anonimo, config('t1', 'b'));
      await webhooks.save('t1', acme, config('t1', 'a'));
      assert.deepEqual(await webhooks.load('t1', new ServerCallContext({ tenant: 'outra' })), [], 'another tenant sees nothing');
      await webhooks.delete('t1', acme, 'a');
      await webhooks.delete('t1', anonimo, 'b');
      assert.deepEqual(porId(await webhooks.load('t1', anonimo)), [['a', 'http://127.0.0.1/hook', 'tok-a']]);
      assert.deepEqual(await webhooks.load('t1', acme), []);
      await assert.rejects(webhooks.delete('t1', anonimo));
    });
  });
}
