/**
 * Where Tasks, their pauses and their turns live. By default in memory,
 * bounded; with TASKS_DB (a SQLite file or a postgres:// URL) in a database
 * through the SDK's DatabaseTaskStore, so a paused Task survives an agent
 * restart, and on PostgreSQL several agents share Tasks and take turns.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { InMemoryTaskStore, ResultManager, ServerCallContext, UnauthenticatedUser, type TaskStore } from '@a2a-js/sdk/server';
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { urlSemSenha } from 'compartilhado/ambiente';
import { BancoIndisponivel, noBanco } from './banco.js';
import { Eventos } from './eventos.js';
import { ExclusaoLocal, ExclusaoNoPostgres, type Exclusao } from './exclusao.js';
import type { Encerrar } from './limites.js';
import { PausasEmMemoria, PausasNoBanco, type Pausas, type TabelaDePausas } from './pausas.js';

export interface Armazenamento {
  readonly tarefas: TaskStore;
  readonly pausas: Pausas;
  readonly exclusao: Exclusao;
  readonly descricao: string;
}

export interface OpcoesDeArmazenamento {
  /** TASKS_DB: undefined for memory, a SQLite file path, or a postgres:// URL. */
  readonly banco: string | undefined;
  readonly maxTarefas: number;
  /** A connection the database dropped while idle (the agent keeps serving; the next query opens another). */
  readonly aoPerderConexao: (erro: Error) => void;
}

export const TERMINAIS: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
]);

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

  load(taskId: string): Promise<Task | undefined> {
    return Promise.resolve(this.ler(taskId));
  }

  save(task: Task): Promise<void> {
    this.porId.delete(task.id);
    this.porId.set(task.id, { texto: JSON.stringify(Task.toJSON(task)), terminal: terminal(task) });
    for (const [id, antiga] of this.porId) {
      if (this.porId.size <= this.maximo) break;
      if (antiga.terminal) this.porId.delete(id);
    }
    return Promise.resolve();
  }

  /** ListTasks is rare: its exact semantics come from the SDK's own store, over a copy. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const copia = new InMemoryTaskStore();
    for (const id of this.porId.keys()) {
      const task = this.ler(id);
      if (task) await copia.save(task, context);
    }
    return copia.list(params, context);
  }

  /** A copy, never the stored object: Task.fromJSON builds a new one from the text. */
  private ler(taskId: string): Task | undefined {
    const guardada = this.porId.get(taskId);
    return guardada && Task.fromJSON(JSON.parse(guardada.texto));
  }

  get tamanho(): number {
    return this.porId.size;
  }
}

/** Waits for one state of one Task to be stored. */
interface Espera {
  readonly estado: TaskState;
  readonly terminar: (erro?: Error) => void;
}

/**
 * The Task store as the SDK sees it, telling who waits that a state is
 * stored (or could not be): the SDK stores events some time after the
 * executor publishes them, and the bridge must know a Task is on record
 * before it asks MCP for anything, and before its turn ends.
 */
export class TarefasDaPonte implements TaskStore {
  private readonly esperas = new Map<string, Espera[]>();

  constructor(private readonly tarefas: TaskStore) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    try {
      await noBanco(this.tarefas.save(task, context));
    } catch (erro) {
      for (const espera of this.esperas.get(task.id) ?? []) espera.terminar(erro as Error);
      throw erro;
    }
    for (const espera of this.esperas.get(task.id) ?? []) if (espera.estado === task.status?.state) espera.terminar();
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return noBanco(this.tarefas.load(taskId, context));
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return noBanco(this.tarefas.list(params, context));
  }

  /**
   * Resolves once `estado` is stored for the Task; rejects if a save of the
   * Task fails, or if nothing is stored within `prazoMs` (a lost event must
   * not hold anyone forever).
   */
  gravado(taskId: string, estado: TaskState, prazoMs = 10_000): Promise<void> {
    return new Promise((resolver, rejeitar) => {
      const relogio = setTimeout(() => espera.terminar(new BancoIndisponivel(new Error(`estado nao gravado em ${prazoMs} ms`))), prazoMs);
      relogio.unref();
      const espera: Espera = {
        estado,
        terminar: (erro) => {
          clearTimeout(relogio);
          const restantes = (this.esperas.get(taskId) ?? []).filter((outra) => outra !== espera);
          if (restantes.length > 0) this.esperas.set(taskId, restantes);
          else this.esperas.delete(taskId);
          if (erro) rejeitar(erro);
          else resolver();
        },
      };
      this.esperas.set(taskId, [...(this.esperas.get(taskId) ?? []), espera]);
    });
  }
}

const ehPostgres = (banco: string) => /^postgres(ql)?:\/\//.test(banco);

/**
 * The SDK's own schema tool (`a2a-db upgrade`), run once at start: safe to
 * repeat. The URL goes by environment, not argv (where `ps` would show a
 * password); a failure is told in one line, without it.
 */
async function migrar(urlDoBanco: string): Promise<void> {
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

export async function abrirArmazenamento({ banco, maxTarefas, aoPerderConexao }: OpcoesDeArmazenamento): Promise<Armazenamento> {
  if (!banco) {
    return {
      tarefas: new TarefasEmMemoria(maxTarefas),
      pausas: new PausasEmMemoria(),
      exclusao: new ExclusaoLocal(),
      descricao: `memoria (ate ${maxTarefas} Tasks)`,
    };
  }
  // The database code is loaded only when a database is asked for: an agent in memory starts without it.
  const [{ DatabaseTaskStore }, { Kysely, PostgresDialect, SqliteDialect }] = await Promise.all([
    import('@a2a-js/sdk/server/database'),
    import('kysely'),
  ]);
  if (ehPostgres(banco)) {
    await migrar(banco);
    const { default: pg } = await import('pg');
    const pool = (max: number) =>
      new pg.Pool({ connectionString: banco, max, connectionTimeoutMillis: 5000, application_name: 'agente' }).on('error', aoPerderConexao);
    const db = new Kysely<TabelaDePausas>({ dialect: new PostgresDialect({ pool: pool(10) }) });
    await PausasNoBanco.criarTabela(db, true);
    return {
      tarefas: new DatabaseTaskStore(db),
      pausas: new PausasNoBanco(db),
      // Its own connections: a turn's holder then never waits for one that another holder keeps.
      exclusao: new ExclusaoNoPostgres(pool(20)),
      descricao: `PostgreSQL (${urlSemSenha(banco)})`,
    };
  }
  await migrar(`sqlite:${banco}`);
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Kysely<TabelaDePausas>({ dialect: new SqliteDialect({ database: new Sqlite(banco) }) });
  await PausasNoBanco.criarTabela(db, false);
  // A SQLite file serves one agent: turns are taken in this process only.
  return {
    tarefas: new DatabaseTaskStore(db),
    pausas: new PausasNoBanco(db),
    exclusao: new ExclusaoLocal(),
    descricao: `SQLite (${banco})`,
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
    await new ResultManager(tarefas, contexto).processEvent(
      new Eventos(task.id, task.contextId).estado(TaskState.TASK_STATE_FAILED, mensagem),
    );
  };
}
