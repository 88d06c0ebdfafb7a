/**
 * The deadline of one tools/call (AGENTE_MCP_TIMEOUT_SECONDS). The SDK's own
 * request timeout cannot stop, and a call of a `sessao` server may wait
 * minutes for a person to answer the question its server asked: this clock
 * pauses while a question is open, starts over on each progress
 * notification, and counts the wait for the server's turn too. Past it,
 * `sinal` aborts with the SDK's own timeout error, so the SDK cancels the
 * call and the caller sees what an SDK timeout looks like.
 *
 * Progress starts it over only up to TETO_EM_PRAZOS deadlines of running
 * time in all (time with no question open). The agent's claim on a step
 * lasts 3 × AGENTE_MCP_TIMEOUT_SECONDS + 5 s (main.ts, `limites.prazoMs`),
 * and a sweep in another agent replays a step whose claim ran out: a call
 * that reported progress for ever would outlive its claim and run beside
 * its own replay. Past the cap it aborts with the error the SDK gives for
 * its maxTotalTimeout.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

/** A call's running time, at most, in deadlines: what the claim on its step covers (see above). */
export const TETO_EM_PRAZOS = 3;

/** The SDK's own timer, left out of a request this clock times (setTimeout's largest delay). */
export const SEM_PRAZO_DO_SDK = 2 ** 31 - 1;

export class Relogio {
  private readonly vencido = new AbortController();
  /** Aborts on the deadline, on the cap, or with the caller's own signal. */
  readonly sinal: AbortSignal;
  private readonly tetoMs: number;
  private perguntas = 0;
  private parado = false;
  /** Running time before the current stretch (stretches end when a question opens). */
  private gastoMs = 0;
  /** When the current stretch began (meaningless while a question is open). */
  private desde: number;
  private relogio: NodeJS.Timeout | undefined;

  constructor(
    private readonly prazoMs: number,
    externo?: AbortSignal,
    /** Milliseconds on a monotonic clock; a test's own. */
    private readonly agora: () => number = () => performance.now(),
  ) {
    this.sinal = externo ? AbortSignal.any([externo, this.vencido.signal]) : this.vencido.signal;
    this.tetoMs = TETO_EM_PRAZOS * prazoMs;
    this.desde = agora();
    this.armar();
  }

  /** Progress was heard: the server is working, the full deadline again (within the cap). */
  reiniciar(): void {
    if (this.perguntas === 0) this.armar();
  }

  /** A question is waiting for its answer; the clock stands still until every open one is answered. */
  pausar(): void {
    if (this.perguntas++ === 0) this.gastoMs += this.agora() - this.desde;
    clearTimeout(this.relogio);
  }

  retomar(): void {
    if (--this.perguntas > 0) return;
    this.desde = this.agora();
    this.armar();
  }

  parar(): void {
    this.parado = true;
    clearTimeout(this.relogio);
  }

  /** Running time so far. */
  private gasto(): number {
    return this.gastoMs + this.agora() - this.desde;
  }

  private armar(): void {
    clearTimeout(this.relogio);
    if (this.parado) return;
    const restante = this.tetoMs - this.gasto();
    const [espera, erro] =
      restante > this.prazoMs
        ? [this.prazoMs, () => new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: this.prazoMs })]
        : [
            Math.max(0, restante),
            () =>
              new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', {
                maxTotalTimeout: this.tetoMs,
                totalElapsed: this.gasto(),
              }),
          ];
    this.relogio = setTimeout(() => this.vencido.abort(erro()), espera);
  }
}
