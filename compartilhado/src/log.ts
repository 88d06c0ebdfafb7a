/** Pieces of the one-line-per-request logs both processes write. */

/** A client-supplied value as a log field: as is when plain, quoted and escaped otherwise, so no client can split or forge a line. */
export function campo(valor: unknown): string {
  const texto = typeof valor === 'string' ? valor : JSON.stringify(valor ?? null);
  return /^[\x21-\x7e]{1,200}$/.test(texto) ? texto : JSON.stringify(texto.slice(0, 200));
}

/**
 * The outcome of a JSON-RPC response body: `erro <code>`, the result's
 * `resultType` (with `isError`), or `-`. Read with patterns, not a parse:
 * bodies can be large and this runs on every request.
 */
export function resultadoJsonRpc(corpo: string): string {
  const codigo = /"error":\{"code":(-?\d+)/.exec(corpo)?.[1];
  if (codigo) return `erro ${codigo}`;
  const tipo = /"resultType":"(\w+)"/.exec(corpo)?.[1];
  if (!tipo) return '-';
  return corpo.includes('"isError":true') ? `${tipo} isError` : tipo;
}
