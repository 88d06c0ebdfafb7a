/**
 * The Task store in memory (the default,
 * without TASKS_DB): bounded, and answering ListTasks as the SDK's
 * DatabaseTaskStore does.
 */
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { lerJson } from 'compartilhado/json';
import { objeto } from 'compartilhado/log';
import { terminal } from '../ciclo/maquina.js';
import { noBanco } from './banco.js';
import { ESCOPO_ANONIMO, escopoDe } from './escopo.js';

/**
 * The Task store as the SDK's request handler sees it: it reads (GetTask,
 * ListTasks, the push-config checks) and never writes, since every write
 * of a Task is a transition of the lifecycle (ciclo/). A database that
 * cannot answer is told as such.
 */
export function somenteLeitura(tarefas: TaskStore): TaskStore {
  return {
    load: (taskId, context) => noBanco(tarefas.load(taskId, context)),
    list: (params, context) => noBanco(tarefas.list(params, context)),
    save: (task) => Promise.reject(new Error(`a Task ${task.id} so e gravada pelas transicoes do ciclo`)),
  };
}

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
