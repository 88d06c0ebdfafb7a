/**
 * What A2A v1.0 asks of a request that @a2a-js/sdk 1.3 lets through, or
 * answers with another code: checked before the SDK sees the request.
 * - A JSON-RPC envelope that is not a Request object is -32600 (§9.5); the
 *   SDK answers -32602. So is a body that is JSON but no object (`"x"`, `1`,
 *   `null`, `[]`), as JSON-RPC 2.0 asks. A non-empty array is a JSON-RPC
 *   batch, which A2A does not define: it is refused whole, with one -32600
 *   answer (id null), not an array of answers, so no call in it runs.
 * - `historyLength` is a non-negative integer on every binding; the SDK
 *   refuses a negative one over HTTP+JSON only.
 * - A timestamp is RFC 3339 (§5.6.1); the SDK reads `statusTimestampAfter`
 *   with Date.parse, which takes "-1" for the year 2001.
 */
import { objeto } from 'compartilhado/log';

/** RFC 3339 date-time: a date, T, a time, and a zone (Z or an offset). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Whether a text has a C0 control or DEL: nothing a name or an id of ours holds. */
export function temControle(texto: string): boolean {
  for (let i = 0; i < texto.length; i++) {
    const codigo = texto.charCodeAt(i);
    if (codigo < 0x20 || codigo === 0x7f) return true;
  }
  return false;
}

/** Why a body is no JSON-RPC Request object; the answer's id is read from it as for any error (http.ts's responderErro). */
export function envelopeInvalido(corpo: unknown): string | undefined {
  if (Array.isArray(corpo) && corpo.length > 0) return 'A2A nao aceita lotes (batch) JSON-RPC: envie um pedido por vez';
  const pedido = objeto(corpo);
  if (!pedido) return 'o corpo deve ser um objeto JSON-RPC 2.0';
  const { id } = pedido;
  if (pedido.jsonrpc !== '2.0') return '"jsonrpc" deve ser "2.0"';
  if (typeof pedido.method !== 'string' || pedido.method === '') return '"method" deve ser um texto';
  if (!(id === undefined || id === null || typeof id === 'string' || typeof id === 'number')) return '"id" deve ser texto, numero ou null';
  // The SDK prints a stream's refusal to stderr with the id as it came: a line break in it would forge a log line.
  if (typeof id === 'string' && temControle(id)) return '"id" nao pode ter caracteres de controle';
  if (pedido.params !== undefined && !objeto(pedido.params)) return '"params" deve ser um objeto';
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
