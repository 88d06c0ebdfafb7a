/**
 * What may be shown of an MCP body: every `requestState` (the server's
 * sealed state, which only the server should read) becomes
 * `<selado: N bytes>`, wherever it sits. Used by the agent before it keeps
 * an exchange for the console, and by the console before it shows one.
 */
export function selarEstados(valor: unknown): unknown {
  if (Array.isArray(valor)) return valor.map(selarEstados);
  if (typeof valor !== 'object' || valor === null) return valor;
  return Object.fromEntries(
    Object.entries(valor).map(([chave, dentro]) => [
      chave,
      chave === 'requestState' && typeof dentro === 'string'
        ? `<selado: ${String(new TextEncoder().encode(dentro).length)} bytes>`
        : selarEstados(dentro),
    ]),
  );
}

/** A JSON text with its states sealed; what is not JSON keeps no state in the shape of one. */
export function selarTexto(texto: string, espacos?: number): string {
  try {
    return JSON.stringify(selarEstados(JSON.parse(texto)), null, espacos);
  } catch {
    return texto.replace(/"requestState"\s*:\s*"[^"]*"/g, '"requestState":"<selado>"');
  }
}
