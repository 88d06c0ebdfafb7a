/**
 * Reading an A2A stream a piece at a time, and tying an agent's log lines to
 * one request: what a test needs to act in the middle of a Task (a cancel
 * after its first progress) without waiting on a clock.
 */
import { randomBytes } from 'node:crypto';
import type { StreamResponse } from '@a2a-js/sdk';
import type { RequestOptions } from '@a2a-js/sdk/client';

export interface Leitor {
  /** The events read up to and including the first that `condicao` accepts; the stream ending first fails the test. */
  ate(condicao: (evento: StreamResponse) => boolean): Promise<StreamResponse[]>;
  /** Every event left, once the stream ends. */
  resto(): Promise<StreamResponse[]>;
}

/** One iterator over the stream, shared by ate() and resto(): nothing read is lost between them. */
export function leitor(fluxo: AsyncIterable<StreamResponse>): Leitor {
  const iterador = fluxo[Symbol.asyncIterator]();
  return {
    async ate(condicao) {
      const lidos: StreamResponse[] = [];
      for (;;) {
        const lido = await iterador.next();
        if (lido.done === true)
          throw new Error(`o stream acabou sem o evento esperado; lidos: ${JSON.stringify(lidos.map((evento) => evento.payload?.$case))}`);
        lidos.push(lido.value);
        if (condicao(lido.value)) return lidos;
      }
    },
    async resto() {
      const lidos: StreamResponse[] = [];
      for (let lido = await iterador.next(); !lido.done; lido = await iterador.next()) lidos.push(lido.value);
      return lidos;
    },
  };
}

/**
 * A W3C traceparent of a fresh trace, sent as an HTTP header by the official
 * client: the agent keeps the trace-id on every MCP request of the Task, so
 * its `mcp->` log lines name the Task's calls.
 */
export function rastro(): { readonly traceId: string; readonly opcoes: RequestOptions } {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, opcoes: { serviceParameters: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } } };
}
