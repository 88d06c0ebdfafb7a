/**
 * What the bridge needs of one MCP server, whatever its era and transport:
 * its tools, and a tools/call that may ask questions. Two eras ask in two
 * ways, and the bridge must tell them apart because only one is durable:
 *  - 2026-07-28 (`moderna`): the call answers input_required with its
 *    requestState; the retry is a new call, from any agent, at any time;
 *  - 2025 and older (`sessao`): the server sends elicitation/create during
 *    the call, on its session, and the call waits for the answer: the
 *    question lives as long as that call in this process.
 */
import {
  SdkHttpError,
  UnauthorizedError,
  type CallToolResult,
  type ElicitRequestParams,
  type ElicitResult,
  type InputRequests,
  type InputRequiredResult,
  type InputResponses,
  type Tool,
} from '@modelcontextprotocol/client';
import type { SerializedTaskReference } from '@modelcontextprotocol/ext-tasks/client';
import type { ServerTaskCapabilitiesV1 } from '@modelcontextprotocol/ext-tasks/core/v1';

/**
 * What a tools/call can come back as: input_required only from a `moderna`
 * server; a task's question only from a 2026 task (tarefa.ts).
 */
export type ResultadoDaFerramenta = CallToolResult | InputRequiredResult | PerguntaDaTarefa;

/**
 * A 2026 MCP task asked something: its questions, keyed as the server keyed
 * them, wait on the server for their answer (tasks/update), from any agent.
 */
export interface PerguntaDaTarefa {
  readonly perguntaDaTarefa: { readonly tarefa: TarefaMcp; readonly inputRequests: InputRequests };
}

export const ehPerguntaDaTarefa = (resultado: ResultadoDaFerramenta): resultado is PerguntaDaTarefa => 'perguntaDaTarefa' in resultado;

export type Era = 'moderna' | 'sessao';

/** The server refused the agent's credentials (HTTP 401): a static token has nothing to refresh, so the request never ran. */
export const recusouCredenciais = (erro: unknown): boolean =>
  erro instanceof UnauthorizedError || (erro instanceof SdkHttpError && erro.status === 401);

export interface Continuacao {
  readonly inputResponses: InputResponses;
  readonly requestState: string;
}

/**
 * An MCP task a step's call started (2025-11-25: tools/call answered with
 * a task), as any agent finds it again: ext-tasks' serialized reference
 * (server, generation, task id) and, for a server that keeps its tasks per
 * HTTP session (server-everything does), that session, its protocol version
 * and the task capabilities its server declared there (a session joined
 * again skips initialize, so nobody would tell them). The session id never
 * leaves the store: no log, no A2A response.
 */
export interface TarefaMcp {
  readonly referencia: SerializedTaskReference;
  /** The task runs in this agent's stdio child: it ends with the agent, and nobody else can follow it. */
  readonly local?: true;
  readonly sessaoMcp?: string;
  readonly versao?: string;
  /** 2025-11-25 only: a 2026 server declares its tasks in discover, which any session reads. */
  readonly capacidades?: ServerTaskCapabilitiesV1;
}

export interface OpcoesDaChamada {
  readonly traceparent: string;
  /** 2026-07-28: the retry of a call that answered input_required. */
  readonly continuacao?: Continuacao;
  /** Entries added to the request's `_meta` (the room server's idempotency key). */
  readonly meta?: Readonly<Record<string, string>>;
  /**
   * A `sessao` server asked something during this call (elicitation/create,
   * form or URL mode): the answer the call's session sends back. Absent:
   * the agent declines.
   */
  readonly aoPerguntar?: (pergunta: ElicitRequestParams) => Promise<ElicitResult>;
  /** notifications/progress for this call (its progressToken is set by the SDK). */
  readonly aoProgredir?: (progresso: { readonly progress: number; readonly total?: number; readonly message?: string }) => void;
  /** Aborting it cancels the call: the SDK sends notifications/cancelled (tasks/cancel for a task). */
  readonly sinal?: AbortSignal;
  /** The tool runs as an MCP task (2025-11-25, taskSupport "required"): started and followed to its end (tarefa.ts). */
  readonly tarefa?: true;
  /** Told of the MCP task the call started, as it starts and each time it works again after a question, for the step to keep. */
  readonly aoSeguir?: (tarefa: TarefaMcp) => void;
  /** Instead of calling: follow this MCP task, which an earlier call started, to its end. */
  readonly retomar?: TarefaMcp;
  /** With `retomar`: the answers to the task's questions (2026: tasks/update), sent before following it again. */
  readonly respostasDaTarefa?: InputResponses;
}

/**
 * A skill's id: `<servidor>.<tool>`, however many servers are configured, so
 * adding or removing a server renames no skill of the others. A server's
 * name has no dot (configuracao.ts), so no two tools share an id.
 */
export const idDaSkill = (servidor: string, ferramenta: string) => `${servidor}.${ferramenta}`;

/** One tool of one server, as a skill. */
export interface Skill {
  /** idDaSkill of its server and tool. */
  readonly id: string;
  readonly conexao: ConexaoMcp;
  readonly ferramenta: Tool;
}

export interface ConexaoMcp {
  /** The server's name in AGENTE_MCP_CONFIG (the room server's, without one). */
  readonly nome: string;
  /** Where it is, for messages: its URL's origin and path, or its command's name (never arguments, query or credentials). */
  readonly onde: string;
  /** Known once connected. */
  era(): Era;
  conectar(): Promise<void>;
  /** tools/list, whole (every page); served from cache while the server allows. */
  ferramentas(traceparent: string): Promise<Tool[]>;
  chamar(nome: string, argumentos: Record<string, unknown>, opcoes: OpcoesDaChamada): Promise<ResultadoDaFerramenta>;
  /** Told when the server says its tool list changed (the new list already read). */
  aoMudarFerramentas(ouvinte: (ferramentas: Tool[]) => void): void;
  fechar(): Promise<void>;
}
