/**
 * A request the MCP connection knows never reached its server: its turn
 * never came, the connection was already closed, or the session it needed
 * could not be opened (the child not spawned, the server not reached).
 * Nothing the server could do was done, so a failed call of this kind may
 * be reported as failed, never as an outcome unknown.
 *
 * An SdkError, so a reader of SDK failures still takes it for the server
 * being unavailable; its code is its cause's when the SDK gave one (a
 * timeout stays a timeout), else NotConnected; the failure itself is its
 * cause.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

export class ChamadaNaoEnviada extends SdkError {
  constructor(mensagem: string, causa?: unknown) {
    super(causa instanceof SdkError ? causa.code : SdkErrorCode.NotConnected, mensagem, undefined, { cause: causa });
    this.name = 'ChamadaNaoEnviada';
  }
}

/**
 * The opposite case, for an MCP task that exists: following it failed (the
 * connection dropped, the server did not answer, the session could not be
 * joined), and the task may still run and finish. Its outcome is unknown,
 * never "nothing was done", whatever the failure's cause says; following
 * it again is safe.
 */
export class SeguimentoInterrompido extends Error {
  constructor(taskId: string, causa: unknown) {
    super(`o acompanhamento da tarefa MCP ${taskId} caiu (${causa instanceof Error ? causa.message : String(causa)})`, { cause: causa });
    this.name = 'SeguimentoInterrompido';
  }
}
