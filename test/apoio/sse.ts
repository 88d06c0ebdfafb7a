/**
 * An A2A stream read raw, over fetch: each SSE event with its `id:` line,
 * which the official client (parseSseStream in @a2a-js/sdk) drops, and a
 * Last-Event-ID header, which it never sends. JSON-RPC results are
 * unwrapped, so both bindings give the same StreamResponse.
 */
import { randomUUID } from 'node:crypto';
import { StreamResponse } from '@a2a-js/sdk';
import type { Binding } from './cliente-a2a.js';

export interface EventoSse {
  readonly id: string | undefined;
  /** `error` for an error event, `message` otherwise. */
  readonly tipo: string;
  readonly dados: unknown;
}

/** The events of an SSE body, as they arrive; ends with the body. */
export async function* eventosSse(resposta: Response): AsyncGenerator<EventoSse, void, undefined> {
  if (!resposta.body) return;
  const decodificador = new TextDecoder();
  let pendente = '';
  for await (const parte of resposta.body) {
    pendente += decodificador.decode(parte, { stream: true });
    let fim = pendente.indexOf('\n\n');
    while (fim >= 0) {
      const bloco = pendente.slice(0, fim);
      pendente = pendente.slice(fim + 2);
      fim = pendente.indexOf('\n\n');
      const campos = new Map<string, string>();
      for (const linha of bloco.split('\n')) {
        const separador = linha.indexOf(': ');
        if (separador > 0) campos.set(linha.slice(0, separador), linha.slice(separador + 2));
      }
      yield { id: campos.get('id'), tipo: campos.get('event') ?? 'message', dados: JSON.parse(campos.get('data') ?? 'null') };
    }
  }
}

/** The StreamResponse an event carries, unwrapped from JSON-RPC's `result` when it has one. */
export function respostaDo(evento: EventoSse): StreamResponse {
  const dados = evento.dados as { jsonrpc?: string; result?: unknown };
  return StreamResponse.fromJSON(dados.jsonrpc ? dados.result : dados);
}

/** SubscribeToTask on a binding, raw, with the given headers (Last-Event-ID among them). */
export function assinarCru(base: string, binding: Binding, taskId: string, cabecalhos: Record<string, string> = {}, sinal?: AbortSignal) {
  if (binding === 'HTTP+JSON')
    return fetch(new URL(`/rest/tasks/${encodeURIComponent(taskId)}:subscribe`, base), { headers: cabecalhos, signal: sinal });
  return fetch(new URL('/a2a', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...cabecalhos },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method: 'SubscribeToTask', params: { id: taskId } }),
    signal: sinal,
  });
}
