/** Pieces of the one-line-per-request logs both processes write. */

/** A client-supplied value as a log field: as is when plain, quoted and escaped otherwise, so no client can split or forge a line. */
export function campo(valor: unknown): string {
  const texto = typeof valor === 'string' ? valor : JSON.stringify(valor ?? null);
  return /^[\x21-\x7e]{1,200}$/.test(texto) ? texto : JSON.stringify(texto.slice(0, 200));
}

/** One log line's fields, `chave=valor`, every value through campo(). */
export function campos(pares: Record<string, unknown>): string {
  return Object.entries(pares)
    .map(([chave, valor]) => `${chave}=${campo(valor)}`)
    .join(' ');
}

/** A parsed JSON value read as an object, or undefined: for walking bodies of unknown shape into log fields. */
export function objeto(valor: unknown): Record<string, unknown> | undefined {
  return typeof valor === 'object' && valor !== null && !Array.isArray(valor) ? (valor as Record<string, unknown>) : undefined;
}

/**
 * A result's outcome as a line says it: an elicitation's action, or its
 * resultType (complete when it names none: a 2025 result, a list, a read),
 * and isError.
 */
export function desfechoDoResultado(valor: unknown): string {
  const resultado = objeto(valor);
  const tipo = [resultado?.action, resultado?.resultType].find((campo) => typeof campo === 'string') ?? 'complete';
  return `${tipo}${resultado?.isError === true ? ' isError' : ''}`;
}

/**
 * What an MCP request body says of itself, as log fields: method, id (as
 * JSON, so "3" and 3 differ), tool name or resource URI, and traceparent.
 * Never the arguments or the requestState.
 */
export function camposDoPedidoMcp(corpo: unknown): Record<string, unknown> {
  const pedido = objeto(corpo);
  const params = objeto(pedido?.params);
  return {
    metodo: pedido?.method ?? '-',
    id: JSON.stringify(pedido?.id ?? null),
    // completion/complete names what it completes in its ref: a prompt's name or a template's URI.
    nome: params?.name ?? params?.uri ?? objeto(params?.ref)?.name ?? objeto(params?.ref)?.uri ?? '-',
    traceparent: objeto(params?._meta)?.traceparent ?? '-',
  };
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
