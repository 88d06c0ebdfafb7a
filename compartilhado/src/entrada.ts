/**
 * What a client sends that both processes guard against the same way: the
 * NUL character, which PostgreSQL's text type cannot hold (it would surface
 * as a database failure, a 500), and client text quoted back in an error
 * message, which must not make the answer as long as what was sent.
 */

/** How much of a client's text an answer quotes. */
export const TAMANHO_DA_CITACAO = 100;

/** Client text quoted in an answer: at most TAMANHO_DA_CITACAO characters, then `...`. */
export const citado = (texto: string): string => (texto.length > TAMANHO_DA_CITACAO ? `${texto.slice(0, TAMANHO_DA_CITACAO)}...` : texto);

/** The longest error message either process sends: room for its own words and a few quotes. */
export const TAMANHO_MAXIMO_DA_MENSAGEM = 400;

const TRECHO_LONGO = new RegExp(`\\S{${String(TAMANHO_DA_CITACAO + 1)},}`, 'g');

/**
 * An error message as it leaves the process. The SDKs quote the client in
 * theirs (a version header, a Task id, a tool name) and give no hook to do
 * it otherwise, so every run without whitespace longer than a quote is cut
 * as `citado` cuts it, which keeps the SDK's own words around it ("Supported
 * versions: 1.0"); client text with spaces in it is caught by the cap on the whole.
 */
export function mensagemContida(mensagem: string): string {
  const cortada = mensagem.replace(TRECHO_LONGO, citado);
  return cortada.length > TAMANHO_MAXIMO_DA_MENSAGEM ? `${cortada.slice(0, TAMANHO_MAXIMO_DA_MENSAGEM)}...` : cortada;
}

/** Why a request target with NUL is refused, in the words both processes use. */
export const NUL_NA_URL = 'a URL traz o caractere NUL (%00), que nao e aceito';

/** Why a body with NUL is refused. */
export const NUL_NO_CORPO = 'o corpo traz o caractere NUL (\\u0000), que nao e aceito';

/**
 * Whether a request target (path and query, as received) names NUL. It is
 * read before any route decodes it: every route of the process refuses it
 * alike, and none has to remember to.
 */
export const urlComNul = (url: string): boolean => url.includes('%00') || url.includes('\0');

/** For problemaNoJson (compartilhado/json): a key or string value of a parsed body that holds NUL. */
export const nulNoCorpo = (valor: unknown, chave: string): string | undefined =>
  (typeof valor === 'string' && valor.includes('\0')) || chave.includes('\0') ? NUL_NO_CORPO : undefined;
