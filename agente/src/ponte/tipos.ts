/**
 * The bridge's own words, free of any A2A or database type: what a client
 * asked, the call it becomes, the question a paused Task keeps, and the
 * outcome of a step. The A2A adapters and the stores translate to and
 * from these.
 */
import type { ElicitRequestParams, InputResponses } from '@modelcontextprotocol/client';
import type { TarefaMcp } from '../mcp/conexao.js';
import type { Trace } from './trace.js';

/** What a message said: its text parts joined, and its first data part, if any (it wins over the text). */
export interface Entrada {
  readonly texto: string;
  readonly dados?: unknown;
}

/** Whose a Task is: the tenant and the user scope the A2A stores file it under. */
export interface Dono {
  readonly tenant: string;
  /** The user's scope as the A2A SDK resolves it (`unknown` for an unauthenticated caller). */
  readonly usuario: string;
}

/** One tools/call, as a skill turned into it. */
export interface Chamada {
  /** The A2A skill asked for. */
  readonly skill: string;
  /** The server's name in AGENTE_MCP_CONFIG; absent for the room server. */
  readonly servidor?: string;
  readonly ferramenta: string;
  readonly argumentos: Record<string, unknown>;
  /** Entries for the request's `_meta` (the room server's idempotency key). */
  readonly meta?: Readonly<Record<string, string>>;
  /** The tool runs as an MCP task (its execution.taskSupport is "required"). */
  readonly tarefa?: true;
}

/** A question as MCP asks it: an elicitation/create request's params, form or URL mode. */
export type Questao = ElicitRequestParams;

/**
 * A paused Task's question, kept until the answer: the call to continue and
 * the questions, keyed as the server keyed them. How it continues depends
 * on the server's era: `requestState` (2026-07-28) is echoed on a new call
 * by any agent; `tarefaMcp` names a 2026 MCP task waiting on its server,
 * which any agent answers; `sessao` names the agent process whose session
 * holds the call waiting for the answer; with none, the call is made again
 * (a -32042 URL elicitation).
 */
export interface Pausa {
  readonly skill: string;
  readonly servidor?: string;
  readonly ferramenta: string;
  readonly argumentos: Record<string, unknown>;
  readonly perguntas: Readonly<Record<string, Questao>>;
  /** Opaque: stored and echoed byte for byte, never opened, never shown. */
  readonly requestState?: string;
  readonly sessao?: string;
  /** A 2026 MCP task's questions: the answer is its tasks/update (any agent), then the task is followed again. */
  readonly tarefaMcp?: TarefaMcp;
  /** Which round of questions this is (the server may ask again after an answer); rounds are capped. */
  readonly rodada: number;
  /** The Task's trace, for a continuation that brings no traceparent of its own. */
  readonly trace: Trace;
  /** Whose Task it is, for the sweep that ends it (absent from pauses stored before owners were kept). */
  readonly dono?: Dono;
  /** When the MCP server asked (epoch ms): a pause lives as long as its requestState. */
  readonly criadaEm: number;
}

/** A new Task's request while its first step runs: what a replay of that step needs. */
export interface Pedido {
  readonly pedido: Entrada;
  readonly trace: Trace;
  readonly dono: Dono;
  readonly criadaEm: number;
}

/**
 * A call that became an MCP task, followed until the task ends: whoever
 * holds the claim polls it; a sweep that takes the claim over follows the
 * same task again, never calls the tool again.
 */
export interface Seguimento {
  readonly skill: string;
  readonly servidor?: string;
  readonly ferramenta: string;
  readonly argumentos: Record<string, unknown>;
  readonly tarefaMcp: TarefaMcp;
  readonly trace: Trace;
  readonly dono?: Dono;
  readonly criadaEm: number;
}

/** A Task's open step: a pause waiting for its answer, a new Task's request, or the MCP task its call started. */
export type Passo = Pausa | Pedido | Seguimento;

export const ehPedido = (passo: Passo): passo is Pedido => 'pedido' in passo;
export const ehPausa = (passo: Passo): passo is Pausa => 'perguntas' in passo;
// A 2026 task's question also names its task (Pausa.tarefaMcp): a pause has questions, a follow has none.
export const ehSeguimento = (passo: Passo): passo is Seguimento => 'tarefaMcp' in passo && !('perguntas' in passo);

/** A question the MCP server asked, as the bridge hands it over to be kept. */
export type Pergunta = Omit<Pausa, 'criadaEm'>;

/**
 * Part of an artifact: text (with its media type and URI when it was a
 * resource's), a file by bytes (base64) or by URI, or structured data.
 */
export type Parte =
  | { readonly texto: string; readonly mediaType?: string; readonly uri?: string }
  | { readonly arquivo: { readonly bytes?: string; readonly uri?: string; readonly mediaType?: string; readonly nome?: string } }
  | { readonly dados: Readonly<Record<string, unknown>> };

/**
 * What a completed Task hands over: named; its parts, then `dados` (the room
 * profile's contract) sent as JSON text and as a data part.
 */
export interface Artefato {
  readonly nome: string;
  readonly partes?: readonly Parte[];
  readonly dados?: Readonly<Record<string, unknown>>;
}

export type Desfecho =
  | { readonly estado: 'concluida'; readonly mensagem: string; readonly artefato: Artefato }
  /**
   * `pergunta`: a new question to keep; without it, the question the Task
   * had stays as it was. `url`: the question sends the user to a URL (the
   * Task asks for authorization rather than input).
   */
  | {
      readonly estado: 'pausada';
      readonly mensagem: string;
      readonly dados: Readonly<Record<string, unknown>>;
      readonly pergunta?: Pergunta;
      readonly url?: true;
    }
  /** `rejeitada`: the request was refused before anything was sent (arguments the tool's schema refuses). */
  | { readonly estado: 'cancelada' | 'falhou' | 'rejeitada'; readonly mensagem: string }
  /** The call's outcome never arrived and replaying it is safe: the Task stays WORKING and the same call is replayed. */
  | { readonly estado: 'incerto'; readonly mensagem: string };

/** What the client answered to a paused Task, as MCP's inputResponses. */
export type Respostas = InputResponses;

/** A request or an answer that could not be read, with the sentence that tells the client why. */
export interface Ilegivel {
  readonly erro: string;
}
