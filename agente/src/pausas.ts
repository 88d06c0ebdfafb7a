/**
 * Where a paused Task keeps what MCP needs to continue. It lives beside the
 * Task, never inside it: nothing here may appear in an A2A response. One
 * interface, two engines side by side (memory; SQL through kysely, for
 * SQLite and PostgreSQL), one contract test for all.
 */
import type { Kysely } from 'kysely';
import { conforme } from 'compartilhado/contrato';
import * as z from 'zod';
import type { Dono } from './escopo.js';
import type { Trace } from './trace.js';

export interface Pausa {
  readonly ferramenta: string;
  readonly argumentos: Record<string, unknown>;
  /** The inputRequests key the server chose; the answer goes back under it. */
  readonly chave: string;
  /** Opaque: stored and echoed byte for byte, never opened. */
  readonly requestState: string;
  readonly alternativas: readonly string[];
  /** The Task's trace, for a continuation that brings no traceparent of its own. */
  readonly trace: Trace;
  /** Whose Task it is, for the sweep that ends it (absent from pauses stored before owners were kept). */
  readonly dono?: Dono;
  /** When the MCP server asked (epoch ms): a pause lives as long as its requestState. */
  readonly criadaEm: number;
}

/** What a store gives back is checked, not trusted: it was written by some process, some time ago. */
const PausaGuardada: z.ZodType<Pausa> = z.object({
  ferramenta: z.string(),
  argumentos: z.record(z.string(), z.unknown()),
  chave: z.string(),
  requestState: z.string(),
  alternativas: z.array(z.string()),
  trace: z.object({ traceId: z.string(), flags: z.string() }),
  dono: z.object({ tenant: z.string(), usuario: z.string() }).optional(),
  criadaEm: z.number(),
});

const lerPausa = (texto: string): Pausa => conforme(PausaGuardada, JSON.parse(texto), 'a pausa guardada');

/** One pause per paused Task, in age order (criadaEm). */
export interface Pausas {
  /**
   * Keeps the Task's pause, replacing any. Its place in age order is its
   * criadaEm, so a pause taken and put back keeps the place it had.
   */
  guardar(taskId: string, pausa: Pausa): Promise<void>;
  /** Reads and removes in one step: of two callers racing for one pause, only one gets it. */
  tomar(taskId: string): Promise<Pausa | undefined>;
  apagar(taskId: string): Promise<void>;
  /** Ids of the pauses created at or before `instante`, oldest first, at most `limite`. */
  ate(instante: number, limite: number): Promise<string[]>;
  total(): Promise<number>;
}

/**
 * In memory, a Map in age order. New pauses are the youngest and go at the
 * end; one put back with an older age (rare: an answer that was not one of
 * the options) is slotted back where it was.
 */
export class PausasEmMemoria implements Pausas {
  /** The pause as JSON text (half the memory of the object) beside the age the sweep reads. */
  private porTask = new Map<string, { texto: string; criadaEm: number }>();
  /** No pause in the Map is younger than this. */
  private maisNova = Number.NEGATIVE_INFINITY;

  guardar(taskId: string, pausa: Pausa): Promise<void> {
    this.porTask.delete(taskId);
    const guardada = { texto: JSON.stringify(pausa), criadaEm: pausa.criadaEm };
    if (pausa.criadaEm >= this.maisNova) {
      this.porTask.set(taskId, guardada);
      this.maisNova = pausa.criadaEm;
    } else {
      const emOrdem = new Map<string, { texto: string; criadaEm: number }>();
      for (const [id, outra] of this.porTask) {
        if (!emOrdem.has(taskId) && outra.criadaEm > pausa.criadaEm) emOrdem.set(taskId, guardada);
        emOrdem.set(id, outra);
      }
      emOrdem.set(taskId, guardada);
      this.porTask = emOrdem;
    }
    return Promise.resolve();
  }

  tomar(taskId: string): Promise<Pausa | undefined> {
    // Read and delete in the same synchronous step: that is what makes it atomic here.
    const guardada = this.porTask.get(taskId);
    this.porTask.delete(taskId);
    return Promise.resolve(guardada && lerPausa(guardada.texto));
  }

  apagar(taskId: string): Promise<void> {
    this.porTask.delete(taskId);
    return Promise.resolve();
  }

  ate(instante: number, limite: number): Promise<string[]> {
    const ids: string[] = [];
    for (const [taskId, pausa] of this.porTask) {
      if (pausa.criadaEm > instante || ids.length >= limite) break;
      ids.push(taskId);
    }
    return Promise.resolve(ids);
  }

  total(): Promise<number> {
    return Promise.resolve(this.porTask.size);
  }
}

export interface TabelaDePausas {
  a2a_pausas: { task_id: string; criada_em: number | string; dados: string };
}

const TABELA = 'a2a_pausas';

/** Pauses in the same database as the Tasks, in a table no A2A response reads. */
export class PausasNoBanco implements Pausas {
  constructor(private readonly db: Kysely<TabelaDePausas>) {}

  /** Creates the table once; agents starting together on PostgreSQL take turns through an advisory lock. */
  static async criarTabela(db: Kysely<TabelaDePausas>, postgres: boolean): Promise<void> {
    // kysely is loaded only by agents that use a database (a faster start for those that do not).
    const { sql } = await import('kysely');
    await db.transaction().execute(async (trx) => {
      if (postgres) await sql`SELECT pg_advisory_xact_lock(hashtext('a-ponte/agente/a2a_pausas'))`.execute(trx);
      await trx.schema
        .createTable(TABELA)
        .ifNotExists()
        .addColumn('task_id', 'varchar(255)', (coluna) => coluna.primaryKey())
        .addColumn('criada_em', 'bigint', (coluna) => coluna.notNull())
        .addColumn('dados', 'text', (coluna) => coluna.notNull())
        .execute();
      await trx.schema.createIndex(`${TABELA}_criada_em`).ifNotExists().on(TABELA).column('criada_em').execute();
    });
  }

  async guardar(taskId: string, pausa: Pausa): Promise<void> {
    const linha = { task_id: taskId, criada_em: pausa.criadaEm, dados: JSON.stringify(pausa) };
    await this.db
      .insertInto(TABELA)
      .values(linha)
      .onConflict((conflito) => conflito.column('task_id').doUpdateSet({ criada_em: linha.criada_em, dados: linha.dados }))
      .execute();
  }

  async tomar(taskId: string): Promise<Pausa | undefined> {
    const linha = await this.db.deleteFrom(TABELA).where('task_id', '=', taskId).returning('dados').executeTakeFirst();
    return linha && lerPausa(linha.dados);
  }

  async apagar(taskId: string): Promise<void> {
    await this.db.deleteFrom(TABELA).where('task_id', '=', taskId).execute();
  }

  async ate(instante: number, limite: number): Promise<string[]> {
    const linhas = await this.db
      .selectFrom(TABELA)
      .select('task_id')
      .where('criada_em', '<=', instante)
      .orderBy('criada_em')
      .limit(limite)
      .execute();
    return linhas.map((linha) => linha.task_id);
  }

  async total(): Promise<number> {
    const { quantas } = await this.db
      .selectFrom(TABELA)
      .select((eb) => eb.fn.countAll<number | string>().as('quantas'))
      .executeTakeFirstOrThrow();
    return Number(quantas);
  }
}
