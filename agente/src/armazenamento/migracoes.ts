/**
 * The database's schema, made or brought up to date when the agent opens
 * it, by kysely's Migrator: the SDK's tables (tasks, push_notification_configs)
 * by the SDK's own tool, which runs it over the migrations the SDK ships;
 * ours (a2a_pausas, a2a_eventos, and the webhook id's width) here, over migrations written in this file, because the
 * agent is bundled into one file and has no migration folder to read.
 * Loaded only by an agent with TASKS_DB, as kysely is.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { urlSemSenha } from 'compartilhado/ambiente';
import { LIMITES_DO_WEBHOOK } from '../push/cadastro.js';
import type { TabelaDePausas } from './pausas.js';

/**
 * The SDK's own schema tool (`a2a-db upgrade`), run once at start: safe to
 * repeat. The URL goes by environment, not argv (where `ps` would show a
 * password); a failure is told in one line, without it.
 */
export async function migrarTabelasDoSdk(urlDoBanco: string): Promise<void> {
  const cli = fileURLToPath(
    new URL('./cli/a2a_db.js', import.meta.resolve('@a2a-js/sdk/server/database').replace(/server\/database\/index\.js$/, '')),
  );
  await new Promise<void>((resolver, rejeitar) => {
    const filho = spawn(process.execPath, [cli, 'upgrade'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DATABASE_URL: urlDoBanco },
    });
    let erro = '';
    filho.stderr.on('data', (parte: Buffer) => {
      erro += parte.toString();
    });
    filho.once('error', rejeitar);
    filho.once('exit', (codigo) => {
      if (codigo === 0) {
        resolver();
        return;
      }
      const [primeira = ''] = erro.trim().split('\n', 1);
      rejeitar(
        new Error(
          `TASKS_DB: nao consegui preparar o banco em ${urlSemSenha(urlDoBanco)} (a2a-db upgrade: ${primeira.replaceAll(urlDoBanco, urlSemSenha(urlDoBanco))})`,
        ),
      );
    });
  });
}

const PAUSAS = 'a2a_pausas';
const EVENTOS = 'a2a_eventos';

/**
 * Both engines' columns exist whatever made the table: an agent before
 * this Migrator (PausasNoBanco.criarTabela, which kept no ledger) made the
 * same table, at first without the claim columns. So each migration is
 * written to find its work possibly done: the table and indexes IF NOT
 * EXISTS, a column only if missing. A database of the old code is then
 * taken as it is, rows untouched, and entered in the ledger; nothing old
 * is read or dropped. On SQLite kysely runs migrations outside a
 * transaction (it has no transactional DDL there): an agent killed
 * half-way finds its work done the same way at the next start.
 */
const migracoes = (motor: Motor): Readonly<Record<string, Migration>> => ({
  '0001_a2a_pausas': {
    async up(db) {
      await db.schema
        .createTable(PAUSAS)
        .ifNotExists()
        .addColumn('task_id', 'varchar(255)', (coluna) => coluna.primaryKey())
        .addColumn('criada_em', 'bigint', (coluna) => coluna.notNull())
        .addColumn('dados', 'text', (coluna) => coluna.notNull())
        .execute();
      await db.schema.createIndex(`${PAUSAS}_criada_em`).ifNotExists().on(PAUSAS).column('criada_em').execute();
    },
  },
  '0002_a2a_pausas_reivindicacao': {
    async up(db) {
      const [tabela] = (await db.introspection.getTables()).filter((t) => t.name === PAUSAS);
      const colunas = new Set(tabela?.columns.map((coluna) => coluna.name));
      if (!colunas.has('reivindicada_ate')) await db.schema.alterTable(PAUSAS).addColumn('reivindicada_ate', 'bigint').execute();
      if (!colunas.has('reivindicacao')) await db.schema.alterTable(PAUSAS).addColumn('reivindicacao', 'text').execute();
      await db.schema.createIndex(`${PAUSAS}_reivindicada_ate`).ifNotExists().on(PAUSAS).column('reivindicada_ate').execute();
    },
  },
  // The SDK's table holds a webhook's id in 36 characters, a UUID's; A2A sets no
  // length, and clients name their configs. PostgreSQL widens the column in place
  // (no rewrite, same collation); SQLite never enforced the length.
  '0003_push_config_id_longo': {
    async up(db) {
      const sdk = (await db.introspection.getTables()).some((tabela) => tabela.name === 'push_notification_configs');
      if (motor !== 'postgres' || !sdk) return;
      await sql`alter table push_notification_configs alter column config_id type ${sql.raw(`varchar(${String(LIMITES_DO_WEBHOOK.id)})`)} collate "C"`.execute(
        db,
      );
    },
  },
  // Each Task's events for its subscribers (diario.ts): a table of its own, so a database of older code only gains it.
  '0004_a2a_eventos': {
    async up(db) {
      await db.schema
        .createTable(EVENTOS)
        .ifNotExists()
        .addColumn('task_id', 'varchar(255)', (coluna) => coluna.notNull())
        .addColumn('seq', 'bigint', (coluna) => coluna.notNull())
        .addColumn('escopo', 'text', (coluna) => coluna.notNull())
        .addColumn('evento', 'text', (coluna) => coluna.notNull())
        .addPrimaryKeyConstraint(`${EVENTOS}_pk`, ['task_id', 'seq'])
        .execute();
    },
  },
});

export type Motor = 'postgres' | 'sqlite';

/**
 * Applies what the ledger (a2a_pausas_migracoes, named for its first
 * table; it also keeps a2a_eventos) lacks. On PostgreSQL
 * kysely holds a session advisory lock for the whole run, one key for
 * every Migrator on the database, and migrates in one transaction: of
 * agents starting together, one migrates, the others wait and then find
 * the ledger full. On SQLite it takes no lock: a file serves one agent.
 * The lock table is the one the SDK's tool makes, so no other is added.
 */
export async function migrarTabelasDaPonte<Tabelas extends TabelaDePausas>(db: Kysely<Tabelas>, motor: Motor): Promise<void> {
  const { error: erro, results: resultados } = await new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migracoes(motor)) },
    migrationTableName: `${PAUSAS}_migracoes`,
    migrationLockTableName: 'a2a_migrations_lock',
  }).migrateToLatest();
  if (erro === undefined) return;
  const falhou = resultados?.find((resultado) => resultado.status === 'Error')?.migrationName;
  const mensagem = erro instanceof Error ? erro.message : JSON.stringify(erro);
  throw new Error(`TASKS_DB: nao consegui preparar a tabela ${PAUSAS}${falhou ? ` (migracao ${falhou})` : ''}: ${mensagem}`, {
    cause: erro,
  });
}
