/**
 * A tool that runs as an MCP task (2025-11-25: the tool declares
 * `execution.taskSupport: "required"` and the server `tasks.requests.tools.call`),
 * called and followed to its end through the MCP project's
 * @modelcontextprotocol/ext-tasks, as one call of the bridge:
 *  - each new `statusMessage` of the task is progress (a WORKING update of the A2A Task);
 *  - `input_required`: the question is the server's elicitation/create,
 *    which a 2025 server sends only while a `tasks/result` is open (ext-tasks
 *    asks for the result only once the task has ended), so one is opened
 *    here; the question then reaches the session's own elicitation handler,
 *    as any question of a `sessao` call does, and pauses the A2A Task;
 *  - completed: its result; failed, or cancelled by the server: an isError
 *    result in the server's words, which the bridge tells as FAILED;
 *  - the call's signal (a client's cancel, the deadline): `tasks/cancel`,
 *    then the signal's own reason, as a plain call's abort.
 * The task lives as long as this call: the agent that starts it follows it.
 */
import { isCallToolResult, ProtocolError, specTypeSchemas, type CallToolResult, type Client } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  DispatchError,
  JsonRpcResponseError,
  toolDeclaration,
  type TaskEnabledSession,
  type TaskExecutionEvent,
} from '@modelcontextprotocol/ext-tasks/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import type { OpcoesDaChamada } from './conexao.js';
import { ChamadaNaoEnviada } from './naoEnviada.js';
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

export class TarefasMcp {
  private sessao: TaskEnabledSession | undefined;

  constructor(
    private readonly cliente: Client,
    /** The server's name: what ext-tasks scopes a task reference by. */
    private readonly servidor: string,
    /** AGENTE_MCP_TIMEOUT_SECONDS: each of the task's requests (tasks/get, tasks/cancel). */
    private readonly prazoMs: number,
    private readonly aoFalhar: (erro: Error) => void,
  ) {}

  /**
   * Starts the task and follows it until it ends. `sinal` is the call's
   * clock (it restarts on each sign of the task, and stands still while
   * a question is open, as the session's handler sees to).
   */
  async chamar(
    nome: string,
    argumentos: Record<string, unknown>,
    meta: Readonly<Record<string, string>>,
    opcoes: Pick<OpcoesDaChamada, 'aoProgredir'> & { readonly sinal: AbortSignal; readonly reiniciar: () => void },
  ): Promise<CallToolResult> {
    if (!this.cliente.getServerCapabilities()?.tasks?.requests?.tools?.call)
      throw new ChamadaNaoEnviada(
        `${nome} exige uma tarefa MCP, e o servidor ${this.servidor} nao aceita tools/call como tarefa (falta a capacidade tasks.requests.tools.call)`,
      );
    // The tool's declaration is all ext-tasks reads to call it as a task: no tools/list of its own.
    this.sessao ??= createTaskSessionFromClient(this.cliente, {
      endpointId: this.servidor,
      tools: { currentTool: () => undefined },
      onError: this.aoFalhar,
    });
    const execucao = await this.sessao
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
    const { sinal, reiniciar, aoProgredir } = opcoes;
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
    const aoMudar = (evento: TaskExecutionEvent<unknown>) => {
      if (evento.type !== 'task') return;
      const { status, statusMessage, taskId } = evento.task;
      // Any news of the task shows the server at work.
      reiniciar();
      if (status !== 'working' && status !== 'input_required') return;
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
      if (outcome.status === 'completed') {
        if (!isCallToolResult(outcome.result)) return falha('A tarefa MCP terminou com um resultado fora do formato de tools/call.');
        return outcome.result;
      }
      // The server said so: the task has that status. Otherwise ext-tasks lost the task here (a request that failed, the
      // connection closed): the task may still run, so it is told to stop, and the call fails as that error.
      if (outcome.task?.status === 'failed' && outcome.status === 'failed')
        return falha(outcome.error.message || 'A tarefa MCP falhou sem mensagem.');
      if (outcome.task?.status === 'cancelled') return falha('A tarefa MCP foi cancelada pelo servidor.');
      cancelar();
      await cancelamento;
      throw outcome.status === 'failed' ? comoDoSdk(outcome.error.cause ?? outcome.error) : new Error('a tarefa MCP foi cancelada');
    } catch (erro) {
      if (sinal.aborted) {
        await cancelamento;
        throw sinal.reason;
      }
      throw erro;
    } finally {
      sinal.removeEventListener('abort', cancelar);
      resultadoAberto.abort();
    }
  }

  /** Ends what still follows a task here; ext-tasks cancels on the server any task not yet ended. */
  async fechar(): Promise<void> {
    await this.sessao?.close();
  }
}
