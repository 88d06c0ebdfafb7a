/**
 * W3C trace context, only as far as the spec needs it: keep the caller's
 * trace-id, give every MCP request its own span-id.
 */
import { randomFillSync } from 'node:crypto';

export interface Trace {
  readonly traceId: string;
  readonly flags: string;
  /** With telemetry on, the span of the request this trace came from: what an answer to its pause links to. */
  readonly spanId?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/** A valid version-00 traceparent, or undefined (invalid headers are ignored, as the W3C spec says). */
export function lerTraceparent(valor: string | string[] | undefined): Trace | undefined {
  if (typeof valor !== 'string') return undefined;
  const [, traceId, spanId, flags] = TRACEPARENT.exec(valor.trim()) ?? [];
  if (traceId === undefined || spanId === undefined || flags === undefined || ZEROS.test(traceId) || ZEROS.test(spanId)) return undefined;
  return { traceId, flags };
}

/**
 * Random ids are cut from a pool refilled 4 KiB at a time, as Node does for
 * randomUUID: one call into the CSPRNG per few hundred ids, not one per id
 * (three per request, 2 % of the agent's CPU under load before the pool).
 */
const POOL = Buffer.alloc(4096);
let usados = POOL.length;

function hexAleatorio(bytes: number): string {
  if (usados + bytes > POOL.length) {
    randomFillSync(POOL);
    usados = 0;
  }
  usados += bytes;
  return POOL.toString('hex', usados - bytes, usados);
}

export function novoTrace(): Trace {
  return { traceId: hexAleatorio(16), flags: '01' };
}

/** A version-00 traceparent. */
const traceparent = (traceId: string, spanId: string, flags: string) => `00-${traceId}-${spanId}-${flags}`;

/** The traceparent of the span a trace came from, when it names one. */
export const traceparentDaOrigem = ({ traceId, spanId, flags }: Trace): string | undefined =>
  spanId === undefined ? undefined : traceparent(traceId, spanId, flags);

/** The traceparent for one outgoing request: same trace, new span. */
export const traceparentFilho = ({ traceId, flags }: Trace): string => traceparent(traceId, hexAleatorio(8), flags);
