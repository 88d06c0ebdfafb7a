/**
 * The Task lifecycle as a table: which fact moves a Task from which state
 * to which, and what it does to the Task's open step. Pure: ciclo.ts runs
 * each row as one call and one transaction, and aplicar below is how a
 * row's events change the Task and what its log records.
 *
 *   fact        from                       to                                   open step
 *   abrir       (no Task)                  WORKING                              the request, claimed by this agent
 *   progredir   WORKING                    WORKING                              unchanged
 *   concluir    WORKING                    the outcome's state (see estadoDo)   by the outcome, if the claim is still ours
 *   responder   INPUT_REQUIRED, AUTH_REQ.  WORKING                              the answer, claimed by this agent
 *   decidir     INPUT_REQUIRED, AUTH_REQ.  the outcome's state                  by the outcome (no MCP call was needed)
 *   anotar      SUBMITTED, WORKING         unchanged                            unchanged (a message to a running Task)
 *   cancelar    any state not terminal     CANCELED                             removed; refused while a call is claimed
 *   descartar   INPUT_REQUIRED, AUTH_REQ.  FAILED                               removed; only while unclaimed
 *
 * Every Task goes SUBMITTED -> WORKING in its first transaction (both
 * events are recorded, so a stream shows both), and a terminal state is
 * left by no row.
 */
import { TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { mesmoArtefato, mesmoEstado, mudancas, registroDoArtefato, registroDoEstado } from '../armazenamento/mudancas.js';
import type { Desfecho } from '../ponte/tipos.js';

const { TASK_STATE_SUBMITTED, TASK_STATE_WORKING, TASK_STATE_INPUT_REQUIRED, TASK_STATE_AUTH_REQUIRED } = TaskState;
const { TASK_STATE_COMPLETED, TASK_STATE_CANCELED, TASK_STATE_FAILED, TASK_STATE_REJECTED } = TaskState;

export type Fato = 'abrir' | 'progredir' | 'concluir' | 'responder' | 'decidir' | 'anotar' | 'cancelar' | 'descartar';

export const TERMINAIS: ReadonlySet<TaskState> = new Set([
  TASK_STATE_COMPLETED,
  TASK_STATE_CANCELED,
  TASK_STATE_FAILED,
  TASK_STATE_REJECTED,
]);

/** States a Task waits in for the client's answer: a question, or a URL to visit. */
export const ESPERANDO: ReadonlySet<TaskState> = new Set([TASK_STATE_INPUT_REQUIRED, TASK_STATE_AUTH_REQUIRED]);

const DESFECHOS = [TASK_STATE_WORKING, ...ESPERANDO, ...TERMINAIS];

interface Linha {
  /** The states the fact applies in; undefined stands for no Task yet. */
  readonly de: readonly (TaskState | undefined)[];
  /** The states it may leave the Task in. */
  readonly para: readonly TaskState[];
  /** The Task keeps the state it had. */
  readonly mantem?: true;
}

export const TABELA: Readonly<Record<Fato, Linha>> = {
  abrir: { de: [undefined], para: [TASK_STATE_WORKING] },
  progredir: { de: [TASK_STATE_WORKING], para: [TASK_STATE_WORKING] },
  concluir: { de: [TASK_STATE_WORKING], para: DESFECHOS },
  responder: { de: [...ESPERANDO], para: [TASK_STATE_WORKING] },
  decidir: { de: [...ESPERANDO], para: [...ESPERANDO, ...TERMINAIS] },
  anotar: { de: [TASK_STATE_SUBMITTED, TASK_STATE_WORKING], para: [TASK_STATE_SUBMITTED, TASK_STATE_WORKING], mantem: true },
  cancelar: { de: [TASK_STATE_SUBMITTED, TASK_STATE_WORKING, ...ESPERANDO], para: [TASK_STATE_CANCELED] },
  descartar: { de: [...ESPERANDO], para: [TASK_STATE_FAILED] },
};

/** Whether the table lets `fato` move a Task from `de` to `para`. */
export function permitida(fato: Fato, de: TaskState | undefined, para: TaskState | undefined): boolean {
  const { de: origens, para: destinos, mantem } = TABELA[fato];
  return origens.includes(de) && para !== undefined && destinos.includes(para) && (!mantem || para === de);
}

const ESTADO_DO_DESFECHO = {
  pausada: TASK_STATE_INPUT_REQUIRED,
  concluida: TASK_STATE_COMPLETED,
  cancelada: TASK_STATE_CANCELED,
  falhou: TASK_STATE_FAILED,
  rejeitada: TASK_STATE_REJECTED,
  incerto: TASK_STATE_WORKING,
} as const satisfies Record<Desfecho['estado'], TaskState>;

/** The Task state an outcome leaves: a question that sends the user to a URL asks for authorization, not input. */
export const estadoDo = (desfecho: Desfecho): TaskState =>
  desfecho.estado === 'pausada' && desfecho.url ? TASK_STATE_AUTH_REQUIRED : ESTADO_DO_DESFECHO[desfecho.estado];

export const terminal = (task: Task | undefined) => task?.status !== undefined && TERMINAIS.has(task.status.state);

/** A Task after a row's events, and what its log records for them. */
export interface Aplicado {
  readonly task: Task;
  /** The Task once the client's message is in its history, before the events: what a continuation's stream shows first. */
  readonly retrato: Task;
  readonly registros: readonly StreamResponse[];
}

/**
 * The events applied to the Task as the SDK's ResultManager merges them
 * (a status replaces the status and its message joins the history; an
 * artifact replaces the one with its id or is added), after the client's
 * message joins the history. Each event records what it changed (see
 * mudancas.ts): a replayed step's same artifact records nothing.
 *
 * Nothing given is changed and nothing is deep-copied: the Task that comes
 * out has its own object and its own history and artifact arrays, and
 * shares the statuses, messages and artifacts, which every transition
 * replaces and none edits.
 */
export function aplicar(task: Task | undefined, mensagem: Message | undefined, eventos: readonly AgentExecutionEvent[]): Aplicado {
  let retrato = task && mensagem ? { ...task, history: [...task.history, mensagem] } : task;
  let atual = retrato && copiaRasa(retrato);
  const registros: StreamResponse[] = [];
  for (const evento of eventos) {
    if (evento.kind === 'task') {
      registros.push(...mudancas(atual, evento.data));
      retrato ??= evento.data;
      atual = copiaRasa(evento.data);
      continue;
    }
    if (!atual) throw new Error(`${evento.kind} antes da Task`);
    if (evento.kind === 'statusUpdate' && evento.data.status) {
      const { status } = evento.data;
      if (!mesmoEstado(atual.status, status)) registros.push(registroDoEstado(atual, status));
      atual.status = status;
      const { message } = status;
      if (message && !atual.history.some((outra) => outra.messageId === message.messageId)) atual.history.push(message);
    } else if (evento.kind === 'artifactUpdate' && evento.data.artifact) {
      const { artifact } = evento.data;
      const lugar = atual.artifacts.findIndex((outro) => outro.artifactId === artifact.artifactId);
      if (!mesmoArtefato(atual.artifacts[lugar], artifact)) registros.push(registroDoArtefato(atual, artifact));
      if (lugar === -1) atual.artifacts.push(artifact);
      else atual.artifacts[lugar] = artifact;
    }
  }
  if (!atual || !retrato) throw new Error('uma transicao sem Task: o primeiro evento de uma Task nova e ela mesma');
  return { task: atual, retrato, registros };
}

const copiaRasa = (task: Task): Task => ({ ...task, history: [...task.history], artifacts: [...task.artifacts] });
