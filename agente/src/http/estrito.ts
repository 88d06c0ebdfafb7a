/**
 * What A2A v1.0 asks of a request that @a2a-js/sdk 1.3 lets through, or
 * answers with another code: checked before the SDK sees the request.
 * - A JSON-RPC envelope that is not a Request object is -32600 (§9.5); the
 *   SDK answers -32602.
 * - `historyLength` is a non-negative integer on every binding; the SDK
 *   refuses a negative one over HTTP+JSON only.
 * - A timestamp is RFC 3339 (§5.6.1); the SDK reads `statusTimestampAfter`
 *   with Date.parse, which takes "-1" for the year 2001.
 */
import { objeto } from 'compartilhado/log';

/** RFC 3339 date-time: a date, T, a time, and a zone (Z or an offset). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export type IdJsonRpc = string | number | null;

/** Why a body is no JSON-RPC Request object, with the id to answer under (null when it has none usable). */
export function envelopeInvalido(corpo: unknown): { readonly id: IdJsonRpc; readonly motivo: string } | undefined {
  const pedido = objeto(corpo);
  if (!pedido) return { id: null, motivo: 'o corpo deve ser um objeto JSON-RPC 2.0' };
  const { id } = pedido;
  const idValido = id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
  const responderA: IdJsonRpc = idValido && id !== undefined ? id : null;
  if (pedido.jsonrpc !== '2.0') return { id: responderA, motivo: '"jsonrpc" deve ser "2.0"' };
  if (typeof pedido.method !== 'string' || pedido.method === '') return { id: responderA, motivo: '"method" deve ser um texto' };
  if (!idValido) return { id: null, motivo: '"id" deve ser texto, numero ou null' };
  if (pedido.params !== undefined && !objeto(pedido.params)) return { id: responderA, motivo: '"params" deve ser um objeto' };
  return undefined;
}

const historicoInvalido = (valor: unknown) =>
  valor !== undefined && !(Number.isInteger(Number(valor)) && Number(valor) >= 0 && valor !== '');

const instanteInvalido = (valor: unknown) =>
  valor !== undefined && (typeof valor !== 'string' || !RFC3339.test(valor) || Number.isNaN(Date.parse(valor)));

/** What in a request's parameters (JSON-RPC params, or HTTP+JSON query) A2A refuses and the SDK takes. */
export function parametroInvalido(params: Readonly<Record<string, unknown>>): string | undefined {
  if ([params.historyLength, objeto(params.configuration)?.historyLength].some(historicoInvalido))
    return 'historyLength deve ser um inteiro nao negativo';
  if (instanteInvalido(params.statusTimestampAfter))
    return 'statusTimestampAfter deve ser um instante RFC 3339 (por exemplo 2026-12-01T10:00:00Z)';
  return undefined;
}
