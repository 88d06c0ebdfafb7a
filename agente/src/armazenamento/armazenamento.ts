/**
 * Where Tasks, their pauses and their turns live. By default in memory,
 * bounded; with TASKS_DB (a SQLite file or a postgres:// URL) in a database
 * through the SDK's DatabaseTaskStore, so a paused Task survives an agent
 * restart, and on PostgreSQL several agents share Tasks and take turns.
 */
import type { PushNotificationStore, TaskStore } from '@a2a-js/sdk/server';
import type { DatabasePushNotificationStore, DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { Kysely } from 'kysely';
import { urlSemSenha } from 'compartilhado/ambiente';
import { ExclusaoLocal, ExclusaoNoPostgres, type Exclusao } from './exclusao.js';
import { PausasEmMemoria, PausasNoBanco, type Pausas, type TabelaDePausas } from './pausas.js';
import { TarefasEmMemoria } from './tarefas.js';
import { WebhooksEmMemoria, WebhooksNoBanco } from '../push/webhooks.js';

export interface Armazenamento {
  readonly tarefas: TaskStore;
  /** Each Task's push-notification configs. */
  readonly webhooks: PushNotificationStore;
  readonly pausas: Pausas;
  readonly exclusao: Exclusao;
  /** Runs `escrita` on a Task store and a step store whose writes land together or not at all. */
  readonly juntos: (escrita: (tarefas: TaskStore, pausas: Pausas) => Promise<void>) => Promise<void>;
  readonly descricao: string;
  /** Closes the database connections, if any. */
  fechar(): Promise<void>;
}

export interface OpcoesDeArmazenamento {
  /** TASKS_DB: undefined for memory, a SQLite file path, or a postgres:// URL. */
  readonly banco: string | undefined;
  readonly maxTarefas: number;
  /** A connection the database dropped while idle (the agent keeps serving; the next query opens another). */
  readonly aoPerderConexao: (erro: Error) => void;
  /** A Task the memory store forgot (past its cap): what else is kept of it goes too. */
  readonly aoEsquecer?: (taskId: string) => void;
}

const ehPostgres = (banco: string) => /^postgres(ql)?:\/\//.test(banco);

export async function abrirArmazenamento({
  banco,
  maxTarefas,
  aoPerderConexao,
  aoEsquecer,
}: OpcoesDeArmazenamento): Promise<Armazenamento> {
  if (!banco) {
    const webhooks = new WebhooksEmMemoria();
    const tarefas = new TarefasEmMemoria(maxTarefas, (taskId) => {
      webhooks.esquecer(taskId);
      aoEsquecer?.(taskId);
    });
    const pausas = new PausasEmMemoria();
    return {
      tarefas,
      webhooks,
      pausas,
      exclusao: new ExclusaoLocal(),
      // Nothing of memory outlives the process: writes made one after the other cannot be seen half done.
      juntos: (escrita) => escrita(tarefas, pausas),
      descricao: `memoria (ate ${maxTarefas} Tasks)`,
      fechar: () => Promise.resolve(),
    };
  }
  // The database code is loaded only when a database is asked for: an agent in memory starts without it.
  const [
    { DatabasePushNotificationStore, DatabaseTaskStore },
    { Kysely, PostgresDialect, SqliteDialect },
    { migrarPausas, migrarTabelasDoSdk },
  ] = await Promise.all([import('@a2a-js/sdk/server/database'), import('kysely'), import('./migracoes.js')]);
  if (ehPostgres(banco)) {
    await migrarTabelasDoSdk(banco);
    const { default: pg } = await import('pg');
    // Every connection listens for its own loss, idle or checked out (pg emits 'error' on a client no
    // query is waiting on, and an unheard one ends the process): the step that held it fails alone. The
    // pool repeats an idle client's loss: heard once, from the client itself.
    const pool = (max: number) =>
      new pg.Pool({ connectionString: banco, max, connectionTimeoutMillis: 5000, application_name: 'agente' })
        .on('error', () => undefined)
        .on('connect', (cliente) => cliente.on('error', aoPerderConexao));
    const db = new Kysely<TabelaDePausas>({ dialect: new PostgresDialect({ pool: pool(10) }) });
    await migrarPausas(db, 'postgres');
    return noSql(
      db,
      new ExclusaoNoPostgres(pool(20)),
      `PostgreSQL (${urlSemSenha(banco)})`,
      DatabaseTaskStore,
      DatabasePushNotificationStore,
    );
  }
  await migrarTabelasDoSdk(`sqlite:${banco}`);
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Kysely<TabelaDePausas>({ dialect: new SqliteDialect({ database: new Sqlite(banco) }) });
  await migrarPausas(db, 'sqlite');
  // A SQLite file serves one agent: turns are taken in this process only.
  return noSql(db, new ExclusaoLocal(), `SQLite (${banco})`, DatabaseTaskStore, DatabasePushNotificationStore);
}

/** The SDK's stores and ours on one kysely database; `juntos` is one transaction of it. */
function noSql(
  db: Kysely<TabelaDePausas>,
  exclusao: Exclusao,
  descricao: string,
  Tarefas: typeof DatabaseTaskStore,
  Webhooks: typeof DatabasePushNotificationStore,
): Armazenamento {
  return {
    tarefas: new Tarefas(db),
    webhooks: new WebhooksNoBanco(new Webhooks(db)),
    pausas: new PausasNoBanco(db),
    exclusao,
    // A transaction is a Kysely to the SDK's store at run time; only their typings differ (jsonAgg).
    juntos: (escrita) => db.transaction().execute((trx) => escrita(new Tarefas(trx as unknown as typeof db), new PausasNoBanco(trx))),
    descricao,
    fechar: () => db.destroy(),
  };
}
