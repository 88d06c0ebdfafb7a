/**
 * Where Tasks, their pauses, their turns and their events live. By default
 * in memory, bounded; with TASKS_DB (a SQLite file or a postgres:// URL) in
 * a database through the SDK's DatabaseTaskStore, so a paused Task survives
 * an agent restart, and on PostgreSQL several agents share Tasks, take
 * turns and hear each other's events.
 */
import type { PushNotificationStore, TaskStore } from '@a2a-js/sdk/server';
import type { DatabasePushNotificationStore, DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { Kysely } from 'kysely';
import type { Motor } from './migracoes.js';
import { urlSemSenha } from 'compartilhado/ambiente';
import { esperarPostgres } from 'compartilhado/espera';
import { observarPool, observarSqlite } from 'compartilhado/telemetria/banco';
import { ExclusaoLocal, ExclusaoNoPostgres, type Exclusao } from './exclusao.js';
import { PausasEmMemoria, PausasNoBanco, type Pausas, type TabelaDePausas } from './pausas.js';
import { Campainha, escutarNoPostgres } from './campainha.js';
import { DiarioEmMemoria, DiarioNoBanco, type Diario, type TabelaDeEventos } from './diario.js';
import { TarefasEmMemoria } from './tarefas.js';
import { WebhooksEmMemoria, WebhooksNoBanco } from '../push/webhooks.js';

export interface Armazenamento {
  readonly tarefas: TaskStore;
  /** Each Task's push-notification configs. */
  readonly webhooks: PushNotificationStore;
  readonly pausas: Pausas;
  readonly exclusao: Exclusao;
  /** Each Task's events, for its subscribers on any agent of this store. */
  readonly diario: Diario;
  /** Rung when a Task's events may have grown: by this process's commits, and on PostgreSQL by every agent's. */
  readonly campainha: Campainha;
  /** Runs `escrita` on a Task store, a step store, an event log and the webhooks whose writes land together or not at all. */
  readonly juntos: (escrita: (lojas: Juntas) => Promise<void>) => Promise<void>;
  readonly descricao: string;
  /** Closes the database connections, if any. */
  fechar(): Promise<void>;
}

/** The stores one transaction of `juntos` sees. */
export interface Juntas {
  readonly tarefas: TaskStore;
  readonly pausas: Pausas;
  readonly diario: Diario;
  readonly webhooks: PushNotificationStore;
}

export interface OpcoesDeArmazenamento {
  /** TASKS_DB: undefined for memory, a SQLite file path, or a postgres:// URL. */
  readonly banco: string | undefined;
  /** How long a PostgreSQL that does not answer yet is waited for (0: not at all). */
  readonly esperaDoBancoMs?: number;
  readonly maxTarefas: number;
  /** A connection the database dropped while idle (the agent keeps serving; the next query opens another). */
  readonly aoPerderConexao: (erro: Error) => void;
  /** A Task the memory store forgot (past its cap): what else is kept of it goes too. */
  readonly aoEsquecer?: (taskId: string) => void;
  /** The event listener's connection lost or back (PostgreSQL). */
  readonly log?: (linha: string) => void;
}

type Tabelas = TabelaDePausas & TabelaDeEventos;

const ehPostgres = (banco: string) => /^postgres(ql)?:\/\//.test(banco);

export async function abrirArmazenamento({
  banco,
  esperaDoBancoMs = 0,
  maxTarefas,
  aoPerderConexao,
  aoEsquecer,
  log = () => undefined,
}: OpcoesDeArmazenamento): Promise<Armazenamento> {
  if (!banco) {
    const webhooks = new WebhooksEmMemoria();
    const diario = new DiarioEmMemoria();
    const tarefas = new TarefasEmMemoria(maxTarefas, (taskId) => {
      webhooks.esquecer(taskId);
      diario.esquecer(taskId);
      aoEsquecer?.(taskId);
    });
    const pausas = new PausasEmMemoria();
    return {
      tarefas,
      webhooks,
      pausas,
      exclusao: new ExclusaoLocal(),
      diario,
      campainha: new Campainha(),
      // Nothing of memory outlives the process: writes made one after the other cannot be seen half done.
      juntos: (escrita) => escrita({ tarefas, pausas, diario, webhooks }),
      descricao: `memoria (ate ${maxTarefas} Tasks)`,
      fechar: () => Promise.resolve(),
    };
  }
  // The database code is loaded only when a database is asked for: an agent in memory starts without it.
  const [
    { DatabasePushNotificationStore, DatabaseTaskStore },
    { Kysely, PostgresDialect, SqliteDialect },
    { migrarTabelasDaPonte, migrarTabelasDoSdk },
  ] = await Promise.all([import('@a2a-js/sdk/server/database'), import('kysely'), import('./migracoes.js')]);
  if (ehPostgres(banco)) {
    await esperarPostgres(banco, esperaDoBancoMs, 'TASKS_DB', log);
    await migrarTabelasDoSdk(banco);
    const { default: pg } = await import('pg');
    // Every connection listens for its own loss, idle or checked out (pg emits 'error' on a client no
    // query is waiting on, and an unheard one ends the process): the step that held it fails alone. The
    // pool repeats an idle client's loss: heard once, from the client itself.
    const pool = (max: number) =>
      observarPool(new pg.Pool({ connectionString: banco, max, connectionTimeoutMillis: 5000, application_name: 'agente' }))
        .on('error', () => undefined)
        .on('connect', (cliente) => cliente.on('error', aoPerderConexao));
    const db = new Kysely<Tabelas>({ dialect: new PostgresDialect({ pool: pool(10) }) });
    await migrarTabelasDaPonte(db, 'postgres');
    const campainha = new Campainha();
    // One connection of its own, outside the pools: LISTEN holds it for the agent's life.
    const escuta = escutarNoPostgres(
      () => new pg.Client({ connectionString: banco, connectionTimeoutMillis: 5000, application_name: 'agente-eventos', keepAlive: true }),
      campainha,
      log,
    );
    return noSql(db, {
      exclusao: new ExclusaoNoPostgres(pool(20)),
      campainha,
      motor: 'postgres',
      descricao: `PostgreSQL (${urlSemSenha(banco)})`,
      fecharAntes: () => escuta.fechar(),
      Tarefas: DatabaseTaskStore,
      Webhooks: DatabasePushNotificationStore,
    });
  }
  await migrarTabelasDoSdk(`sqlite:${banco}`);
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Kysely<Tabelas>({ dialect: new SqliteDialect({ database: observarSqlite(new Sqlite(banco)) }) });
  await migrarTabelasDaPonte(db, 'sqlite');
  // A SQLite file serves one agent: turns are taken, and subscribers woken, in this process only.
  return noSql(db, {
    exclusao: new ExclusaoLocal(),
    campainha: new Campainha(),
    motor: 'sqlite',
    descricao: `SQLite (${banco})`,
    Tarefas: DatabaseTaskStore,
    Webhooks: DatabasePushNotificationStore,
  });
}

interface PartesDoSql {
  readonly exclusao: Exclusao;
  readonly campainha: Campainha;
  /** PostgreSQL's event log announces each append to other agents (NOTIFY) and holds a Task's saves apart. */
  readonly motor: Motor;
  readonly descricao: string;
  /** What closes before the database: the PostgreSQL event listener. */
  readonly fecharAntes?: () => Promise<void>;
  readonly Tarefas: typeof DatabaseTaskStore;
  readonly Webhooks: typeof DatabasePushNotificationStore;
}

/** The SDK's stores and ours on one kysely database; `juntos` is one transaction of it. */
function noSql(
  db: Kysely<Tabelas>,
  { exclusao, campainha, motor, descricao, fecharAntes = () => Promise.resolve(), Tarefas, Webhooks }: PartesDoSql,
): Armazenamento {
  const noPostgres = motor === 'postgres';
  return {
    tarefas: new Tarefas(db),
    webhooks: new WebhooksNoBanco(new Webhooks(db)),
    pausas: new PausasNoBanco(db),
    exclusao,
    diario: new DiarioNoBanco(db, noPostgres),
    campainha,
    // A transaction is a Kysely to the SDK's store at run time; only their typings differ (jsonAgg).
    juntos: (escrita) =>
      db.transaction().execute((trx) =>
        escrita({
          tarefas: new Tarefas(trx as unknown as typeof db),
          pausas: new PausasNoBanco(trx),
          diario: new DiarioNoBanco(trx, noPostgres),
          webhooks: new Webhooks(trx as unknown as typeof db),
        }),
      ),
    descricao,
    fechar: () => fecharAntes().then(() => db.destroy()),
  };
}
