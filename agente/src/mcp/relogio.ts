/**
 * The deadline of one tools/call (AGENTE_MCP_TIMEOUT_SECONDS). The SDK's own
 * request timeout cannot stop, and a call of a `sessao` server may wait
 * minutes for a person to answer the question its server asked: this clock
 * pauses while a question is open, starts over on each progress
 * notification, and counts the wait for the server's turn too. Past it,
 * `sinal` aborts with the SDK's own timeout error, so the SDK cancels the
 * call and the caller sees what an SDK timeout looks like.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

export class Relogio {
  private readonly vencido = new AbortController();
  /** Aborts on the deadline or with the caller's own signal. */
  readonly sinal: AbortSignal;
  private perguntas = 0;
  private parado = false;
  private relogio: NodeJS.Timeout | undefined;

  constructor(
    private readonly prazoMs: number,
    externo?: AbortSignal,
  ) {
    this.sinal = externo ? AbortSignal.any([externo, this.vencido.signal]) : this.vencido.signal;
    this.armar();
  }

  /** Progress was heard: the server is working, the full deadline again. */
  reiniciar(): void {
    if (this.perguntas === 0) this.armar();
  }

  /** A question is waiting for its answer; the clock stands still until every open one is answered. */
  pausar(): void {
    this.perguntas++;
    clearTimeout(this.relogio);
  }

  retomar(): void {
    this.perguntas--;
    this.reiniciar();
  }

  parar(): void {
    this.parado = true;
    clearTimeout(this.relogio);
  }

  private armar(): void {
    clearTimeout(this.relogio);
    if (this.parado) return;
    this.relogio = setTimeout(
      () => this.vencido.abort(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: this.prazoMs })),
      this.prazoMs,
    );
  }
}
