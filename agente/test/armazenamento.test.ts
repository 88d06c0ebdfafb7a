/**
 * The agent's stores: one contract for every pause engine (memory, SQLite,
 * PostgreSQL), the lifecycle's transitions and sweep over them (the clock,
 * the cap, the lifetime, leases and their replay, the event log written
 * with the Task, two agents on PostgreSQL), the Task turns, the Task
 * stores, and one ListTasks contract for the Task store in memory and the
 * SDK's DatabaseTaskStore (SQLite, PostgreSQL), one contract for the
 * webhook stores (memory, and the SDK's DatabasePushNotificationStore),
 * and the migrations of the pauses table.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ListTasksRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  type ListTasksResponse,
  type TaskStatus,
} from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
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
import { abrirArmazenamento, type Armazenamento } from '../src/armazenamento/armazenamento.js';
import { somenteLeitura, TarefasEmMemoria } from '../src/armazenamento/tarefas.js';
import { BancoIndisponivel } from '../src/armazenamento/banco.js';
import { migrarTabelasDaPonte } from '../src/armazenamento/migracoes.js';
import { ESCOPO_ANONIMO, escopoDe } from '../src/armazenamento/escopo.js';
import { ExclusaoLocal, ExclusaoNoPostgres, type Exclusao } from '../src/armazenamento/exclusao.js';
import { Ciclo, MENSAGEM_DE_PAUSA_EXPIRADA, type Transicao } from '../src/ciclo/ciclo.js';
import { mensagemDeExcesso, Varredura } from '../src/ciclo/varredura.js';
import { PausasEmMemoria, PausasNoBanco, type Pausas, type TabelaDePausas } from '../src/armazenamento/pausas.js';
import { DiarioEmMemoria, DiarioNoBanco, MAXIMO_POR_TASK, type Diario, type TabelaDeEventos } from '../src/armazenamento/diario.js';
import type { Ponte } from '../src/ponte/ponte.js';
import { ehSeguimento, type Desfecho, type Pausa, type Pedido, type Pergunta, type Seguimento } from '../src/ponte/tipos.js';
import { WebhooksEmMemoria, WebhooksNoBanco } from '../src/push/webhooks.js';
import { LIMITES_DO_WEBHOOK } from '../src/push/cadastro.js';
import { aberta, adiado, ateOEstado, INICIO_DO_RELOGIO, mensagemAo, naMemoria, pausada, perguntaDeSala } from './apoio.js';
import { iniciarPostgres, type Postgres } from '../../scripts/postgres.js';

/** The question of pausa(0): a pause without its date, as the bridge hands it to PausasLimitadas. */
const pergunta: Pergunta = perguntaDeSala('estado-0');

const pausa = (criadaEm: number, requestState = `estado-${criadaEm}`): Pausa => ({ ...pergunta, requestState, criadaEm });

/** The SDK's Task table as its migration makes it, given the collated varchar type. */
const tabelaDeTarefas = (texto: (tamanho: number) => string) =>
  `create table ${TASK_TABLE} (tenant ${texto(255)} not null, owner ${texto(255)} not null, id ${texto(36)} not null,
    context_id ${texto(36)} not null, status_last_updated bigint not null, status_state ${texto(255)},
    status text, artifacts text, history text, metadata text, protocol_version varchar(255), primary key (tenant, owner, id))`;

let postgres: Postgres;
const abertos: { destroy(): Promise<void> }[] = [];
const pasta = mkdtempSync(join(tmpdir(), 'ponte-armazenamento-'));
before(async () => {
  postgres = await iniciarPostgres();
});
after(async () => {
  // Every store closed before the cluster stops, even if one fails to: an open pool would hear the stop as an error.
  const fechados = await Promise.allSettled(abertos.map((db) => db.destroy()));
  await postgres.parar();
  rmSync(pasta, { recursive: true, force: true });
  for (const fechado of fechados) if (fechado.status === 'rejected') throw fechado.reason;
});

/** A pool of the test's own: its idle clients lost when the cluster stops after the tests are no failure of any test. */
function poolDeTeste(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => undefined);
  return pool;
}

type Motor = 'sqlite' | 'postgres';

/** A fresh, empty database of each engine: SQLite in memory, or a new database on the throwaway PostgreSQL cluster; closed after all tests. */
async function bancoNovo<T>(motor: Motor, prefixo: string): Promise<Kysely<T>> {
  const dialect: Dialect =
    motor === 'sqlite'
      ? new SqliteDialect({ database: new Sqlite(':memory:') })
      : new PostgresDialect({
          pool: poolDeTeste({ connectionString: await postgres.novoBanco(`${prefixo}_${randomUUID().replaceAll('-', '')}`) }),
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
  await migrarTabelasDaPonte(db, motor);
  return new PausasNoBanco(db);
}

const emOrdem = (pausas: Pausas) => pausas.ate(Number.MAX_SAFE_INTEGER, 100);

/** Pauses a, b, c... created at the given instants, in that order. */
async function guardarNaOrdem(pausas: Pausas, ...idades: number[]): Promise<void> {
  for (const [i, idade] of idades.entries()) await pausas.guardar(String.fromCharCode(97 + i), pausa(idade));
}

/** A step whose call became a 2025 MCP task on an HTTP session. */
const seguimento = (criadaEm: number): Seguimento => ({
  skill: 'everything.simulate-research-query',
  servidor: 'everything',
  ferramenta: 'simulate-research-query',
  argumentos: { topic: 'marés' },
  tarefaMcp: {
    // A task id as ext-tasks types it (a branded string): read from the wire, as any agent reads it back.
    referencia: {
      endpointId: 'everything',
      generation: 'v1',
      taskId: 'tarefa-1',
      originalOperation: 'tools/call',
    } as Seguimento['tarefaMcp']['referencia'],
    sessaoMcp: 'sessao-1',
    versao: '2025-11-25',
    capacidades: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  },
  trace: pergunta.trace,
  dono: { tenant: '', usuario: 'unknown' },
  criadaEm,
});

const pedidoNovo = (criadaEm: number): Pedido => ({
  pedido: { texto: 'reservar sala=sala-garagem', dados: { skill: 'reservar-sala' } },
  trace: pergunta.trace,
  dono: { tenant: 'acme', usuario: 'ana' },
  criadaEm,
});

for (const [nome, criar] of [
  ['PausasEmMemoria', () => Promise.resolve(new PausasEmMemoria())],
  ['PausasNoBanco (SQLite)', () => noBanco('sqlite')],
  ['PausasNoBanco (PostgreSQL)', () => noBanco('postgres')],
] as const) {
  describe(nome, () => {
    it("keeps each Task's step apart, byte for byte, until deleted", async () => {
      const pausas: Pausas = await criar();
      await pausas.guardar('a', pausa(1, 'v1.AAA.BBB'));
      await pausas.guardar('b', pausa(2));
      await pausas.guardar('c', pausa(3));
      assert.equal(await pausas.total(), 3);
      assert.deepEqual(await pausas.ler('a'), { passo: pausa(1, 'v1.AAA.BBB') });
      await pausas.apagar('b');
      assert.equal(await pausas.ler('b'), undefined);
      assert.deepEqual(await emOrdem(pausas), ['a', 'c']);
    });

    it("keeps a new Task's request whole, claimed, with the answer a claim records", async () => {
      const pausas = await criar();
      const reivindicacao = {
        por: 'agente-1',
        ate: 500,
        respostas: { escolha_de_sala: { action: 'accept' as const, content: { sala: 'sala-fusca' } } },
      };
      await pausas.guardar('n', pedidoNovo(7), reivindicacao);
      assert.deepEqual(await pausas.ler('n'), { passo: pedidoNovo(7), reivindicacao });
      assert.deepEqual(await emOrdem(pausas), [], 'a claimed step is no pause waiting for an answer');
      assert.equal(await pausas.total(), 0);
    });

    it("keeps a 2026 task's question with the task it waits on, as a pause like any other", async () => {
      const pausas = await criar();
      // A task's question has no requestState: the task is what continues.
      const { skill, ferramenta, argumentos, perguntas, rodada, trace, dono } = pausa(9);
      const daTarefa: Pausa = {
        skill,
        ferramenta,
        argumentos,
        perguntas,
        rodada,
        trace,
        ...(dono ? { dono } : {}),
        tarefaMcp: { referencia: { ...seguimento(9).tarefaMcp.referencia, generation: 'v2' } as Seguimento['tarefaMcp']['referencia'] },
        criadaEm: 9,
      };
      await pausas.guardar('q', daTarefa);
      assert.deepEqual(await pausas.ler('q'), { passo: daTarefa });
      assert.deepEqual(await emOrdem(pausas), ['q']);
    });

    it('keeps the MCP task a step follows whole, claimed, apart from the pauses', async () => {
      const pausas = await criar();
      const reivindicacao = { por: 'agente-1', ate: 900 };
      await pausas.guardar('s', seguimento(8), reivindicacao);
      assert.deepEqual(await pausas.ler('s'), { passo: seguimento(8), reivindicacao });
      assert.deepEqual(await emOrdem(pausas), []);
      assert.deepEqual(await pausas.vencidas(901, 10), ['s']);
    });

    it('claims a step once: of many claimers at the same time, one gets it, and it leaves the pauses waiting', async () => {
      const pausas = await criar();
      await pausas.guardar('a', pausa(1));
      const reivindicados = await Promise.all(
        Array.from({ length: 8 }, (_, i) => pausas.reivindicar('a', { por: `p${String(i)}`, ate: 100 }, 50)),
      );
      assert.deepEqual(
        reivindicados.filter((passo) => passo !== undefined),
        [pausa(1)],
      );
      assert.equal(await pausas.total(), 0);
      assert.deepEqual(await emOrdem(pausas), []);
      assert.equal((await pausas.ler('a'))?.reivindicacao?.ate, 100);
      assert.equal(await pausas.reivindicar('sem-passo', { por: 'p', ate: 100 }, 50), undefined);
    });

    it('a claim is a lease: held until it expires, then listed for the sweep and claimable again, by one', async () => {
      const pausas = await criar();
      await pausas.guardar('a', pausa(1), { por: 'morto', ate: 100 });
      await pausas.guardar('b', pausa(2), { por: 'vivo', ate: 300 });
      assert.equal(await pausas.reivindicar('a', { por: 'outro', ate: 200 }, 100), undefined, 'still held at its expiry');
      assert.deepEqual(await pausas.vencidas(100, 10), []);
      assert.deepEqual(await pausas.vencidas(101, 10), ['a']);
      const tentativas = await Promise.all([1, 2, 3].map((i) => pausas.reivindicar('a', { por: `s${String(i)}`, ate: 400 }, 101)));
      assert.equal(tentativas.filter((passo) => passo !== undefined).length, 1);
      assert.deepEqual(await pausas.vencidas(101, 10), []);
    });

    it('released, a pause goes back to its place in expiry and eviction order', async () => {
      const pausas = await criar();
      await guardarNaOrdem(pausas, 10, 20, 30);
      const reivindicada = await pausas.reivindicar('b', { por: 'p', ate: 1 }, 0);
      assert.ok(reivindicada, 'b was there to claim');
      await pausas.guardar('d', pausa(40));
      await pausas.guardar('b', reivindicada);
      assert.deepEqual(await emOrdem(pausas), ['a', 'b', 'c', 'd']);
      assert.deepEqual(await pausas.ate(25, 10), ['a', 'b'], 'the sweep still finds it by its age');
    });

    it('a second question for the same Task replaces the first and moves to its own age', async () => {
      const pausas = await criar();
      await pausas.guardar('a', pausa(1));
      await pausas.guardar('b', pausa(2));
      await pausas.guardar('a', pausa(5, 'novo'), { por: 'p', ate: 9 });
      await pausas.guardar('a', pausa(5, 'novo'));
      assert.equal(await pausas.total(), 2);
      assert.deepEqual(await emOrdem(pausas), ['b', 'a']);
      assert.deepEqual(await pausas.ler('a'), { passo: pausa(5, 'novo') });
    });

    it('lists the oldest, and those created up to an instant', async () => {
      const pausas = await criar();
      await guardarNaOrdem(pausas, 1, 2, 3);
      assert.deepEqual(await pausas.ate(Number.MAX_SAFE_INTEGER, 2), ['a', 'b']);
      assert.deepEqual(await pausas.ate(2, 10), ['a', 'b']);
      assert.deepEqual(await pausas.ate(3, 1), ['a']);
    });
  });
}

/** A room pause as agents wrote it before the bridge was generic: one question, its key and its options. */
const PAUSA_ANTIGA = {
  ferramenta: 'reservar_sala',
  argumentos: { sala: 'sala-garagem' },
  chave: 'escolha_de_sala',
  requestState: 'estado-antigo',
  alternativas: ['sala-fusca', 'sala-mirante'],
  trace: pergunta.trace,
  criadaEm: 7,
};
/** The same pause as it reads today: the room question it was, first round. */
const PAUSA_ANTIGA_LIDA: Pausa = { ...pergunta, requestState: 'estado-antigo', criadaEm: 7 };
/** A claim as agents wrote it before answers were keyed: the one answer. */
const REIVINDICACAO_ANTIGA = { por: 'antigo', ate: 900, resposta: { action: 'accept', content: { sala: 'sala-fusca' } } };
describe('steps written by older agents', () => {
  it('PausasEmMemoria: a pause of the old shape reads as the question it was', async () => {
    const pausas = new PausasEmMemoria();
    // Not a Passo by today's type: the shape an older agent wrote.
    await pausas.guardar('velha', PAUSA_ANTIGA as unknown as Pausa);
    assert.deepEqual(await pausas.ler('velha'), { passo: PAUSA_ANTIGA_LIDA });
  });

  for (const motor of ['sqlite', 'postgres'] as const) {
    /** A table with an old pause, unclaimed, and the same pause claimed with an old claim. */
    const comLinhasAntigas = async () => {
      const db = await bancoNovo<TabelaDePausas>(motor, 'antigas');
      await migrarTabelasDaPonte(db, motor);
      await db
        .insertInto('a2a_pausas')
        .values([
          { task_id: 'livre', criada_em: 7, dados: JSON.stringify(PAUSA_ANTIGA), reivindicada_ate: null, reivindicacao: null },
          {
            task_id: 'reivindicada',
            criada_em: 7,
            dados: JSON.stringify({ ...PAUSA_ANTIGA, dono: { tenant: 'acme', usuario: 'ana' } }),
            reivindicada_ate: 900,
            reivindicacao: JSON.stringify(REIVINDICACAO_ANTIGA),
          },
        ])
        .execute();
      return new PausasNoBanco(db);
    };
    const lida: Pausa = { ...PAUSA_ANTIGA_LIDA, dono: { tenant: 'acme', usuario: 'ana' } };

    it(`PausasNoBanco (${motor}): an old pause row reads as the new shape, listed and claimed as any pause`, async () => {
      const pausas = await comLinhasAntigas();
      assert.deepEqual(await pausas.ler('livre'), { passo: PAUSA_ANTIGA_LIDA });
      assert.deepEqual((await pausas.ler('reivindicada'))?.passo, lida);
      assert.deepEqual(await pausas.ate(Number.MAX_SAFE_INTEGER, 10), ['livre']);
      assert.deepEqual(await pausas.vencidas(901, 10), ['reivindicada']);
      assert.deepEqual(await pausas.reivindicar('reivindicada', { por: 'novo', ate: 2_000 }, 901), lida);
    });

    it(`PausasNoBanco (${motor}): an old claim's one answer reads keyed by the pause's question`, async () => {
      const pausas = await comLinhasAntigas();
      assert.deepEqual(await pausas.ler('reivindicada'), {
        passo: lida,
        reivindicacao: { por: 'antigo', ate: 900, respostas: { escolha_de_sala: REIVINDICACAO_ANTIGA.resposta } },
      });
    });
  }
});

/** The lifecycle's limits in these tests: 600 s of requestState, claims of 60 s. */
const LIMITES = { maxPausadas: 10, validadeMs: 600_000, prazoMs: 60_000 };

type PonteDaVarredura = Pick<Ponte, 'atender' | 'responder' | 'reapresentar' | 'cancelar' | 'seguir' | 'largar'>;

/** A bridge for a sweep with nothing to replay: any call fails the test. */
const SEM_REPETICAO: PonteDaVarredura = {
  atender: () => Promise.reject(new Error('nada a repetir')),
  responder: () => Promise.reject(new Error('nada a repetir')),
  reapresentar: () => assert.fail('nada a reapresentar'),
  cancelar: () => false,
  seguir: () => Promise.reject(new Error('nada a seguir')),
  largar: () => undefined,
};

/** A status as its state and the text of its message: `STATE: text`. */
function textoDoEstado(status: TaskStatus | undefined): string {
  const [parte] = status?.message?.parts ?? [];
  return `${TaskState[status?.state ?? 0]}: ${parte?.content?.$case === 'text' ? parte.content.value : ''}`;
}

/** A stored event: a status as textoDoEstado shows it, anything else as what it is. */
const comTexto = ({ payload }: StreamResponse): string =>
  payload?.$case === 'statusUpdate' ? textoDoEstado(payload.value.status) : (payload?.$case ?? '?');

/** The events a Task's log recorded after position `depoisDe`, as comTexto shows them. */
const registradosApos = async (diario: Diario, taskId: string, depoisDe: number, escopo = ESCOPO_ANONIMO) =>
  (await diario.ler(taskId, escopo, depoisDe, 100)).map(({ evento }) => comTexto(evento));

/** Where each Task's log stands now. */
const posicoes = async (diario: Diario, ...taskIds: string[]) =>
  Object.fromEntries(await Promise.all(taskIds.map(async (id) => [id, (await diario.extremos(id, ESCOPO_ANONIMO))?.ultima ?? 0] as const)));

/** A stored Task's status, as textoDoEstado shows it. */
async function estadoGuardado(tarefas: TaskStore, taskId: string, contexto = new ServerCallContext()): Promise<string | undefined> {
  const task = await tarefas.load(taskId, contexto);
  return task && textoDoEstado(task.status);
}

const falhada = (mensagem: string) => `TASK_STATE_FAILED: ${mensagem}`;
const PERGUNTA_DE_NOVO = 'TASK_STATE_INPUT_REQUIRED: alternativas: sala-fusca, sala-mirante';

describe('Ciclo and Varredura: one clock, a cap, a lifetime, leases and their replay', () => {
  it('dates each new question with its clock, and says when a pause is too old to answer: its requestState less one claim', async () => {
    const { ciclo, pausas, avancar } = naMemoria(LIMITES);
    await pausada(ciclo, 't');
    assert.equal((await pausas.ler('t'))?.passo.criadaEm, INICIO_DO_RELOGIO);
    // 600 s of requestState, less the 60 s an uncertain answer may need to be replayed.
    assert.equal(ciclo.validade, 540_000);
    avancar(539_999);
    assert.equal(ciclo.expirou(INICIO_DO_RELOGIO), false);
    avancar(1);
    assert.equal(ciclo.expirou(INICIO_DO_RELOGIO), true);
  });

  it('over the cap, the oldest paused Task ends FAILED with a clear message, its pause gone with it', async () => {
    const { ciclo, varredura, pausas, tarefas, avancar } = naMemoria({ ...LIMITES, maxPausadas: 2 });
    for (const [i, id] of ['a', 'b', 'c'].entries()) {
      const { transicao } = await pausada(ciclo, id);
      assert.equal(transicao.pausadas, i + 1, 'the paused Tasks counted in the same transaction');
      await varredura.conterExcesso(transicao.pausadas ?? 0);
      avancar(1);
    }
    assert.equal(await estadoGuardado(tarefas, 'a'), falhada(mensagemDeExcesso(2)));
    assert.equal(await estadoGuardado(tarefas, 'b'), PERGUNTA_DE_NOVO);
    assert.deepEqual(await emOrdem(pausas), ['b', 'c']);
  });

  it('a pause older than its lifetime is swept and its Task ended, as its owner in its tenant; its question given up', async () => {
    const { ciclo, varredura, pausas, tarefas, diario, avancar } = naMemoria(LIMITES);
    const anaNaAcme = new ServerCallContext({ tenant: 'acme', user: { isAuthenticated: true, userName: 'ana' } });
    await pausada(ciclo, 'velha', anaNaAcme);
    avancar(300_000);
    await pausada(ciclo, 'nova');
    avancar(300_000);
    const cancelados: string[] = [];
    assert.equal(await varredura.varrer({ ...SEM_REPETICAO, cancelar: (taskId) => cancelados.push(taskId) > 0 }), 1);
    assert.equal(await estadoGuardado(tarefas, 'velha', anaNaAcme), falhada(MENSAGEM_DE_PAUSA_EXPIRADA));
    assert.deepEqual(await registradosApos(diario, 'velha', 3, escopoDe(anaNaAcme)), [falhada(MENSAGEM_DE_PAUSA_EXPIRADA)]);
    assert.equal(await tarefas.load('velha', new ServerCallContext({ tenant: 'acme' })), undefined, 'still out of sight of others');
    assert.deepEqual(cancelados, ['velha'], "a session's call still waiting on it is given up");
    assert.deepEqual(await emOrdem(pausas), ['nova']);
  });

  it('a Task being answered right now is neither swept nor evicted, and the sweep does not spin on it', async () => {
    const { ciclo, varredura, pausas, tarefas, exclusao, avancar } = naMemoria({ ...LIMITES, maxPausadas: 1 });
    await pausada(ciclo, 'ocupada');
    const { soltar, segura } = await segurarVez(exclusao, 'ocupada');
    avancar(600_000);
    assert.equal(await varredura.varrer(SEM_REPETICAO), 0);
    const { transicao } = await pausada(ciclo, 'outra');
    await varredura.conterExcesso(transicao.pausadas ?? 0);
    assert.equal(await estadoGuardado(tarefas, 'ocupada'), PERGUNTA_DE_NOVO);
    assert.deepEqual(await emOrdem(pausas), ['ocupada', 'outra']);
    soltar();
    await segura;
    assert.equal(await varredura.varrer(SEM_REPETICAO), 1);
    assert.equal(await estadoGuardado(tarefas, 'ocupada'), falhada(MENSAGEM_DE_PAUSA_EXPIRADA));
  });

  it("a claimed step's outcome is written only while the claim is still this agent's", async () => {
    const { ciclo, pausas, tarefas } = naMemoria(LIMITES);
    const falhou: Desfecho = { estado: 'falhou', mensagem: 'x' };
    const meu = await aberta(ciclo, 'meu');
    await ciclo.concluir(meu.alvo, falhou, meu.pedido);
    assert.equal(await pausas.ler('meu'), undefined);
    assert.equal(await estadoGuardado(tarefas, 'meu'), falhada('x'));
    // Slower than its lease, its step replayed by another agent's sweep: that outcome stands.
    const tomado = await aberta(ciclo, 'tomado');
    await pausas.guardar('tomado', tomado.pedido, { por: 'outro', ate: Number.MAX_SAFE_INTEGER });
    await assert.rejects(ciclo.concluir(tomado.alvo, falhou, tomado.pedido), /ja esta sendo respondida por outra chamada/);
    assert.equal((await pausas.ler('tomado'))?.reivindicacao?.por, 'outro');
    assert.equal((await tarefas.load('tomado', new ServerCallContext()))?.status?.state, TaskState.TASK_STATE_WORKING);
  });

  it('replays a step whose claim ran out, with the same request or answer, and stores its outcome with the step', async () => {
    const { ciclo, varredura, pausas, diario, avancar, agora } = naMemoria(LIMITES);
    const reserva = { reserva: 'res-0009', sala: 'sala-fusca', inicio: 'i', fim: 'f', responsavel: 'Doc', politica: 'p' };
    const concluida: Desfecho = {
      estado: 'concluida',
      mensagem: 'Reserva res-0009 confirmada na sala-fusca.',
      artefato: { nome: 'reserva', dados: reserva },
    };
    const chamadas: string[] = [];
    const ponte: PonteDaVarredura = {
      atender: (taskId, pedido, opcoes) => {
        chamadas.push(`atender ${taskId} ${pedido.pedido.texto} ${String(opcoes?.repeticao)}`);
        return Promise.resolve(concluida);
      },
      responder: (_taskId, pausa, respostas, _trace, opcoes) => {
        chamadas.push(`responder ${String(pausa.requestState)} ${JSON.stringify(respostas)} ${String(opcoes?.repeticao)}`);
        return Promise.resolve({ estado: 'incerto', mensagem: 'sem resposta' });
      },
      reapresentar: () => assert.fail('every claim here records its answer'),
      cancelar: () => false,
      seguir: () => assert.fail('no step here follows an MCP task'),
      largar: () => undefined,
    };
    const resposta = { escolha_de_sala: { action: 'accept' as const, content: { sala: 'sala-fusca' } } };
    await aberta(ciclo, 'novo');
    const { alvo } = await pausada(ciclo, 'pausada');
    await ciclo.receber(alvo, mensagemAo('pausada', 'escolha=sala-fusca', { messageId: 'm2' }), () => ({ respostas: resposta }));
    avancar(60_001);
    await aberta(ciclo, 'viva');
    const antes = await posicoes(diario, 'novo', 'pausada');
    assert.equal(await varredura.varrer(ponte), 2);
    assert.deepEqual(chamadas.sort(), [
      `atender novo reservar sala=sala-garagem true`,
      `responder estado-pausada ${JSON.stringify(resposta)} true`,
    ]);
    assert.deepEqual(await registradosApos(diario, 'novo', antes.novo ?? 0), [
      'artifactUpdate',
      'TASK_STATE_COMPLETED: Reserva res-0009 confirmada na sala-fusca.',
    ]);
    assert.deepEqual(await registradosApos(diario, 'pausada', antes.pausada ?? 0), ['TASK_STATE_WORKING: sem resposta']);
    assert.equal(await pausas.ler('novo'), undefined, 'a finished Task keeps no step');
    // Still uncertain: claimed again, expired at once, for the next pass; the live claim is left alone.
    assert.deepEqual(await pausas.vencidas(agora() + 1, 10), ['pausada']);
    assert.deepEqual((await pausas.ler('pausada'))?.reivindicacao?.respostas, resposta);
    assert.equal((await pausas.ler('viva'))?.reivindicacao?.por, 'este');
  });

  it('a call that became an MCP task: the step is that task, its lease renewed while ours; a sweep follows the same task again, never calls again', async () => {
    const { ciclo, varredura, pausas, tarefas, campainha, diario, avancar, agora } = naMemoria(LIMITES);
    const { alvo } = await aberta(ciclo, 't');
    avancar(1_000);
    assert.equal(await ciclo.acompanhar(alvo, seguimento(agora())), true);
    assert.deepEqual(await pausas.ler('t'), { passo: seguimento(agora()), reivindicacao: { por: 'este', ate: agora() + LIMITES.prazoMs } });
    // Uncertain (the follow lost its connection): the task stays the step, expired at once for the sweep.
    await ciclo.concluir(alvo, { estado: 'incerto', mensagem: 'sem resposta' }, (await pausas.ler('t'))?.passo ?? assert.fail());
    assert.ok(ehSeguimento((await pausas.ler('t'))?.passo ?? assert.fail()));
    avancar(1);
    const seguidos: string[] = [];
    const antes = await posicoes(diario, 't');
    const ponte: PonteDaVarredura = {
      ...SEM_REPETICAO,
      seguir: (taskId, passo, opcoes) => {
        seguidos.push(`${taskId} ${passo.tarefaMcp.referencia.taskId}`);
        opcoes?.aoProgredir?.({ progress: 1, message: 'Generating report...' });
        return Promise.resolve({
          estado: 'concluida',
          mensagem: 'pronto',
          artefato: { nome: passo.skill, partes: [{ texto: '# Research Report' }] },
        });
      },
    };
    assert.equal(await varredura.varrer(ponte), 1);
    await ateOEstado(campainha, tarefas, 't', TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(seguidos, ['t tarefa-1']);
    assert.deepEqual(await registradosApos(diario, 't', antes.t ?? 0), [
      'TASK_STATE_WORKING: Generating report...',
      'artifactUpdate',
      'TASK_STATE_COMPLETED: pronto',
    ]);
    assert.equal(await pausas.ler('t'), undefined);
    // Another agent's claim: nothing written, and the follower is told.
    const { alvo: outro } = await aberta(ciclo, 'outro');
    await pausas.guardar('outro', seguimento(agora()), { por: 'outro-agente', ate: Number.MAX_SAFE_INTEGER });
    assert.equal(await ciclo.acompanhar(outro, seguimento(agora() + 5)), false);
    assert.equal((await pausas.ler('outro'))?.passo.criadaEm, agora());
  });

  it("a replay's outcome for a Task already finished only removes its step", async () => {
    const { ciclo, varredura, pausas, tarefas, diario, avancar } = naMemoria(LIMITES);
    const { alvo, pedido } = await aberta(ciclo, 't');
    await ciclo.concluir(alvo, { estado: 'falhou', mensagem: 'x' }, pedido);
    // A step left behind (written by another agent's version), claimed and expired.
    await pausas.guardar('t', pedido, { por: 'outro', ate: INICIO_DO_RELOGIO });
    avancar(1);
    const antes = await posicoes(diario, 't');
    assert.equal(
      await varredura.varrer({ ...SEM_REPETICAO, atender: () => Promise.resolve({ estado: 'falhou', mensagem: 'de novo' }) }),
      1,
    );
    assert.equal(await pausas.ler('t'), undefined);
    assert.equal(await estadoGuardado(tarefas, 't'), falhada('x'));
    assert.deepEqual(await registradosApos(diario, 't', antes.t ?? 0), []);
  });

  it('a claimed pause with no answer recorded is asked again as it was (INPUT_REQUIRED), and released', async () => {
    const { ciclo, varredura, pausas, diario, avancar } = naMemoria(LIMITES);
    const { alvo } = await pausada(ciclo, 'sem-resposta');
    const pausaGuardada = (await pausas.ler('sem-resposta'))?.passo;
    assert.ok(pausaGuardada);
    const resposta = { escolha_de_sala: { action: 'accept' as const, content: { sala: 'sala-fusca' } } };
    await ciclo.receber(alvo, mensagemAo('sem-resposta', 'escolha=sala-fusca', { messageId: 'm2' }), () => ({ respostas: resposta }));
    // No writer of ours claims a pause without its answer; another agent's version might.
    await pausas.guardar('sem-resposta', pausaGuardada, { por: 'outro', ate: INICIO_DO_RELOGIO });
    avancar(1);
    const antes = await posicoes(diario, 'sem-resposta');
    const reapresentadas: Pick<Pausa, 'perguntas'>[] = [];
    const ponte: PonteDaVarredura = {
      ...SEM_REPETICAO,
      reapresentar: (pausa) => {
        reapresentadas.push(pausa);
        return { estado: 'pausada', mensagem: 'alternativas: sala-fusca, sala-mirante', dados: {} };
      },
    };
    assert.equal(await varredura.varrer(ponte), 1);
    assert.deepEqual(reapresentadas, [pausaGuardada]);
    assert.deepEqual(await registradosApos(diario, 'sem-resposta', antes['sem-resposta'] ?? 0), [PERGUNTA_DE_NOVO]);
    assert.deepEqual(await pausas.ler('sem-resposta'), { passo: pausaGuardada }, 'unclaimed, answerable again');
  });
});

/** Takes the Task's turn and holds it until `soltar`; resolves once inside. */
async function segurarVez(exclusao: Exclusao, taskId: string): Promise<{ soltar: () => void; segura: Promise<unknown> }> {
  const { promessa: dentro, resolver: entrou } = adiado();
  const { promessa: liberada, resolver: soltar } = adiado();
  const segura = exclusao.com(taskId, () => {
    entrou();
    return liberada;
  });
  await dentro;
  return { soltar, segura };
}

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
    const { soltar, segura } = await segurarVez(a, 't');
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
  it('across processes: a turn not had in time says the Task is busy, not that the database is down', async () => {
    const url = await postgres.novoBanco(`vez_${randomUUID().replaceAll('-', '')}`);
    const [a, b] = [
      new ExclusaoNoPostgres(new pg.Pool({ connectionString: url, max: 3 })),
      new ExclusaoNoPostgres(new pg.Pool({ connectionString: url, max: 3 }), 200),
    ];
    try {
      const { soltar, segura } = await segurarVez(a, 't');
      const recusa = await b
        .com('t', () => Promise.resolve('entrou'))
        .then(
          () => undefined,
          (erro: unknown) => erro,
        );
      soltar();
      await segura;
      assert.ok(recusa instanceof Error, String(recusa));
      assert.ok(!(recusa instanceof BancoIndisponivel), recusa.message);
      assert.equal(
        recusa.message,
        'Outro passo da Task t esta em andamento ha mais de 0.2 s: consulte a Task ou tente de novo em instantes.',
      );
    } finally {
      await a.fechar();
      await b.fechar();
    }
  });

  it('across processes: the connection of a turn terminated while its step runs ends neither the step nor the process', async () => {
    const url = await postgres.novoBanco(`vez_${randomUUID().replaceAll('-', '')}`);
    const pool = new pg.Pool({ connectionString: url, max: 3, application_name: 'vez-perdida' });
    const encerradas: Promise<void>[] = [];
    pool.on('acquire', (cliente) => encerradas.push(new Promise((resolver) => cliente.once('end', resolver))));
    const exclusao = new ExclusaoNoPostgres(pool);
    const admin = new pg.Client(url);
    await admin.connect();
    try {
      const feito = await exclusao.com('t', async () => {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'vez-perdida'`,
        );
        assert.equal(rows[0]?.n, 1);
        // The loss reaches the held client as an 'error' event while nothing is asked of it, then it ends.
        await encerradas[0];
        return 'feito';
      });
      assert.equal(feito, 'feito');
      assert.equal(await exclusao.com('t', () => Promise.resolve('de novo')), 'de novo', 'the next turn gets a fresh connection');
    } finally {
      await admin.end();
      await exclusao.fechar();
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

  it('a Task whose step is claimed ends only by that step: a cancel is refused, a sweep leaves it, the SDK cannot write it', async () => {
    const { ciclo, tarefas, pausas } = naMemoria(LIMITES);
    const { alvo, pedido } = await aberta(ciclo, 't');
    // The claimed step may be booking: ended now, its booking would outlive the Task.
    await assert.rejects(
      ciclo.cancelar(alvo),
      (erro) => erro instanceof TaskNotCancelableError && /chamada em andamento/.test(erro.message),
    );
    assert.equal(await ciclo.descartar(alvo, 'x'), false);
    await assert.rejects(
      somenteLeitura(tarefas).save(tarefa('t', TaskState.TASK_STATE_FAILED), anonimo),
      /so e gravada pelas transicoes do ciclo/,
    );
    assert.equal((await tarefas.load('t', anonimo))?.status?.state, TaskState.TASK_STATE_WORKING);
    assert.equal((await pausas.ler('t'))?.reivindicacao?.por, 'este');
    // Its own outcome, with the step's change, goes through.
    await ciclo.concluir(alvo, { estado: 'falhou', mensagem: 'x' }, pedido);
    assert.equal((await tarefas.load('t', anonimo))?.status?.state, TaskState.TASK_STATE_FAILED);
    assert.equal(await pausas.ler('t'), undefined);
  });

  it('a store that fails is reported as "banco indisponivel", to a reader and to a transition', async () => {
    const { ciclo, tarefas } = naMemoria(LIMITES);
    const recusa = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    tarefas.save = recusa;
    const indisponivel = { name: 'BancoIndisponivel', message: 'Banco de Tasks indisponivel: tente de novo em instantes' };
    await assert.rejects(aberta(ciclo, 't'), indisponivel);
    tarefas.load = recusa;
    tarefas.list = recusa;
    await assert.rejects(somenteLeitura(tarefas).load('t', anonimo), indisponivel);
    await assert.rejects(somenteLeitura(tarefas).list(ListTasksRequest.fromJSON({}), anonimo), indisponivel);
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
  const db = await comTabelaDoSdk<TaskDatabase>(motor, 'tasks', tabelaDeTarefas);
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

    it('refuses a pageToken it did not write as RequestMalformedError, read only as the SDK reads it, never as banco indisponivel', async () => {
      const loja = await criar();
      await loja.save(tarefaEm({ id: 'a', segundo: 1 }), anonimo);
      const tarefas = somenteLeitura(loja);
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

describe('Ciclo outside a request: what a sweep writes', () => {
  const anonimo = new ServerCallContext();

  it('ends a paused Task FAILED with the message, its step with it, and tells its webhooks once; a finished Task only loses its step', async () => {
    const avisados: { taskId: string; configs: string[]; respostas: readonly StreamResponse[] }[] = [];
    const { ciclo, tarefas, pausas, webhooks } = naMemoria({
      ...LIMITES,
      avisos: { enviar: (taskId, respostas, configs) => avisados.push({ taskId, configs: configs.map(({ id }) => id), respostas }) },
    });
    await pausada(ciclo, 'pausada');
    const pronta = await aberta(ciclo, 'pronta');
    await ciclo.concluir(pronta.alvo, { estado: 'falhou', mensagem: 'x' }, pronta.pedido);
    // A step left behind by another agent's version.
    await pausas.guardar('pronta', pausa(1));
    for (const taskId of ['pausada', 'pronta'])
      await webhooks.save(taskId, anonimo, TaskPushNotificationConfig.fromJSON({ taskId, id: 'w', url: 'http://127.0.0.1/hook' }));
    const alvo = (taskId: string) => ({ taskId, contexto: anonimo });
    assert.equal(await ciclo.descartar(alvo('pausada'), MENSAGEM_DE_PAUSA_EXPIRADA), true);
    assert.equal(await ciclo.descartar(alvo('pronta'), MENSAGEM_DE_PAUSA_EXPIRADA), true);
    assert.equal(await estadoGuardado(tarefas, 'pausada'), falhada(MENSAGEM_DE_PAUSA_EXPIRADA));
    assert.equal(await pausas.ler('pausada'), undefined);
    // Told as the Task's new status, to the configs read in its transaction.
    assert.deepEqual(
      avisados.map(({ taskId, configs, respostas }) => [taskId, configs, respostas.map(comTexto)]),
      [['pausada', ['w'], [falhada(MENSAGEM_DE_PAUSA_EXPIRADA)]]],
    );
    assert.equal(await estadoGuardado(tarefas, 'pronta'), falhada('x'));
    assert.equal(await pausas.ler('pronta'), undefined);
    assert.equal(await ciclo.descartar(alvo('pronta'), MENSAGEM_DE_PAUSA_EXPIRADA), false, 'nothing left to discard');
  });

  it('a store that fails rejects the call, leaves nothing unheard that would end the process, and the sweep goes on', async () => {
    const { ciclo, varredura, tarefas, pausas, avancar } = naMemoria(LIMITES);
    const { alvo } = await pausada(ciclo, 'pausada');
    await pausada(ciclo, 'outra');
    // Its read fails, before anything is written (memory has no rollback to undo a write).
    const carregar = tarefas.load.bind(tarefas);
    tarefas.load = (taskId, contexto) =>
      taskId === 'pausada' ? Promise.reject(new Error('Connection terminated unexpectedly')) : carregar(taskId, contexto);
    const naoOuvidas: unknown[] = [];
    const ouvir = (razao: unknown) => naoOuvidas.push(razao);
    process.on('unhandledRejection', ouvir);
    try {
      await assert.rejects(ciclo.descartar(alvo, MENSAGEM_DE_PAUSA_EXPIRADA), { name: 'BancoIndisponivel' });
      avancar(600_000);
      const linhas: string[] = [];
      assert.equal(await varredura.varrer(SEM_REPETICAO, (linha) => linhas.push(linha)), 1, 'the other Task is still swept');
      assert.deepEqual(linhas, [
        'varredura: a pausa da Task pausada fica para a proxima passada (Banco de Tasks indisponivel: tente de novo em instantes)',
      ]);
      // Unhandled rejections are reported after the microtasks of the turn that made them.
      await new Promise((resolver) => setImmediate(resolver));
      assert.deepEqual(naoOuvidas, []);
    } finally {
      process.off('unhandledRejection', ouvir);
    }
    assert.ok(await pausas.ler('pausada'), 'its pause kept for the next pass');
    assert.equal(await estadoGuardado(tarefas, 'outra'), falhada(MENSAGEM_DE_PAUSA_EXPIRADA));
  });

  it('the sweep finds and ends a Task of another tenant as its owner', async () => {
    const { ciclo, varredura, tarefas, avancar } = naMemoria(LIMITES);
    const naAcme = new ServerCallContext({ tenant: 'acme' });
    await pausada(ciclo, 'pausada', naAcme);
    avancar(600_000);
    assert.equal(await varredura.varrer(SEM_REPETICAO), 1);
    assert.equal((await tarefas.load('pausada', naAcme))?.status?.state, TaskState.TASK_STATE_FAILED);
    assert.equal(await tarefas.load('pausada', anonimo), undefined, 'still out of sight of other tenants');
  });

  for (const motor of ['sqlite', 'postgres'] as const) {
    it(`on ${motor}, a transition's Task, step and log are written in one transaction: all or nothing`, async () => {
      const banco =
        motor === 'sqlite'
          ? join(pasta, `juntos-${randomUUID()}.db`)
          : await postgres.novoBanco(`juntos_${randomUUID().replaceAll('-', '')}`);
      const armazenamento = await abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined });
      abertos.push({ destroy: () => armazenamento.fechar() });
      const { tarefas, pausas, diario } = armazenamento;
      // While `falhar`, the transaction's Task store fails its write: after the step was written, before the log.
      let falhar = false;
      const juntos: Armazenamento['juntos'] = (escrita) =>
        armazenamento.juntos((lojas) =>
          escrita(
            falhar
              ? {
                  ...lojas,
                  tarefas: {
                    load: (taskId, contexto) => lojas.tarefas.load(taskId, contexto),
                    list: (params, contexto) => lojas.tarefas.list(params, contexto),
                    save: () => Promise.reject(new Error('Connection terminated unexpectedly')),
                  },
                }
              : lojas,
          ),
        );
      const ciclo = new Ciclo({ juntos, campainha: armazenamento.campainha }, LIMITES, 'este');
      const { alvo } = await pausada(ciclo, 't');
      const [pausaAntes, logAntes] = await Promise.all([pausas.ler('t'), diario.extremos('t', ESCOPO_ANONIMO)]);
      const resposta = { escolha_de_sala: { action: 'accept' as const, content: { sala: 'sala-fusca' } } };
      const responder = () =>
        ciclo.receber(alvo, mensagemAo('t', 'escolha=sala-fusca', { messageId: 'm2' }), () => ({ respostas: resposta }));
      falhar = true;
      await assert.rejects(responder(), { name: 'BancoIndisponivel' });
      assert.deepEqual(await pausas.ler('t'), pausaAntes, 'the claim went down with the Task');
      assert.deepEqual(await diario.extremos('t', ESCOPO_ANONIMO), logAntes);
      const guardada = await tarefas.load('t', anonimo);
      assert.equal(guardada?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert.ok(!guardada.history.some(({ messageId }) => messageId === 'm2'), 'the answer is not in its history');
      // And one that succeeds lands whole: the claim with WORKING, then the outcome with the step's end.
      falhar = false;
      const { resposta: recebida } = await responder();
      assert.ok(recebida);
      assert.equal((await pausas.ler('t'))?.reivindicacao?.por, 'este');
      await ciclo.concluir(alvo, { estado: 'cancelada', mensagem: 'recusada' }, recebida.pausa, { respostas: resposta });
      assert.equal((await tarefas.load('t', anonimo))?.status?.state, TaskState.TASK_STATE_CANCELED);
      assert.equal(await pausas.ler('t'), undefined);
    });
  }

  it("on PostgreSQL, two agents: of two sweeps one takes over a claim that ran out, and the first agent's late outcome is refused", async () => {
    const banco = await postgres.novoBanco(`vencida_${randomUUID().replaceAll('-', '')}`);
    const [a, b, c] = await Promise.all(
      [1, 2, 3].map(() => abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined })),
    );
    assert.ok(a && b && c);
    abertos.push(...[a, b, c].map((armazenamento) => ({ destroy: () => armazenamento.fechar() })));
    let agora = INICIO_DO_RELOGIO;
    const relogio = () => agora;
    const cicloDeA = new Ciclo(a, LIMITES, 'agente-a', undefined, relogio);
    const { alvo, pedido } = await aberta(cicloDeA, 't');
    agora += LIMITES.prazoMs + 1;
    const repeticoes: string[] = [];
    const ponte: PonteDaVarredura = {
      ...SEM_REPETICAO,
      atender: (taskId, _pedido, opcoes) => {
        repeticoes.push(`${taskId} ${String(opcoes?.repeticao)}`);
        return Promise.resolve({ estado: 'concluida', mensagem: 'pronto', artefato: { nome: 'eco', dados: { n: 1 } } });
      },
    };
    const varrida = await Promise.all(
      (
        [
          ['agente-b', b],
          ['agente-c', c],
        ] as const
      ).map(([por, armazenamento]) => {
        const ciclo = new Ciclo(armazenamento, LIMITES, por, undefined, relogio);
        return new Varredura(ciclo, armazenamento.pausas, armazenamento.exclusao, LIMITES.maxPausadas, relogio).varrer(ponte);
      }),
    );
    assert.deepEqual(varrida.sort(), [0, 1], 'one sweep replayed it');
    assert.deepEqual(repeticoes, ['t true']);
    await assert.rejects(
      cicloDeA.concluir(alvo, { estado: 'falhou', mensagem: 'tarde' }, pedido),
      /ja esta sendo respondida por outra chamada/,
    );
    assert.equal(await estadoGuardado(a.tarefas, 't'), 'TASK_STATE_COMPLETED: pronto');
    assert.equal(await a.pausas.ler('t'), undefined);
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
  // As an agent opens it: the SDK's table, then our migrations (which widen config_id).
  await migrarTabelasDaPonte(db as unknown as Kysely<TabelaDePausas>, motor);
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

    it(`keeps a config id as long as the bound (${String(LIMITES_DO_WEBHOOK.id)} characters), as clients name their configs`, async () => {
      const webhooks = await criar();
      const longo = `test_create_push_config_${'x'.repeat(LIMITES_DO_WEBHOOK.id - 24)}`;
      assert.equal(longo.length, LIMITES_DO_WEBHOOK.id);
      await webhooks.save('t1', anonimo, config('t1', longo));
      assert.deepEqual(porId(await webhooks.load('t1', anonimo)), [[longo, 'http://127.0.0.1/hook', `tok-${longo}`]]);
      await webhooks.delete('t1', anonimo, longo);
      assert.deepEqual(await webhooks.load('t1', anonimo), []);
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

/** a2a_pausas as agents before kysely's Migrator left it (PausasNoBanco.criarTabela, no ledger): first without claims. */
const PAUSAS_ANTIGAS = [
  'create table a2a_pausas (task_id varchar(255) primary key, criada_em bigint not null, dados text not null)',
  'create index a2a_pausas_criada_em on a2a_pausas (criada_em)',
];
const REIVINDICACOES_ANTIGAS = [
  'alter table a2a_pausas add column reivindicada_ate bigint',
  'alter table a2a_pausas add column reivindicacao text',
  'create index a2a_pausas_reivindicada_ate on a2a_pausas (reivindicada_ate)',
];

/** A database abrirArmazenamento can open by name (a SQLite file, or PostgreSQL), and a connection of the test's own to it. */
async function bancoNomeado(motor: Motor): Promise<{ banco: string; db: Kysely<TabelaDePausas> }> {
  const banco =
    motor === 'sqlite' ? join(pasta, `antigo-${randomUUID()}.db`) : await postgres.novoBanco(`antigo_${randomUUID().replaceAll('-', '')}`);
  const dialect: Dialect =
    motor === 'sqlite'
      ? new SqliteDialect({ database: new Sqlite(banco) })
      : new PostgresDialect({ pool: poolDeTeste({ connectionString: banco }) });
  const db = new Kysely<TabelaDePausas>({ dialect });
  abertos.push(db);
  return { banco, db };
}

const migracoesAplicadas = async (db: Kysely<TabelaDePausas>) =>
  (await sql<{ name: string }>`select name from a2a_pausas_migracoes order by name`.execute(db)).rows.map((linha) => linha.name);

/** A status update of Task `id`, as a save would log it. */
const estadoDe = (id: string, estado: string): StreamResponse =>
  StreamResponse.fromJSON({ statusUpdate: { taskId: id, contextId: 'c', status: { state: estado, timestamp: '2027-01-01T00:00:00Z' } } });

async function diarioNoBanco(motor: Motor): Promise<Diario> {
  const db = await bancoNovo<TabelaDePausas & TabelaDeEventos>(motor, 'eventos');
  await migrarTabelasDaPonte(db, motor);
  return new DiarioNoBanco(db, motor === 'postgres');
}

for (const [nome, criar] of [
  ['DiarioEmMemoria', () => Promise.resolve(new DiarioEmMemoria())],
  ['DiarioNoBanco (SQLite)', () => diarioNoBanco('sqlite')],
  ['DiarioNoBanco (PostgreSQL)', () => diarioNoBanco('postgres')],
] as const) {
  describe(`Event log contract: ${nome}`, () => {
    const escopo = ESCOPO_ANONIMO;

    it("numbers each Task's events 1, 2, 3... apart, gives them back whole after a position, and says where a Task stands", async () => {
      const diario = await criar();
      assert.equal(await diario.anotar('t', escopo, []), 0, 'a Task with no events stands at 0');
      assert.equal(await diario.extremos('t', escopo), undefined);
      const eventos = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'].map((estado) => estadoDe('t', estado));
      assert.equal(await diario.anotar('t', escopo, eventos.slice(0, 2)), 2);
      assert.equal(await diario.anotar('u', escopo, [estadoDe('u', 'TASK_STATE_WORKING')]), 1, 'another Task counts apart');
      assert.equal(await diario.anotar('t', escopo, eventos.slice(2)), 3);
      assert.equal(await diario.anotar('t', escopo, []), 3, 'nothing to add: where it stands');
      const lidos = await diario.ler('t', escopo, 0, 10);
      assert.deepEqual(
        lidos.map(({ seq, evento }) => [seq, StreamResponse.toJSON(evento)]),
        eventos.map((evento, i) => [i + 1, StreamResponse.toJSON(evento)]),
      );
      assert.deepEqual(
        (await diario.ler('t', escopo, 1, 1)).map(({ seq }) => seq),
        [2],
        'after a position, at most the limit',
      );
      assert.deepEqual(await diario.ler('t', escopo, 3, 10), []);
      assert.deepEqual(await diario.extremos('t', escopo), { primeira: 1, ultima: 3 });
    });

    it("never gives one scope's events to another", async () => {
      const diario = await criar();
      await diario.anotar('t', escopo, [estadoDe('t', 'TASK_STATE_WORKING')]);
      const outro = JSON.stringify(['acme', 'ana']);
      assert.deepEqual(await diario.ler('t', outro, 0, 10), []);
      assert.equal(await diario.extremos('t', outro), undefined);
    });

    it(`keeps the last ${String(MAXIMO_POR_TASK)} events of a Task, numbered on`, async () => {
      const diario = await criar();
      const muitos = Array.from({ length: MAXIMO_POR_TASK + 5 }, () => estadoDe('t', 'TASK_STATE_WORKING'));
      assert.equal(await diario.anotar('t', escopo, muitos.slice(0, 3)), 3);
      assert.equal(await diario.anotar('t', escopo, muitos.slice(3)), MAXIMO_POR_TASK + 5);
      assert.deepEqual(await diario.extremos('t', escopo), { primeira: 6, ultima: MAXIMO_POR_TASK + 5 });
      const [primeiro] = await diario.ler('t', escopo, 0, 1);
      assert.equal(primeiro?.seq, 6, 'a read from before the oldest starts at the oldest kept');
    });
  });
}

describe('DiarioEmMemoria only', () => {
  it('keeps the events of the Tasks appended to last, up to its cap; an older Task keeps its count, and numbers go on', async () => {
    const diario = new DiarioEmMemoria(2);
    for (const taskId of ['a', 'b', 'c']) await diario.anotar(taskId, ESCOPO_ANONIMO, [estadoDe(taskId, 'TASK_STATE_WORKING')]);
    assert.deepEqual(await diario.ler('a', ESCOPO_ANONIMO, 0, 10), []);
    assert.deepEqual(await diario.extremos('a', ESCOPO_ANONIMO), { primeira: 2, ultima: 1 }, 'none kept, the last was 1');
    assert.deepEqual(await diario.extremos('c', ESCOPO_ANONIMO), { primeira: 1, ultima: 1 });
    assert.equal(await diario.anotar('a', ESCOPO_ANONIMO, [estadoDe('a', 'TASK_STATE_COMPLETED')]), 2);
    assert.deepEqual(
      (await diario.ler('a', ESCOPO_ANONIMO, 0, 10)).map(({ seq }) => seq),
      [2],
    );
    assert.deepEqual(await diario.ler('b', ESCOPO_ANONIMO, 0, 10), [], 'b is now the one appended to longest ago');
    diario.esquecer('a');
    assert.equal(await diario.extremos('a', ESCOPO_ANONIMO), undefined, 'forgotten with its Task');
  });
});

describe('the event log written with the Task (Ciclo over each store)', () => {
  const anonimo = () => new ServerCallContext();

  for (const motor of ['memoria', 'sqlite', 'postgres'] as const) {
    it(`on ${motor}: a new Task, each status and artifact changed, nothing for history alone; a refused transition logs nothing; subscribers rung`, async () => {
      const banco =
        motor === 'memoria'
          ? undefined
          : motor === 'sqlite'
            ? join(pasta, `eventos-${randomUUID()}.db`)
            : await postgres.novoBanco(`eventos_${randomUUID().replaceAll('-', '')}`);
      const armazenamento = await abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined });
      abertos.push({ destroy: () => armazenamento.fechar() });
      const { campainha, diario, pausas } = armazenamento;
      const ciclo = new Ciclo(armazenamento, LIMITES, 'este');
      const casos = (transicao: Transicao) => transicao.anotados.map(({ seq, evento }) => [seq, evento.payload?.$case]);
      const tocada = campainha.esperar('t').tocada;
      const { alvo, pedido, transicao: abertura } = await aberta(ciclo, 't');
      await tocada;
      assert.equal(abertura.posicaoAntes, 0);
      assert.deepEqual(casos(abertura), [
        [1, 'task'],
        [2, 'statusUpdate'],
      ]);
      const anotada = await ciclo.receber(alvo, mensagemAo('t', 'e agora?', { messageId: 'm2' }), () =>
        assert.fail('a Task not waiting is asked nothing'),
      );
      assert.deepEqual([anotada.posicaoAntes, casos(anotada)], [2, []], 'history alone tells subscribers nothing');
      // Refused: the Task, its step and its log stay as they were.
      await assert.rejects(ciclo.cancelar(alvo), TaskNotCancelableError);
      await assert.rejects(ciclo.abrir(alvo, mensagemAo('t', 'de novo'), pedido), RequestMalformedError);
      const artefato: Desfecho = { estado: 'concluida', mensagem: 'pronto', artefato: { nome: 'reserva', dados: { sala: 'sala-fusca' } } };
      const concluida = await ciclo.concluir(alvo, artefato, pedido);
      assert.ok(concluida);
      assert.deepEqual(casos(concluida), [
        [3, 'artifactUpdate'],
        [4, 'statusUpdate'],
      ]);
      await assert.rejects(
        ciclo.receber(alvo, mensagemAo('t', 'mais?', { messageId: 'm3' }), () => assert.fail()),
        UnsupportedOperationError,
      );
      const lidos = (await diario.ler('t', ESCOPO_ANONIMO, 0, 10)).map(({ seq, evento }) => [seq, evento.payload?.$case]);
      assert.deepEqual(lidos, [
        [1, 'task'],
        [2, 'statusUpdate'],
        [3, 'artifactUpdate'],
        [4, 'statusUpdate'],
      ]);
      const [trabalhando] = await diario.ler('t', ESCOPO_ANONIMO, 1, 1);
      const estado = trabalhando?.evento.payload;
      assert.ok(estado?.$case === 'statusUpdate' && estado.value.status?.state === TaskState.TASK_STATE_WORKING);
      const task = await armazenamento.tarefas.load('t', anonimo());
      assert.deepEqual(
        task?.history.map(({ messageId }) => messageId),
        ['m-t', 'm2', task?.status?.message?.messageId],
        'the refused message never entered history',
      );
      assert.equal(await pausas.ler('t'), undefined);
    });
  }

  it('on PostgreSQL, a save of a Task while another agent appends to its log waits for it and numbers after it, instead of failing whole', async () => {
    const banco = await postgres.novoBanco(`juntas_${randomUUID().replaceAll('-', '')}`);
    const [a, b] = await Promise.all([
      abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined }),
      abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined }),
    ]);
    const espia = poolDeTeste({ connectionString: banco, max: 1 });
    abertos.push({ destroy: () => a.fechar() }, { destroy: () => b.fechar() }, { destroy: () => espia.end() });
    const esperandoLock = async () =>
      (await espia.query("select 1 from pg_stat_activity where wait_event_type = 'Lock' and application_name = 'agente'")).rows.length;
    // A's append held open (no turn between them: a step whose turn's connection was lost goes on).
    let soltar = (): void => undefined;
    const segurada = new Promise<void>((resolver) => (soltar = resolver));
    const deA = a.juntos(async ({ diario }) => {
      await diario.ocupar('t');
      await diario.anotar('t', ESCOPO_ANONIMO, [estadoDe('t', 'TASK_STATE_WORKING')]);
      await segurada;
    });
    while ((await espia.query("select 1 from pg_locks where locktype = 'advisory' and granted")).rows.length === 0)
      await new Promise((resolver) => setImmediate(resolver));
    const deB = aberta(new Ciclo(b, LIMITES, 'agente-b'), 't');
    while ((await esperandoLock()) === 0) await new Promise((resolver) => setImmediate(resolver));
    soltar();
    await Promise.all([deA, deB]);
    const lidos = await a.diario.ler('t', ESCOPO_ANONIMO, 0, 10);
    assert.deepEqual(
      lidos.map(({ seq, evento }) => [seq, evento.payload?.$case]),
      [
        [1, 'statusUpdate'],
        [2, 'task'],
        [3, 'statusUpdate'],
      ],
    );
  });

  it('on PostgreSQL, an event committed by one agent wakes the subscribers of another, and a lost LISTEN connection comes back', async () => {
    const banco = await postgres.novoBanco(`escuta_${randomUUID().replaceAll('-', '')}`);
    const linhas: string[] = [];
    const [a, b] = await Promise.all([
      abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined }),
      abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined, log: (linha) => linhas.push(linha) }),
    ]);
    abertos.push({ destroy: () => a.fechar() }, { destroy: () => b.fechar() });
    const cicloDeA = new Ciclo(a, LIMITES, 'agente-a');
    const escuta = poolDeTeste({ connectionString: banco, max: 1 });
    abertos.push({ destroy: () => escuta.end() });
    const ouvintes = async () =>
      (await escuta.query<{ pid: number }>("select pid from pg_stat_activity where application_name = 'agente-eventos'")).rows;
    // Both listeners up: each agent's connection shows in pg_stat_activity once it LISTENs.
    while ((await ouvintes()).length < 2) await new Promise((resolver) => setImmediate(resolver));
    const acordada = b.campainha.esperar('t').tocada;
    const { alvo, pedido } = await aberta(cicloDeA, 't');
    await acordada;
    // Every listener's backend killed: B reconnects and wakes every subscriber to re-read what it may have missed.
    const depoisDaQueda = b.campainha.esperar('t').tocada;
    await escuta.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'agente-eventos'");
    await depoisDaQueda;
    const deVolta = b.campainha.esperar('t').tocada;
    await cicloDeA.concluir(alvo, { estado: 'falhou', mensagem: 'x' }, pedido);
    await deVolta;
    assert.ok(
      linhas.some((linha) => /escuta de eventos perdida/.test(linha)),
      linhas.join('\n'),
    );
  });
});

/** Every migration of ours, in order: a database of older code gains the later ones at start. */
const TODAS_AS_MIGRACOES = ['0001_a2a_pausas', '0002_a2a_pausas_reivindicacao', '0003_push_config_id_longo', '0004_a2a_eventos'];

describe('a2a_pausas migrations (kysely Migrator)', () => {
  for (const motor of ['sqlite', 'postgres'] as const) {
    for (const comReivindicacoes of [false, true]) {
      it(`on ${motor}, a table the old code left ${comReivindicacoes ? 'with' : 'before'} claims is kept, every row as it was, and entered in the ledger`, async () => {
        const { banco, db } = await bancoNomeado(motor);
        for (const comando of [...PAUSAS_ANTIGAS, ...(comReivindicacoes ? REIVINDICACOES_ANTIGAS : [])]) await sql.raw(comando).execute(db);
        await db
          .insertInto('a2a_pausas')
          .values([
            { task_id: 'a', criada_em: 1, dados: '{"passo":"a"}' },
            { task_id: 'b', criada_em: 2, dados: '{"passo":"b"}' },
          ])
          .execute();
        if (comReivindicacoes)
          await db
            .updateTable('a2a_pausas')
            .set({ reivindicada_ate: 99, reivindicacao: '{"por":"outro","ate":99}' })
            .where('task_id', '=', 'b')
            .execute();
        const antes = await db.selectFrom('a2a_pausas').selectAll().orderBy('task_id').execute();
        const armazenamento = await abrirArmazenamento({ banco, maxTarefas: 10, aoPerderConexao: () => undefined });
        abertos.push({ destroy: () => armazenamento.fechar() });
        const depois = await db.selectFrom('a2a_pausas').selectAll().orderBy('task_id').execute();
        assert.deepEqual(
          depois,
          comReivindicacoes ? antes : antes.map((linha) => ({ ...linha, reivindicada_ate: null, reivindicacao: null })),
        );
        assert.deepEqual(await migracoesAplicadas(db), TODAS_AS_MIGRACOES);
        assert.deepEqual(await armazenamento.pausas.vencidas(100, 10), comReivindicacoes ? ['b'] : [], 'the claim columns are read');
        await migrarTabelasDaPonte(db, motor);
        assert.deepEqual(await migracoesAplicadas(db), TODAS_AS_MIGRACOES, 'a later start applies nothing');
      });
    }
  }

  it('on PostgreSQL, agents starting together migrate once: one applies, the others wait for its lock and find the ledger full', async () => {
    const url = await postgres.novoBanco(`juntos_${randomUUID().replaceAll('-', '')}`);
    const agentes = Array.from(
      { length: 4 },
      () => new Kysely<TabelaDePausas>({ dialect: new PostgresDialect({ pool: poolDeTeste({ connectionString: url, max: 2 }) }) }),
    );
    abertos.push(...agentes);
    await Promise.all(agentes.map((agente) => migrarTabelasDaPonte(agente, 'postgres')));
    const [um] = agentes;
    assert.ok(um);
    assert.deepEqual(await migracoesAplicadas(um), TODAS_AS_MIGRACOES);
    assert.equal(await new PausasNoBanco(um).total(), 0);
  });
});
