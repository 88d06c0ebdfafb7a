/**
 * Each Task's events as its subscribers read them: every change a save
 * makes to a Task (see mudancas.ts), in the A2A JSON form of a
 * StreamResponse, under a sequence of its own (1, 2, 3...) that is the SSE
 * event id. Written in the same transaction as the Task state it reflects,
 * so a subscriber on any agent reads exactly what is stored, in order.
 * Bounded: a Task keeps its last MAXIMO_POR_TASK events; in memory, only
 * the TASKS_COM_EVENTOS_NA_MEMORIA Tasks with the latest events keep theirs
 * (every Task its count, so numbers never repeat), and all goes with the
 * Task when the store forgets it. One interface, two engines side
 * by side (memory; SQL through kysely, for SQLite and PostgreSQL), one
 * contract test for all.
 */
import { StreamResponse } from '@a2a-js/sdk';
import { sql, type Kysely } from 'kysely';

/** How many events a Task keeps: a reconnect further behind than this gets the Task as it is (see Atendimento.resubscribe). */
export const MAXIMO_POR_TASK = 100;

/**
 * In memory, how many Tasks keep their events: those with the latest ones.
 * The events would otherwise more than double the memory of each Task
 * kept (4.1 KiB against 1.6 for a booking); an older Task's reconnect gets
 * the Task as it is.
 */
export const TASKS_COM_EVENTOS_NA_MEMORIA = 1000;

/** The PostgreSQL channel a committed event is announced on, its payload the Task id. */
export const CANAL_DE_EVENTOS = 'a2a_eventos';

export interface Anotado {
  readonly seq: number;
  readonly evento: StreamResponse;
}

/** The sequences a Task still keeps: the oldest and the newest; primeira is ultima + 1 when it keeps none. */
export interface Extremos {
  readonly primeira: number;
  readonly ultima: number;
}

export interface Diario {
  /**
   * Holds the Task's log for the rest of the transaction, before the save
   * reads the Task it changes: two saves of one Task (a step whose turn was
   * lost with its connection goes on; see exclusao.ts) then number their
   * events one after the other instead of both taking the same next number
   * and one failing whole.
   */
  ocupar(taskId: string): Promise<void>;
  /**
   * Appends `eventos` after the Task's last, filed under `escopo`, and drops
   * what falls past the bound. Answers the Task's last sequence, 0 when it
   * has none (also when `eventos` is empty: where a subscriber stands now).
   */
  anotar(taskId: string, escopo: string, eventos: readonly StreamResponse[]): Promise<number>;
  /** The Task's events after `depoisDe`, oldest first, at most `limite`; none of another scope's. */
  ler(taskId: string, escopo: string, depoisDe: number, limite: number): Promise<Anotado[]>;
  /** Where the Task's events stand, undefined when it never had any (or not under `escopo`). */
  extremos(taskId: string, escopo: string): Promise<Extremos | undefined>;
}

const lerEvento = (texto: string): StreamResponse => StreamResponse.fromJSON(JSON.parse(texto));
const textoDe = (evento: StreamResponse) => JSON.stringify(StreamResponse.toJSON(evento));

interface DaTask {
  readonly escopo: string;
  /** The sequence of textos[0]. */
  primeira: number;
  readonly textos: string[];
}

export class DiarioEmMemoria implements Diario {
  private readonly porTask = new Map<string, DaTask>();
  /** The Tasks that keep their events, the one appended to longest ago first. */
  private readonly comEventos = new Map<string, DaTask>();

  constructor(private readonly maximoDeTasks = TASKS_COM_EVENTOS_NA_MEMORIA) {}

  /** One process, and its saves of a Task run one at a time (no await between its read and its append). */
  ocupar(): Promise<void> {
    return Promise.resolve();
  }

  anotar(taskId: string, escopo: string, eventos: readonly StreamResponse[]): Promise<number> {
    const daTask = this.porTask.get(taskId) ?? { escopo, primeira: 1, textos: [] };
    this.porTask.set(taskId, daTask);
    if (eventos.length > 0) {
      daTask.textos.push(...eventos.map(textoDe));
      this.comEventos.delete(taskId);
      this.comEventos.set(taskId, daTask);
    }
    descartar(daTask, daTask.textos.length - MAXIMO_POR_TASK);
    for (const [antigaId, antiga] of this.comEventos) {
      if (this.comEventos.size <= this.maximoDeTasks) break;
      descartar(antiga, antiga.textos.length);
      this.comEventos.delete(antigaId);
    }
    return Promise.resolve(daTask.primeira + daTask.textos.length - 1);
  }

  ler(taskId: string, escopo: string, depoisDe: number, limite: number): Promise<Anotado[]> {
    const daTask = this.daTask(taskId, escopo);
    if (!daTask) return Promise.resolve([]);
    const inicio = Math.max(0, depoisDe + 1 - daTask.primeira);
    return Promise.resolve(
      daTask.textos.slice(inicio, inicio + limite).map((texto, i) => ({ seq: daTask.primeira + inicio + i, evento: lerEvento(texto) })),
    );
  }

  extremos(taskId: string, escopo: string): Promise<Extremos | undefined> {
    const daTask = this.daTask(taskId, escopo);
    const ultima = daTask && daTask.primeira + daTask.textos.length - 1;
    return Promise.resolve(daTask && ultima !== undefined && ultima > 0 ? { primeira: daTask.primeira, ultima } : undefined);
  }

  /** The Task is gone from memory: its events go too. */
  esquecer(taskId: string): void {
    this.porTask.delete(taskId);
    this.comEventos.delete(taskId);
  }

  private daTask(taskId: string, escopo: string): DaTask | undefined {
    const daTask = this.porTask.get(taskId);
    return daTask?.escopo === escopo ? daTask : undefined;
  }
}

/** Drops the Task's `quantos` oldest events; their numbers are not given again. */
function descartar(daTask: DaTask, quantos: number): void {
  if (quantos <= 0) return;
  daTask.textos.splice(0, quantos);
  daTask.primeira += quantos;
}

export interface TabelaDeEventos {
  a2a_eventos: {
    task_id: string;
    seq: number | string;
    escopo: string;
    evento: string;
  };
}

const TABELA = 'a2a_eventos';

/** Events in the same database as the Tasks; on PostgreSQL each append is announced on CANAL_DE_EVENTOS when it commits. */
export class DiarioNoBanco implements Diario {
  constructor(
    /** A database or one transaction of it (kysely types the two apart). */
    private readonly db: Pick<Kysely<TabelaDeEventos>, 'selectFrom' | 'insertInto' | 'deleteFrom' | 'getExecutor'>,
    /** PostgreSQL: appends announced with NOTIFY, saves of one Task held apart by an advisory lock. */
    private readonly noPostgres: boolean,
  ) {}

  /**
   * On PostgreSQL a transaction-scoped advisory lock of its own key (seed 1:
   * the turn's lock, exclusao.ts, is seed 0 and is held by the turn while it
   * saves, so the same key would wait on itself). SQLite has one writer.
   */
  async ocupar(taskId: string): Promise<void> {
    if (this.noPostgres) await sql`select pg_advisory_xact_lock(hashtextextended(${taskId}, 1))`.execute(this.db);
  }

  async anotar(taskId: string, escopo: string, eventos: readonly StreamResponse[]): Promise<number> {
    const { ultima } = await this.db
      .selectFrom(TABELA)
      .select((eb) => eb.fn.max<number | string | null>('seq').as('ultima'))
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();
    const antes = Number(ultima ?? 0);
    if (eventos.length === 0) return antes;
    const agora = antes + eventos.length;
    await this.db
      .insertInto(TABELA)
      .values(eventos.map((evento, i) => ({ task_id: taskId, seq: antes + i + 1, escopo, evento: textoDe(evento) })))
      .execute();
    if (agora > MAXIMO_POR_TASK)
      await this.db
        .deleteFrom(TABELA)
        .where('task_id', '=', taskId)
        .where('seq', '<=', agora - MAXIMO_POR_TASK)
        .execute();
    // Delivered by PostgreSQL when the transaction commits, never before, and not at all if it rolls back.
    if (this.noPostgres) await sql`select pg_notify(${CANAL_DE_EVENTOS}, ${taskId})`.execute(this.db);
    return agora;
  }

  async ler(taskId: string, escopo: string, depoisDe: number, limite: number): Promise<Anotado[]> {
    const linhas = await this.db
      .selectFrom(TABELA)
      .select(['seq', 'evento'])
      .where('task_id', '=', taskId)
      .where('escopo', '=', escopo)
      .where('seq', '>', depoisDe)
      .orderBy('seq')
      .limit(limite)
      .execute();
    return linhas.map((linha) => ({ seq: Number(linha.seq), evento: lerEvento(linha.evento) }));
  }

  async extremos(taskId: string, escopo: string): Promise<Extremos | undefined> {
    const linha = await this.db
      .selectFrom(TABELA)
      .select((eb) => [eb.fn.min<number | string | null>('seq').as('primeira'), eb.fn.max<number | string | null>('seq').as('ultima')])
      .where('task_id', '=', taskId)
      .where('escopo', '=', escopo)
      .executeTakeFirstOrThrow();
    return linha.primeira === null || linha.ultima === null
      ? undefined
      : { primeira: Number(linha.primeira), ultima: Number(linha.ultima) };
  }
}
