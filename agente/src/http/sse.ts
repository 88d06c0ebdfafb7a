/**
 * SSE event ids on the A2A streams. The SDK's express handlers write each
 * streamed event themselves, `res.write(formatSSEEvent(event))`, as
 * `data: <json>\n\n` with no `id:` line (jsonRpcHandler and restHandler
 * in @a2a-js/sdk/dist/server/express), and take no option that could add
 * one: their options are requestHandler, userBuilder, contextBuilder and
 * legacyCompat (JsonRpcHandlerOptions, RestHandlerOptions), and an event
 * of StreamResponse has no field for it. The request handler knows each
 * event's place in its Task's log: through the request's slot it names the
 * id of the event it hands out next, and the SDK's next `data:` write
 * carries it, the event's JSON the SDK's byte for byte. This is the one
 * place a `res` method is wrapped, for want of any other way. The slot also
 * says when the client is gone, so a stream that follows a Task stops
 * waiting for it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler, Response } from 'express';

interface Fluxo {
  proximoId: number | undefined;
  readonly fim: AbortSignal;
}

const fluxoAtual = new AsyncLocalStorage<Fluxo>();

/**
 * Aborted when the agent stops: a follow (a paused Task's subscription)
 * would otherwise hold the server's close until the forced exit, and the
 * work after it (pending pushes, the gRPC drain) would never run.
 */
const encerramento = new AbortController();
export const encerrarFluxos = (): void => encerramento.abort();

/** In front of the SDK's handlers: each `data:` write takes the id named for it, if any. */
export function idsNosEventos(): RequestHandler {
  return (_req, res, next) => {
    const fim = new AbortController();
    res.once('close', () => fim.abort());
    const fluxo: Fluxo = { proximoId: undefined, fim: AbortSignal.any([fim.signal, encerramento.signal]) };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((parte: unknown, ...resto: unknown[]) => {
      const id = fluxo.proximoId;
      fluxo.proximoId = undefined;
      const evento = id !== undefined && typeof parte === 'string' && parte.startsWith('data: ');
      return write(evento ? `id: ${String(id)}\n${parte}` : parte, ...resto);
    }) as Response['write'];
    fluxoAtual.run(fluxo, next);
  };
}

/** The id of the event the current request's stream writes next; undefined writes none. */
export function idDoProximoEvento(id: number | undefined): void {
  const fluxo = fluxoAtual.getStore();
  if (fluxo) fluxo.proximoId = id;
}

/**
 * A stream of another transport (gRPC) run in its own slot: `fim` aborts
 * when its client cancels. Its events carry no id (gRPC has no place for one).
 */
export function noFluxo<T>(fim: AbortSignal, seguir: () => T): T {
  return fluxoAtual.run({ proximoId: undefined, fim: AbortSignal.any([fim, encerramento.signal]) }, seguir);
}

/** Aborted when the current request's client is gone, or the agent stops. */
export const fimDoPedido = (): AbortSignal => fluxoAtual.getStore()?.fim ?? encerramento.signal;
