/**
 * Where Tasks and their pauses live. By default in memory, bounded; with
 * TASKS_DB (a SQLite file or a postgres:// URL) in a database through the
 * SDK's DatabaseTaskStore, so a paused Task survives an agent restart and
 * several agents can share Tasks.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { InMemoryTaskStore, ResultManager, ServerCallContext, UnauthenticatedUser, type TaskStore } from '@a2a-js/sdk/server';
import { Task, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { Eventos } from './eventos.js';
import type { Encerrar } from './limites.js';
import { PausasEmMemoria, TERMINAIS, type Pausa, type Pausas } from './pausas.js';

export interface Armazenamento {
  readonly tarefas: TaskStore;
  readonly pausas: Pausas;
  readonly descricao: string;
}

export interface OpcoesDeArmazenamento {
  /** TASKS_DB: undefined for memory, a SQLite file path, or a postgres:// URL. */
  readonly banco: string | undefined;
  readonly maxTarefas: number;
}

const terminal = (task: Task) => task.status !== undefined && TERMINAIS.has(task.status.state);

/**
 * Tasks in memory, at most `maximo`: past it the least recently updated
 * finished Tasks are forgotten (GetTask then answers "not found"). Paused
 * and running Tasks are never dropped here; their number is capped apart.
 * Each Task is kept as its JSON text: a third of the memory of the object
 * graph, and a copy on every load, which a store must give anyway.
 */
export class TarefasEmMemoria implements TaskStore {
  private readonly porId = new Map<string, { texto: string; terminal: boolean }>();

  constructor(private readonly maximo: number) {}

  async load(taskId: string): Promise<Task | undefined> {
    const guardada = this.porId.get(taskId);
    return guardada && Task.fromJSON(JSON.parse(guardada.texto));
  }

  async save(task: Task): Promise<void> {
    this.porId.delete(task.id);
    this.porId.set(task.id, { texto: JSON.stringify(Task.toJSON(task)), terminal: terminal(task) });
    if (this.porId.size <= this.maximo) return;
    for (const [id, antiga] of this.porId) {
      if (this.porId.size <= this.maximo) break;
      if (antiga.terminal) this.porId.delete(id);
    }
  }

  /** ListTasks is rare: its exact semantics come from the SDK's own store, over a copy. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const copia = new InMemoryTaskStore();
    for (const id of this.porId.keys()) await copia.save((await this.load(id))!, context);
    return copia.list(params, context);
  }

  get tamanho(): number {
    return this.porId.size;
  }
}

interface TabelaDePausas {
  a2a_pausas: { task_id: string; criada_em: number | string; dados: string };
}

const TABELA = 'a2a_pausas';

/** Pauses in the same database as the Tasks, in a table no A2A response reads. */
export class PausasNoBanco implements Pausas {
  constructor(private readonly db: Kysely<TabelaDePausas>) {}

  static async criarTabela(db: Kysely<TabelaDePausas>): Promise<void> {
    await db.schema
      .createTable(TABELA)
      .ifNotExists()
      .addColumn('task_id', 'varchar(255)', (coluna) => coluna.primaryKey())
      .addColumn('criada_em', 'bigint', (coluna) => coluna.notNull())
      .addColumn('dados', 'text', (coluna) => coluna.notNull())
      .execute();
    await db.schema.createIndex(`${TABELA}_criada_em`).ifNotExists().on(TABELA).column('criada_em').execute();
  }

  async guardar(taskId: string, pausa: Pausa): Promise<void> {
    const linha = { task_id: taskId, criada_em: pausa.criadaEm, dados: JSON.stringify(pausa) };
    await this.db
      .insertInto(TABELA)
      .values(linha)
      .onConflict((conflito) => conflito.column('task_id').doUpdateSet({ criada_em: linha.criada_em, dados: linha.dados }))
      .execute();
  }

  async ler(taskId: string): Promise<Pausa | undefined> {
    const linha = await this.db.selectFrom(TABELA).select('dados').where('task_id', '=', taskId).executeTakeFirst();
    return linha && (JSON.parse(linha.dados) as Pausa);
  }

  async tomar(taskId: string): Promise<Pausa | undefined> {
    const linha = await this.db.deleteFrom(TABELA).where('task_id', '=', taskId).returning('dados').executeTakeFirst();
    return linha && (JSON.parse(linha.dados) as Pausa);
  }

  async apagar(taskId: string): Promise<void> {
    await this.db.deleteFrom(TABELA).where('task_id', '=', taskId).execute();
  }

  async ate(instante: number, limite: number): Promise<string[]> {
    const linhas = await this.db.selectFrom(TABELA).select('task_id').where('criada_em', '<=', instante).orderBy('criada_em').limit(limite).execute();
    return linhas.map((linha) => linha.task_id);
  }

  async maisAntigas(quantas: number): Promise<string[]> {
    const linhas = await this.db.selectFrom(TABELA).select('task_id').orderBy('criada_em').limit(quantas).execute();
    return linhas.map((linha) => linha.task_id);
  }

  async total(): Promise<number> {
    const { quantas } = await this.db.selectFrom(TABELA).select((eb) => eb.fn.countAll<number | string>().as('quantas')).executeTakeFirstOrThrow();
    return Number(quantas);
  }
}

const ehPostgres = (banco: string) => /^postgres(ql)?:\/\//.test(banco);

/** The SDK's own schema tool (`a2a-db upgrade`), run once at start: safe to repeat. */
async function migrar(urlDoBanco: string): Promise<void> {
  const cli = fileURLToPath(new URL('./cli/a2a_db.js', import.meta.resolve('@a2a-js/sdk/server/database').replace(/server\/database\/index\.js$/, '')));
  await new Promise<void>((resolver, rejeitar) => {
    const filho = spawn(process.execPath, [cli, 'upgrade', '--url', urlDoBanco], { stdio: ['ignore', 'ignore', 'pipe'] });
    let erro = '';
    filho.stderr.on('data', (parte: Buffer) => (erro += parte));
    filho.once('error', rejeitar);
    filho.once('exit', (codigo) => (codigo === 0 ? resolver() : rejeitar(new Error(`a2a-db upgrade falhou (${codigo}): ${erro.trim()}`))));
  });
}

async function abrirBanco(banco: string): Promise<Kysely<TabelaDePausas>> {
  if (ehPostgres(banco)) {
    await migrar(banco);
    const { default: pg } = await import('pg');
    return new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: banco, max: 10 }) }) });
  }
  await migrar(`sqlite:${banco}`);
  const { default: Sqlite } = await import('better-sqlite3');
  return new Kysely({ dialect: new SqliteDialect({ database: new Sqlite(banco) }) });
}

export async function abrirArmazenamento({ banco, maxTarefas }: OpcoesDeArmazenamento): Promise<Armazenamento> {
  if (!banco) {
    return { tarefas: new TarefasEmMemoria(maxTarefas), pausas: new PausasEmMemoria(), descricao: `memoria (ate ${maxTarefas} Tasks)` };
  }
  const db = await abrirBanco(banco);
  await PausasNoBanco.criarTabela(db);
  return {
    tarefas: new DatabaseTaskStore(db),
    pausas: new PausasNoBanco(db),
    descricao: ehPostgres(banco) ? `PostgreSQL (${new URL(banco).host})` : `SQLite (${banco})`,
  };
}

/** The context of the agent's own writes: the same (unauthenticated) owner as every A2A request. */
const contextoInterno = () => new ServerCallContext({ user: new UnauthenticatedUser() });

/** Ends a Task FAILED through the SDK's ResultManager, as an executor's status update would. */
export function encerradorDeTarefas(tarefas: TaskStore): Encerrar {
  return async (taskId, mensagem) => {
    const contexto = contextoInterno();
    const task = await tarefas.load(taskId, contexto);
    if (!task || terminal(task)) return;
    await new ResultManager(tarefas, contexto).processEvent(new Eventos(task.id, task.contextId).estado('TASK_STATE_FAILED', mensagem));
  };
}
