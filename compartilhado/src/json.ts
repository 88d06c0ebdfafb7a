/** Reading request bodies of unknown shape, the same way in both processes. */

/** A JSON text parsed, or undefined when it is not JSON. */
export function lerJson(texto: string): unknown {
  try {
    return JSON.parse(texto);
  } catch {
    return undefined;
  }
}

/** The SDKs validate recursively: a body nested thousands deep would overflow their stack. */
export const PROFUNDIDADE_MAXIMA = 64;

/**
 * The first thing wrong with a parsed body, or undefined: nesting past
 * PROFUNDIDADE_MAXIMA, or whatever `conferir` finds in a value (given with
 * the key it is under). Walked without recursion, so any depth is safe.
 */
export function problemaNoJson(
  corpo: unknown,
  conferir: (valor: unknown, chave: string) => string | undefined = () => undefined,
): string | undefined {
  const pendentes: [unknown, number, string][] = [[corpo, 0, '']];
  for (let item = pendentes.pop(); item; item = pendentes.pop()) {
    const [valor, nivel, chave] = item;
    const problema = conferir(valor, chave);
    if (problema !== undefined) return problema;
    if (typeof valor !== 'object' || valor === null) continue;
    if (nivel >= PROFUNDIDADE_MAXIMA) return `JSON aninhado alem de ${String(PROFUNDIDADE_MAXIMA)} niveis`;
    for (const [filha, filho] of Object.entries(valor)) pendentes.push([filho, nivel + 1, filha]);
  }
  return undefined;
}
