/**
 * The bookings schema, made or brought up to date by kysely's Migrator
 * over migrations written here (the server is bundled into one file: no
 * migration folder to read), each applied once per database and entered
 * in the ledger reservas_migracoes_kysely. Loaded only with RESERVAS_DB.
 *
 * Servers before this Migrator kept their own ledger, reservas_migracoes
 * (versao 1, 2, 3: the same three steps, same SQL). A migration here that
 * finds its version there skips its work, so a database of the old code
 * is entered in the new ledger as it stands: no table made twice, the
 * seed not loaded again, the id sequence not moved. The old ledger is
 * only read, and only while some migration is pending (once per
 * database); it is left in place, so an older server starting on the
 * database during an upgrade still finds everything applied.
 */
import type pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { numeroDaReserva, type Ocupacao } from '../dominio/regras.js';
import { instante } from './postgres.js';

/** Whether the old ledger says this version was applied; false on a database it never touched. */
async function jaAplicada(db: Kysely<unknown>, versao: number): Promise<boolean> {
  const { rows: livro } = await sql<{ existe: boolean }>`SELECT to_regclass('reservas_migracoes') IS NOT NULL AS existe`.execute(db);
  if (!livro[0]?.existe) return false;
  const { rows } = await sql`SELECT 1 FROM reservas_migracoes WHERE versao = ${versao}`.execute(db);
  return rows.length > 0;
}

/** The migration that was `versao` in the old ledger: skipped where that ledger says it ran. */
const versao = (numero: number, aplicar: (db: Kysely<unknown>) => Promise<unknown>): Migration => ({
  async up(db) {
    if (!(await jaAplicada(db, numero))) await aplicar(db);
  },
});

const migracoes = (semente: readonly Ocupacao[]): Record<string, Migration> => ({
  '0001_reservas_sem_sobreposicao': versao(1, async (db) => {
    await sql`CREATE EXTENSION IF NOT EXISTS btree_gist`.execute(db);
    await sql`CREATE SEQUENCE reservas_numero`.execute(db);
    await sql`
      CREATE TABLE reservas (
        numero bigint PRIMARY KEY DEFAULT nextval('reservas_numero'),
        sala text NOT NULL,
        inicio text NOT NULL,
        fim text NOT NULL,
        responsavel text NOT NULL,
        periodo tstzrange NOT NULL CHECK (NOT isempty(periodo)),
        criada_em timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT reservas_sem_sobreposicao EXCLUDE USING gist (sala WITH =, periodo WITH &&)
      )
    `.execute(db);
    await sql`ALTER SEQUENCE reservas_numero OWNED BY reservas.numero`.execute(db);
  }),
  '0002_semente': versao(2, async (db) => {
    const coluna = <T>(valor: (ocupacao: Ocupacao) => T) => semente.map(valor);
    await sql`
      INSERT INTO reservas (numero, sala, inicio, fim, responsavel, periodo)
      SELECT numero, sala, inicio, fim, responsavel, tstzrange(de, ate, '[)')
      FROM unnest(
        ${coluna((o) => numeroDaReserva(o.reserva.id))}::bigint[], ${coluna((o) => o.reserva.sala)}::text[],
        ${coluna((o) => o.reserva.inicio)}::text[], ${coluna((o) => o.reserva.fim)}::text[],
        ${coluna((o) => o.reserva.responsavel)}::text[], ${coluna((o) => instante(o.inicio))}::timestamptz[],
        ${coluna((o) => instante(o.fim))}::timestamptz[]
      ) AS semente(numero, sala, inicio, fim, responsavel, de, ate)
    `.execute(db);
    // New ids continue after the highest one of the file.
    await sql`SELECT setval('reservas_numero', max(numero)) FROM reservas HAVING max(numero) IS NOT NULL`.execute(db);
  }),
  // NULLs never collide in a UNIQUE column: the bookings without a key are unaffected.
  '0003_chave_de_idempotencia': versao(3, (db) => sql`ALTER TABLE reservas ADD COLUMN chave text UNIQUE`.execute(db)),
});

/**
 * Applies what is missing, through `pool`. kysely holds a session
 * advisory lock for the whole run (one key for every Migrator on the
 * database) and migrates in one transaction: of several servers starting
 * at once, one migrates and seeds, the others wait and then find the
 * ledger full. The Kysely is only a view of the pool: closing the pool
 * stays its owner's job.
 */
export async function migrar(pool: pg.Pool, semente: readonly Ocupacao[]): Promise<void> {
  const { error: erro, results: resultados } = await new Migrator({
    db: new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) }),
    provider: { getMigrations: () => Promise.resolve(migracoes(semente)) },
    migrationTableName: 'reservas_migracoes_kysely',
    migrationLockTableName: 'reservas_migracoes_kysely_lock',
  }).migrateToLatest();
  if (erro === undefined) return;
  const falhou = resultados?.find((resultado) => resultado.status === 'Error')?.migrationName;
  const mensagem = erro instanceof Error ? erro.message : JSON.stringify(erro);
  throw new Error(falhou ? `migracao ${falhou}: ${mensagem}` : mensagem, { cause: erro });
}
