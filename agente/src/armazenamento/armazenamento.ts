/**
 * Where Tasks, their pauses and their turns live. By default in memory,
 * bounded; with TASKS_DB (a SQLite file or a postgres:// URL) in a database
 * through the SDK's DatabaseTaskStore, so a paused Task survives an agent
 * restart, and on PostgreSQL several agents share Tasks and take turns.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  ResultManager,
  type AgentExecutionEvent,
  type ServerCallContext,
  type PushNotificationSender,
  type PushNotificationStore,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { DatabasePushNotificationStore, DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { Kysely } from 'kysely';
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { urlSemSenha } from 'compartilhado/ambiente';
import { lerJson } from 'compartilhado/json';
import { objeto } from 'compartilhado/log';
import { BancoIndisponivel, noBanco } from './banco.js';
import { contextoDe, ESCOPO_ANONIMO, escopoDe, type Dono } from '../a2a/escopo.js';
import { avisoDeEstado, Eventos } from '../a2a/eventos.js';
import { ExclusaoLocal, ExclusaoNoPostgres, type Exclusao } from './exclusao.js';
import { PausasEmMemoria, PausasNoBanco, type Pausas, type TabelaDePausas } from './pausas.js';
import { WebhooksEmMemoria, WebhooksNoBanco } from '../push/webhooks.js';

/** What is written to a Task's open step together with one of its states. */
export type Junto = (pausas: Pausas) => Promise<void>;

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

export const TERMINAIS: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
]);

const terminal = (task: Task) => task.status !== undefined && TERMINAIS.has(task.status.state);

/** A place in ListTasks order: newest status time first, then id descending, as DatabaseTaskStore orders. */
interface Posicao {
  /** The status timestamp in ms, 0 when absent or unreadable (the SDK's `status_last_updated`). */
  readonly instante: number;
  readonly id: string;
}

/** One stored Task: its JSON text, and beside it what ListTasks filters and orders on, so a list parses only its page. */
interface Guardada extends Posicao {
  readonly escopo: string;
  readonly contextId: string;
  readonly estado: TaskState | undefined;
  readonly terminal: boolean;
  readonly texto: string;
  /** History ended with the status message itself, kept in the text once: see textoDe. */
  readonly statusNoHistorico: boolean;
}

/** The messages of a Task in its JSON form: history, and the status message. */
function mensagensDe(json: Record<string, unknown> | undefined) {
  const historico: unknown[] = Array.isArray(json?.history) ? json.history : [];
  return [...historico, objeto(json?.status)?.message].map(objeto);
}

/**
 * A Task as stored text, written smaller than its JSON in two exact ways.
 * The SDK copies each status message into history as well: when history
 * ends with that same message (same JSON), the text keeps it once. And a
 * message's taskId and contextId equal to the Task's own are written "", a
 * value Task.toJSON never writes (it leaves empty strings out). lerTarefa
 * undoes both.
 */
function textoDe(task: Task): Pick<Guardada, 'texto' | 'statusNoHistorico'> {
  const json = objeto(Task.toJSON(task));
  const historico = json?.history;
  const mensagem = objeto(json?.status)?.message;
  const statusNoHistorico =
    Array.isArray(historico) && mensagem !== undefined && JSON.stringify(historico.at(-1)) === JSON.stringify(mensagem);
  if (statusNoHistorico) historico.pop();
  for (const daTarefa of mensagensDe(json)) {
    if (daTarefa?.taskId === task.id) daTarefa.taskId = '';
    if (daTarefa?.contextId === task.contextId) daTarefa.contextId = '';
  }
  return { texto: JSON.stringify(json), statusNoHistorico };
}

/** A copy, never the stored object: Task.fromJSON builds a new one from the text. */
function lerTarefa({ texto, statusNoHistorico }: Guardada): Task {
  const json = objeto(JSON.parse(texto));
  for (const daTarefa of mensagensDe(json)) {
    if (daTarefa?.taskId === '') daTarefa.taskId = json?.id;
    if (daTarefa?.contextId === '') daTarefa.contextId = json?.contextId;
  }
  if (statusNoHistorico && Array.isArray(json?.history)) json.history.push(objeto(json.status)?.message);
  return Task.fromJSON(json);
}

/**
 * A Task's key in the store. The anonymous scope, by far the commonest,
 * files a Task under its bare id, the very string Guardada keeps, so no
 * second copy; any other scope under JSON `[escopo, id]`, which starts with
 * `[` as no bare key does: no pair collides with another.
 */
const chaveDe = (escopo: string, id: string) => (escopo === ESCOPO_ANONIMO && !id.startsWith('[') ? id : JSON.stringify([escopo, id]));

/** The SDK's default page size; its request handler always fills pageSize in before asking a store. */
const PAGINA_PADRAO = 50;

/** Before the first Task: a list without pageToken starts here. */
const INICIO: Posicao = { instante: Infinity, id: '' };

const instanteDe = (task: Task) => {
  const instante = task.status?.timestamp ? Date.parse(task.status.timestamp) : 0;
  return Number.isNaN(instante) ? 0 : instante;
};

/**
 * Whether `a` comes before `b` in ListTasks order. Ids compare by UTF-16
 * code unit, the byte order of the SDK's `collate "C"` / binary columns for
 * every id short of astral characters (the SDK makes ids as UUIDs).
 */
const antes = (a: Posicao, b: Posicao) => a.instante > b.instante || (a.instante === b.instante && a.id > b.id);

const pageTokenDe = ({ instante, id }: Posicao) => Buffer.from(JSON.stringify([instante, id])).toString('base64url');

/** The place a pageToken names, if this store wrote it: anything else, even what lenient base64 decodes, is refused. */
function posicaoDo(pageToken: string): Posicao | undefined {
  const valor = lerJson(Buffer.from(pageToken, 'base64url').toString());
  if (!Array.isArray(valor)) return undefined;
  const partes: unknown[] = valor;
  const [instante, id] = partes;
  if (typeof instante !== 'number' || typeof id !== 'string') return undefined;
  return pageTokenDe({ instante, id }) === pageToken ? { instante, id } : undefined;
}

/** Keeps `primeiras` the first `limite` of all it is offered, in order: a page without sorting every match. */
function oferecer(primeiras: Guardada[], candidata: Guardada, limite: number): void {
  const ultima = primeiras.at(-1);
  // Most candidates fall behind the last one kept: one comparison each.
  if (!ultima || !antes(candidata, ultima)) {
    if (primeiras.length < limite) primeiras.push(candidata);
    return;
  }
  const lugar = primeiras.findIndex((outra) => antes(candidata, outra));
  primeiras.splice(lugar, 0, candidata);
  if (primeiras.length > limite) primeiras.pop();
}

/**
 * Tasks in memory, at most `maximo`: past it the least recently updated
 * finished Tasks are forgotten (GetTask then answers "not found"), each
 * told to `aoEsquecer`. Paused and running Tasks are never dropped here;
 * their number is capped apart. Each Task is kept as its JSON text (see
 * textoDe): a third of the memory of the object graph, and a copy on every
 * load, which a store must give anyway. Tasks are scoped by tenant and owner, and listed,
 * as DatabaseTaskStore does: memory and database answer alike.
 */
export class TarefasEmMemoria implements TaskStore {
  /** By scope and id, in order of last save: the first finished ones are the ones to forget. */
  private readonly porChave = new Map<string, Guardada>();

  constructor(
    private readonly maximo: number,
    private readonly aoEsquecer?: (taskId: string) => void,
  ) {}

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const guardada = this.porChave.get(chaveDe(escopoDe(context), taskId));
    return Promise.resolve(guardada && lerTarefa(guardada));
  }

  save(task: Task, context: ServerCallContext): Promise<void> {
    const escopo = escopoDe(context);
    const chave = chaveDe(escopo, task.id);
    this.porChave.delete(chave);
    this.porChave.set(chave, {
      escopo,
      id: task.id,
      contextId: task.contextId,
      estado: task.status?.state,
      instante: instanteDe(task),
      terminal: terminal(task),
      ...textoDe(task),
    });
    for (const [antigaChave, antiga] of this.porChave) {
      if (this.porChave.size <= this.maximo) break;
      if (!antiga.terminal) continue;
      this.porChave.delete(antigaChave);
      this.aoEsquecer?.(antiga.id);
    }
    return Promise.resolve();
  }

  /**
   * Keyset pages, as DatabaseTaskStore gives them: each page holds the
   * matches strictly after the (status time, id) its pageToken names, as
   * they stand when it is asked for. A Task updated during a walk moves
   * ahead of it: never repeated if already listed, left for the next walk
   * if not; every other Task is listed exactly once, and the walk goes on
   * even when the Task the token names changed or is gone.
   */
  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { contextId, status, statusTimestampAfter, pageToken, pageSize = PAGINA_PADRAO } = params;
    const cursor = pageToken ? posicaoDo(pageToken) : INICIO;
    if (!cursor) return Promise.reject(new RequestMalformedError('pageToken invalido: use o nextPageToken de uma resposta anterior'));
    const escopo = escopoDe(context);
    const depoisDe = statusTimestampAfter ? Date.parse(statusTimestampAfter) : -Infinity;
    let totalSize = 0;
    // One more than the page: whether it exists says if there is a next page.
    const primeiras: Guardada[] = [];
    for (const guardada of this.porChave.values()) {
      if (guardada.escopo !== escopo || guardada.instante <= depoisDe) continue;
      if (contextId && guardada.contextId !== contextId) continue;
      if (status !== TaskState.TASK_STATE_UNSPECIFIED && guardada.estado !== status) continue;
      totalSize++;
      if (antes(cursor, guardada)) oferecer(primeiras, guardada, pageSize + 1);
    }
    const pagina = primeiras.slice(0, pageSize);
    const ultima = pagina.at(-1);
    return Promise.resolve({
      tasks: pagina.map((guardada) => {
        const task = lerTarefa(guardada);
        if (!params.includeArtifacts) task.artifacts = [];
        return task;
      }),
      nextPageToken: primeiras.length > pageSize && ultima ? pageTokenDe(ultima) : '',
      pageSize,
      totalSize,
    });
  }

  get tamanho(): number {
    return this.porChave.size;
  }
}

/**
 * A terminal state nobody of ours asked for (the SDK ends a Task FAILED by
 * itself when an execution throws or a later save fails) is refused while
 * the Task has an open step: a claimed step may have booked, and the sweep
 * gives it its real outcome; a pause is still answerable. The Task then
 * keeps the state it had, and the request that failed says so.
 */
const semPassoAberto =
  (taskId: string): Junto =>
  async (pausas) => {
    if (await pausas.ler(taskId))
      throw new A2AError(
        `A Task ${taskId} tem um passo aberto (uma pergunta ou uma chamada que pode ter reservado): ela nao termina por uma falha deste pedido.`,
      );
  };

/** Waits for one state of one Task to be stored, and what goes with it. */
interface Espera {
  readonly estado: TaskState;
  readonly junto: Junto | undefined;
  readonly terminar: (erro?: Error) => void;
}

/**
 * The Task store as the SDK sees it, telling who waits that a state is
 * stored (or could not be): the SDK stores events some time after the
 * executor publishes them, and the bridge must know a Task is on record
 * before it asks MCP for anything, and before its turn ends. A change to
 * the Task's open step is written with the state it goes with, in one
 * transaction: a Task's state and its step never disagree, whenever a
 * process dies.
 */
export class TarefasDaPonte implements TaskStore {
  private readonly esperas = new Map<string, Espera[]>();

  constructor(
    private readonly tarefas: TaskStore,
    private readonly juntos: Armazenamento['juntos'],
  ) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const esperas = this.esperas.get(task.id) ?? [];
    const junto =
      esperas.find((espera) => espera.estado === task.status?.state && espera.junto)?.junto ??
      (terminal(task) ? semPassoAberto(task.id) : undefined);
    try {
      if (junto)
        await noBanco(
          this.juntos(async (tarefas, pausas) => {
            // The step's change first: in memory, a change refused leaves the Task as it was, as a rollback does in SQL.
            await junto(pausas);
            await tarefas.save(task, context);
          }),
        );
      else await noBanco(this.tarefas.save(task, context));
    } catch (erro) {
      for (const espera of esperas) espera.terminar(erro as Error);
      throw erro;
    }
    for (const espera of esperas) if (espera.estado === task.status?.state) espera.terminar();
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return noBanco(this.tarefas.load(taskId, context));
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return noBanco(this.tarefas.list(params, context));
  }

  /**
   * Resolves once `estado` is stored for the Task, with `junto` written in
   * the same transaction; rejects if a save of the Task fails, or if
   * nothing is stored within `prazoMs` (a lost event must not hold anyone
   * forever).
   */
  gravado(taskId: string, estado: TaskState, junto?: Junto, prazoMs = 10_000): Promise<void> {
    return new Promise((resolver, rejeitar) => {
      const relogio = setTimeout(() => espera.terminar(new BancoIndisponivel(new Error(`estado nao gravado em ${prazoMs} ms`))), prazoMs);
      relogio.unref();
      const espera: Espera = {
        estado,
        junto,
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
  const [{ DatabasePushNotificationStore, DatabaseTaskStore }, { Kysely, PostgresDialect, SqliteDialect }] = await Promise.all([
    import('@a2a-js/sdk/server/database'),
    import('kysely'),
  ]);
  if (ehPostgres(banco)) {
    await migrar(banco);
    const { default: pg } = await import('pg');
    // Every connection listens for its own loss, idle or checked out (pg emits 'error' on a client no
    // query is waiting on, and an unheard one ends the process): the step that held it fails alone. The
    // pool repeats an idle client's loss: heard once, from the client itself.
    const pool = (max: number) =>
      new pg.Pool({ connectionString: banco, max, connectionTimeoutMillis: 5000, application_name: 'agente' })
        .on('error', () => undefined)
        .on('connect', (cliente) => cliente.on('error', aoPerderConexao));
    const db = new Kysely<TabelaDePausas>({ dialect: new PostgresDialect({ pool: pool(10) }) });
    await PausasNoBanco.criarTabela(db, true);
    return noSql(
      db,
      new ExclusaoNoPostgres(pool(20)),
      `PostgreSQL (${urlSemSenha(banco)})`,
      DatabaseTaskStore,
      DatabasePushNotificationStore,
    );
  }
  await migrar(`sqlite:${banco}`);
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Kysely<TabelaDePausas>({ dialect: new SqliteDialect({ database: new Sqlite(banco) }) });
  await PausasNoBanco.criarTabela(db, false);
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

/**
 * Stores a Task's outcome outside any request (a sweep's), through the
 * SDK's ResultManager as an executor's events would be, with `junto`
 * written together with the last event's state, and tells its webhooks.
 * A Task already finished is left alone: answers false.
 */
export type PublicarForaDoPedido = (
  taskId: string,
  dono: Dono,
  eventos: (eventos: Eventos) => readonly AgentExecutionEvent[],
  junto: Junto,
) => Promise<boolean>;

export function publicadorForaDoPedido(tarefas: TarefasDaPonte, avisos: PushNotificationSender): PublicarForaDoPedido {
  return async (taskId, dono, eventos, junto) => {
    const contexto = contextoDe(dono);
    const task = await tarefas.load(taskId, contexto);
    if (!task || terminal(task)) return false;
    const todos = eventos(new Eventos(task.id, task.contextId));
    const ultimo = todos.at(-1);
    const estado = ultimo?.kind === 'statusUpdate' ? ultimo.data.status?.state : undefined;
    const resultado = new ResultManager(tarefas, contexto);
    const gravado = estado === undefined ? Promise.resolve() : tarefas.gravado(taskId, estado, junto);
    // A failed save rejects both: processEvent throws it below, and this wait must not be left unheard (it would end the process).
    gravado.catch(() => undefined);
    for (const evento of todos) await resultado.processEvent(evento);
    await gravado;
    const final = resultado.getCurrentTask();
    if (final) void avisos.send(avisoDeEstado(final), contexto, final);
    return true;
  };
}
