/**
 * A tool that runs as an MCP task (2025-11-25: the tool declares
 * `execution.taskSupport: "required"` and the server `tasks.requests.tools.call`),
 * called and followed to its end through the MCP project's
 * @modelcontextprotocol/ext-tasks, as one call of the bridge:
 *  - the task's reference (TarefaMcp) is handed to `aoSeguir` as soon as
 *    the server created it, so the step can keep it: a follower that dies
 *    leaves the task to whoever takes the step over, who follows it again
 *    (`retomar`) and never calls the tool twice;
 *  - each new `statusMessage` of the task is progress (a WORKING update of the A2A Task);
 *  - `input_required`: the question is the server's elicitation/create,
 *    which a 2025 server sends only while a `tasks/result` is open (ext-tasks
 *    asks for the result only once the task has ended), so one is opened
 *    here; the question then reaches the session's own elicitation handler,
 *    as any question of a `sessao` call does, and pauses the A2A Task;
 *  - completed: its result; failed, or cancelled by the server: an isError
 *    result in the server's words, which the bridge tells as FAILED; a task
 *    the server no longer knows: an isError result saying so;
 *  - the call's signal (a client's cancel): `tasks/cancel`, then the
 *    signal's own reason, as a plain call's abort.
 * No deadline of the call's own: a task runs as long as its server says it
 * does, each of ext-tasks' requests (tasks/get, tasks/cancel) bounded by
 * AGENTE_MCP_TIMEOUT_SECONDS, and the step's claim renewed while it runs.
 */
import {
  isCallToolResult,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  SdkHttpError,
  specTypeSchemas,
  type CallToolResult,
  type Client,
  type InputRequests,
  type InputResponses,
} from '@modelcontextprotocol/client';
import {
  createSessionPortFromClient,
  DispatchError,
  JsonRpcResponseError,
  toolDeclaration,
  withTasks,
  type ConnectedMcpSessionPort,
  type SerializedTaskReference,
  type TaskEnabledSession,
  type TaskExecutionEvent,
  type ToolExecution,
} from '@modelcontextprotocol/ext-tasks/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import type { ServerTaskCapabilitiesV1 } from '@modelcontextprotocol/ext-tasks/core/v1';
import { isCreateTaskResultV2, type InputResponsesV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { Continuacao, OpcoesDaChamada, PerguntaDaTarefa, ResultadoDaFerramenta, TarefaMcp } from './conexao.js';
import { enquadrar, type Despacho, type Enquadramento } from './despacho.js';
import { ChamadaNaoEnviada, SeguimentoInterrompido } from './naoEnviada.js';
import { SEM_PRAZO_DO_SDK } from './relogio.js';

const falha = (texto: string): CallToolResult => ({ content: [{ type: 'text', text: texto }], isError: true });

/**
 * ext-tasks' errors as the SDK's, which falhas.ts reads: the server's
 * JSON-RPC error is a ProtocolError (a refusal: nothing was done), and a
 * request that could not be made is the SDK's own error it wraps.
 */
function comoDoSdk(erro: unknown): unknown {
  if (erro instanceof JsonRpcResponseError) return new ProtocolError(erro.code, erro.message, erro.data);
  if (erro instanceof DispatchError && erro.cause !== undefined) return comoDoSdk(erro.cause);
  return erro;
}

/**
 * Why the server no longer has a task to follow, or undefined when the
 * error says nothing of it: the task's id refused (its TTL passed, or the
 * server restarted), or the HTTP session it lived in unknown (404).
 */
function esquecida(erro: unknown, { referencia }: TarefaMcp): string | undefined {
  const doSdk = comoDoSdk(erro);
  if (doSdk instanceof ProtocolError && doSdk.code === (ProtocolErrorCode.InvalidParams as number))
    return `O servidor MCP nao conhece mais a tarefa ${referencia.taskId} (${doSdk.message}): ela expirou ou o servidor reiniciou, e o desfecho e desconhecido. Confira no servidor antes de pedir de novo.`;
  // 404 is the spec's answer to an unknown session; some servers (server-everything) answer 400.
  if (doSdk instanceof SdkHttpError && (doSdk.status === 404 || doSdk.status === 400))
    return `A sessao MCP em que a tarefa ${referencia.taskId} rodava nao existe mais no servidor (HTTP ${String(doSdk.status)}): a tarefa se foi com ela, e o desfecho e desconhecido. Confira no servidor antes de pedir de novo.`;
  return undefined;
}

/** A stdio child's task, left by an agent that stopped: the child, and the task with it, ended with that agent. */
export const tarefaSemSeguidor = ({ referencia }: TarefaMcp, onde: string): CallToolResult =>
  falha(
    `A tarefa MCP ${referencia.taskId} rodava em ${onde}, processo filho do agente que a comecou, e terminou com ele: o desfecho e desconhecido. Confira no servidor antes de pedir de novo.`,
  );

type Opcoes = Pick<OpcoesDaChamada, 'aoProgredir' | 'aoSeguir'> & { readonly sinal: AbortSignal };

/** A 2026-07-28 server with the tasks extension: the raw request path and the envelope it needs (despacho.ts). */
export interface Geracao2026 {
  readonly despacho: Despacho;
  readonly enquadramento: Enquadramento;
}

/**
 * A 2026 task's questions wait for their answer with nobody following the
 * task: ext-tasks hands each one here, and this never answers it (the
 * follower stops at the question, which ends the wait unanswered); an
 * answer goes later, from any agent, by tasks/update.
 */
const semResponderAqui = (_pedido: unknown, { signal }: { readonly signal?: AbortSignal }) =>
  new Promise<never>((_, rejeitar) => signal?.addEventListener('abort', () => rejeitar(signal.reason as Error), { once: true }));

export class TarefasMcp {
  private sessao: { readonly tarefas: TaskEnabledSession; readonly porta: Disposable } | undefined;
  /** The tasks being followed here now. */
  private readonly seguidas = new Set<ToolExecution<unknown>>();

  constructor(
    private readonly cliente: Client,
    /** The server's name: what ext-tasks scopes a task reference by. */
    private readonly servidor: string,
    /** AGENTE_MCP_TIMEOUT_SECONDS: each of the task's requests (tools/call, tasks/get, tasks/cancel). */
    private readonly prazoMs: number,
    private readonly aoFalhar: (erro: Error) => void,
    /** Where the server is: over HTTP, its session's id if it gave one (a 2025 server may keep its tasks per session); a stdio child is this process's alone. */
    private readonly onde: { readonly stdio: true } | { readonly sessaoMcp: () => string | undefined },
    /** Set for a 2026-07-28 server with the tasks extension; otherwise the tasks are 2025-11-25's. */
    private readonly geracao2026?: Geracao2026,
  ) {}

  /**
   * 2026-07-28: every tools/call declares the tasks extension, and the
   * server decides. An answer of resultType "task" is followed as any
   * task; any other answer is what a plain call gives (a result, or
   * input_required with its requestState). The call's clock times the
   * tools/call itself; the task's follow stops only on `opcoes.sinal`.
   */
  async chamar2026(
    nome: string,
    argumentos: Record<string, unknown>,
    meta: Readonly<Record<string, unknown>>,
    continuacao: Continuacao | undefined,
    /** The call's clock (relogio.ts): it times the tools/call itself, and starts over on each progress. */
    relogio: { readonly sinal: AbortSignal; readonly reiniciar: () => void },
    opcoes: Opcoes,
  ): Promise<ResultadoDaFerramenta> {
    const { despacho, enquadramento } = this.exigir2026();
    const params = { name: nome, arguments: argumentos, ...continuacao, _meta: enquadrar(enquadramento, meta) };
    const aoProgredir: Opcoes['aoProgredir'] = (progresso) => {
      relogio.reiniciar();
      opcoes.aoProgredir?.(progresso);
    };
    const resposta = await despacho
      .enviar(
        { method: 'tools/call', params } as JsonValue,
        { signal: relogio.sinal, context: { requestTimeoutMs: SEM_PRAZO_DO_SDK } },
        aoProgredir,
      )
      .catch((erro: unknown) => {
        throw comoDoSdk(erro);
      });
    if (resposta.kind === 'error') throw new ProtocolError(resposta.error.code, resposta.error.message, resposta.error.data);
    const { result } = resposta;
    if (isCreateTaskResultV2(result)) {
      // The reference ext-tasks would serialize for this task: its id is the server's.
      const referencia = {
        endpointId: this.servidor,
        generation: 'v2',
        taskId: result.taskId,
        originalOperation: 'tools/call',
      } as SerializedTaskReference;
      return this.retomar({ referencia, ...('stdio' in this.onde ? { local: true } : {}) }, opcoes);
    }
    if (isInputRequiredResult(result) || isCallToolResult(result)) return result;
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      'tools/call respondeu fora do formato do MCP (nem resultado, nem input_required, nem task).',
    );
  }

  /**
   * Starts the task and follows it until it ends; `sinal` is the caller's
   * cancel. The task's reference goes to `aoSeguir` before anything else.
   */
  async chamar(
    nome: string,
    argumentos: Record<string, unknown>,
    meta: Readonly<Record<string, string>>,
    opcoes: Opcoes,
  ): Promise<CallToolResult | PerguntaDaTarefa> {
    const capacidades = this.cliente.getServerCapabilities()?.tasks;
    if (!capacidades?.requests?.tools?.call)
      throw new ChamadaNaoEnviada(
        `${nome} exige uma tarefa MCP, e o servidor ${this.servidor} nao aceita tools/call como tarefa (falta a capacidade tasks.requests.tools.call)`,
      );
    const execucao = await this.sessaoDeTarefas(capacidades)
      // Arguments read from JSON (a request, a stored pause) are JSON values: the type says so, no copy needed.
      .callTool(nome, argumentos as Readonly<Record<string, JsonValue>>, {
        declaration: toolDeclaration({ name: nome, inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }),
        task: { preference: 'require' },
        metadata: meta,
        requestTimeoutMs: this.prazoMs,
      })
      .catch((erro: unknown) => {
        throw comoDoSdk(erro);
      });
    // Preference "require": ext-tasks gives a task or throws.
    if (execucao.kind !== 'task') throw new Error(`${nome}: o servidor nao criou uma tarefa MCP`);
    const sessaoMcp = 'sessaoMcp' in this.onde ? this.onde.sessaoMcp() : undefined;
    const versao = this.cliente.getNegotiatedProtocolVersion();
    const tarefa: TarefaMcp = {
      referencia: execucao.serializeReference(),
      ...('stdio' in this.onde ? { local: true } : {}),
      ...(sessaoMcp === undefined ? {} : { sessaoMcp }),
      ...(versao === undefined ? {} : { versao }),
      capacidades,
    };
    opcoes.aoSeguir?.(tarefa);
    return this.seguir(execucao, tarefa, opcoes);
  }

  /**
   * Follows a task an earlier call started (maybe in another agent, now
   * gone) to its end, as `chamar` does after starting one; `respostas`,
   * the answers to its questions (2026: tasks/update), go first. A task
   * the server no longer knows ends the call with an isError result saying so.
   */
  async retomar(tarefa: TarefaMcp, opcoes: Opcoes, respostas?: InputResponses): Promise<CallToolResult | PerguntaDaTarefa> {
    const sessao = this.sessaoDeTarefas(tarefa.capacidades);
    if (respostas)
      // The server's refusal of the answers is its answer (the question is kept, to be answered again); a
      // failure to send them says nothing of the task, which still waits on its question.
      await sessao
        .task(tarefa.referencia.taskId, { requestTimeoutMs: this.prazoMs })
        // The answers as the client sent them: ext-tasks checks each against the 2026 schema before sending.
        .update(respostas as InputResponsesV2, opcoes.sinal)
        .catch((erro: unknown) => {
          throw comoDoSdk(erro);
        });
    // Kept as the step before anything else is asked (after the answers: kept before, a stop between would lose them).
    opcoes.aoSeguir?.(tarefa);
    let execucao: ToolExecution<unknown>;
    try {
      execucao = await sessao.resumeTask(tarefa.referencia, { requestTimeoutMs: this.prazoMs });
    } catch (erro) {
      const motivo = esquecida(erro, tarefa);
      if (motivo) return falha(motivo);
      if (opcoes.sinal.aborted) throw opcoes.sinal.reason;
      throw new SeguimentoInterrompido(tarefa.referencia.taskId, comoDoSdk(erro));
    }
    return this.seguir(execucao, tarefa, opcoes, new Set(Object.keys(respostas ?? {})));
  }

  private exigir2026(): Geracao2026 {
    if (!this.geracao2026) throw new Error(`${this.servidor}: chamada da geracao 2026 de tasks num servidor sem a extensao`);
    return this.geracao2026;
  }

  /**
   * Ends what still follows a task here (the agent stops, the session is
   * closed). Over HTTP a task still running is left to run, for whoever
   * takes its step over (its claim runs out, or its follower tells it
   * uncertain): answers how many were left, whose session must stay open
   * on the server. A stdio child's task ends with its child: ext-tasks
   * cancels it.
   */
  async fechar(): Promise<number> {
    const deixadas = 'stdio' in this.onde ? [] : [...this.seguidas];
    for (const execucao of deixadas) {
      await execucao.detach();
      // ext-tasks counts a detached execution settled only once its local driver stops: closed before, it would cancel the task.
      await execucao.result().catch(() => undefined);
    }
    await this.sessao?.tarefas.close();
    this.sessao?.porta[Symbol.dispose]();
    return deixadas.length;
  }

  /**
   * One ext-tasks session per client, made on the first task. Its task
   * capabilities are the server's, as its initialize said; a session joined
   * again (by its id, from another process) had no initialize here, so
   * they are the ones kept with the task.
   */
  private sessaoDeTarefas(capacidades: ServerTaskCapabilitiesV1 | undefined): TaskEnabledSession {
    if (this.sessao) return this.sessao.tarefas;
    const { geracao2026 } = this;
    const base = createSessionPortFromClient(
      this.cliente,
      this.servidor,
      geracao2026
        ? {
            rawDispatch: geracao2026.despacho.enviar,
            // The Client's own words about itself, JSON as it sent them in discover.
            v2RequestFraming: geracao2026.enquadramento as unknown as {
              protocolVersion: string;
              clientInfo: Readonly<Record<string, JsonValue>>;
              clientCapabilities: Readonly<Record<string, JsonValue>>;
            },
          }
        : {},
    );
    // 2026: the capabilities ext-tasks read in discover. 2025: initialize's, or those kept with the task for a joined session.
    const porta: ConnectedMcpSessionPort = geracao2026
      ? base
      : {
          endpointId: base.endpointId,
          taskCapabilities: { generation: 'v1', capabilities: this.cliente.getServerCapabilities()?.tasks ?? capacidades ?? {} },
          dispatch: (pedido, opcoes) => base.dispatch(pedido, opcoes),
          onServerRequest: (atender) => base.onServerRequest(atender),
          onNotification: (ouvir) => base.onNotification(ouvir),
          onInvalidated: (ouvir) => base.onInvalidated(ouvir),
          get invalidated() {
            return base.invalidated;
          },
        };
    // The tool's declaration is all ext-tasks reads to call it as a task: no tools/list of its own.
    const tarefas = withTasks(porta, {
      tools: { currentTool: () => undefined },
      onError: this.aoFalhar,
      ...(geracao2026 ? { onInputRequest: semResponderAqui } : {}),
    });
    this.sessao = { tarefas, porta: base };
    return tarefas;
  }

  /**
   * Follows the execution to its end: progress, questions, the outcome, a
   * cancel. A 2026 task's question ends the follow: the call answers it
   * (PerguntaDaTarefa), and the task waits on the server for tasks/update.
   */
  private async seguir(
    execucao: ToolExecution<unknown>,
    tarefa: TarefaMcp,
    opcoes: Opcoes,
    /** The questions just answered: a server may still show them until it applies the answers. */
    respondidas: ReadonlySet<string> = new Set(),
  ): Promise<CallToolResult | PerguntaDaTarefa> {
    const { sinal, aoProgredir, aoSeguir } = opcoes;
    this.seguidas.add(execucao);
    // A cancel waits for the server's word (tasks/cancel answered) before the call ends with the signal's reason.
    let cancelamento: Promise<void> | undefined;
    const cancelar = () => {
      cancelamento ??= execucao.cancel().catch(() => undefined);
    };
    sinal.addEventListener('abort', cancelar, { once: true });
    // Aborted while tools/call was on its way: the task exists now, and is cancelled.
    if (sinal.aborted) cancelar();
    const resultadoAberto = new AbortController();
    let ultima: string | undefined;
    let relatos = 0;
    let esperava = false;
    let pergunta: InputRequests | undefined;
    const aoMudar = (evento: TaskExecutionEvent<unknown>) => {
      if (evento.type !== 'task') return;
      const { status, statusMessage, taskId, raw } = evento.task;
      if (status !== 'working' && status !== 'input_required') return;
      if (status === 'input_required' && tarefa.referencia.generation === 'v2') {
        // ext-tasks read it against the 2026 schema: the questions are InputRequests.
        const { inputRequests } = raw as { readonly inputRequests: InputRequests };
        // Only the questions just answered: the answers have not been applied yet, and the task is still followed.
        if (Object.keys(inputRequests).every((chave) => respondidas.has(chave))) return;
        pergunta = inputRequests;
        void execucao.detach();
        return;
      }
      // Answered: the task works again, followed by the request that answered (its step claimed again).
      if (esperava && status === 'working') aoSeguir?.(tarefa);
      esperava = status === 'input_required';
      if (statusMessage !== undefined && statusMessage !== ultima) {
        ultima = statusMessage;
        aoProgredir?.({ progress: ++relatos, message: statusMessage });
      }
      if (status !== 'input_required' || resultadoAberto.signal.aborted) return;
      // Open from now until the call ends: every question the task asks comes through it. Its answer is not needed.
      void this.cliente
        .request({ method: 'tasks/result', params: { taskId } }, specTypeSchemas.Result, {
          signal: AbortSignal.any([sinal, resultadoAberto.signal]),
          timeout: SEM_PRAZO_DO_SDK,
        })
        .catch(() => undefined);
      resultadoAberto.abort();
    };
    try {
      // With the signal, settle stops waiting at once (the cancel above is on its way); without, a server that cannot cancel would hold it.
      const { outcome } = await execucao.settle({ onEvent: aoMudar, signal: sinal });
      if (pergunta) {
        // Settled once its local driver stops: only then may the session close without cancelling the task.
        await execucao.result().catch(() => undefined);
        return { perguntaDaTarefa: { tarefa, inputRequests: pergunta } };
      }
      if (outcome.status === 'completed') {
        if (!isCallToolResult(outcome.result)) return falha('A tarefa MCP terminou com um resultado fora do formato de tools/call.');
        return outcome.result;
      }
      // The server said so: the task has that status. Otherwise ext-tasks lost the task here (a request that failed, the
      // connection closed), and the task may still run: over HTTP it is left running, for the step's next follower (its
      // reference is kept); a stdio child's task has no other follower, so it is told to stop. The call fails as that error.
      if (outcome.task?.status === 'failed' && outcome.status === 'failed')
        return falha(outcome.error.message || 'A tarefa MCP falhou sem mensagem.');
      if (outcome.task?.status === 'cancelled') return falha('A tarefa MCP foi cancelada pelo servidor.');
      const causa = outcome.status === 'failed' ? (outcome.error.cause ?? outcome.error) : new Error('a tarefa MCP foi cancelada');
      const motivo = esquecida(causa, tarefa);
      if (motivo) return falha(motivo);
      if (!tarefa.local) throw new SeguimentoInterrompido(tarefa.referencia.taskId, comoDoSdk(causa));
      cancelar();
      await cancelamento;
      throw comoDoSdk(causa);
    } catch (erro) {
      if (sinal.aborted) {
        await cancelamento;
        throw sinal.reason;
      }
      throw erro;
    } finally {
      this.seguidas.delete(execucao);
      sinal.removeEventListener('abort', cancelar);
      resultadoAberto.abort();
    }
  }
}
