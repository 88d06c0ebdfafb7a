/**
 * How a server is named in what leaves mcp/: Task messages that A2A
 * clients read, the start-up failure line, log lines. Never with what may
 * be a credential: a stdio server's args (a database URL with its
 * password), an HTTP URL's query or fragment (a token), or any value a
 * `${VAR}` of the file took from the environment (a URL's host or path,
 * a command, a header): where the URL's origin and path or the command's
 * file name name a variable, they are shown as the file writes them. A
 * URL's userinfo is refused by the configuration (configuracao.ts).
 */
import { basename } from 'node:path';
import { SdkError } from '@modelcontextprotocol/client';
import { objeto } from 'compartilhado/log';
import { ehHttp, type ServidorConfigurado } from './configuracao.js';

/** An HTTP endpoint as messages show it: origin and path, no userinfo, query or fragment. */
export const ondeDaUrl = (url: URL): string => `${url.origin}${url.pathname}`;

/** Where a server is: its URL so shown, or the command's file name and the server's name, never the args. */
export function ondeEsta(servidor: ServidorConfigurado): string {
  return ehHttp(servidor)
    ? (servidor.urlComoEscrita ?? ondeDaUrl(servidor.url))
    : `stdio ${servidor.comandoComoEscrito ?? basename(servidor.command)} de ${servidor.nome}`;
}

/**
 * A variable's value shorter than this is taken out of the texts only where
 * the server is named (ondeEsta): a credential is longer, and a short value
 * (a port, "v1") occurs in unrelated words of a message.
 */
const MINIMO_DE_UM_SEGREDO = 8;

/** A text as written and, when it differs, percent-decoded (a message may quote either). */
function formas(texto: string): string[] {
  try {
    const decodificado = decodeURIComponent(texto);
    return decodificado === texto ? [texto] : [texto, decodificado];
  } catch {
    return [texto];
  }
}

/**
 * What takes a server's secrets out of a text: its URL whole becomes its
 * description, and its query and fragment, wherever else they appear (a
 * request line quotes path and query; a parameter alone), are removed;
 * each value a `${VAR}` took from the environment, as written, decoded,
 * percent-encoded or lower-cased (a host name), becomes its reference. A
 * stdio server's args appear in no message, but a command or cwd from the
 * environment does (`spawn <command> ENOENT`).
 */
export function semSegredos(servidor: ServidorConfigurado): (texto: string) => string {
  const daUrl: [string, string][] = [];
  if (ehHttp(servidor)) {
    const { url } = servidor;
    const partes = [url.search + url.hash, url.search, url.search.slice(1), url.hash, url.hash.slice(1)].filter(
      (parte) => parte.length > 1,
    );
    daUrl.push(
      ...formas(url.href).map((forma): [string, string] => [forma, ondeEsta(servidor)]),
      ...partes.flatMap(formas).map((forma): [string, string] => [forma, '']),
    );
  }
  // The longest first: a value inside another is replaced only where it stands alone.
  const variaveis = Object.entries(servidor.variaveis ?? {})
    .filter(([, valor]) => valor.length >= MINIMO_DE_UM_SEGREDO)
    .flatMap(([nome, valor]) =>
      [...new Set([...formas(valor), encodeURIComponent(valor), valor.toLowerCase()])].map((forma): [string, string] => [
        forma,
        `\${${nome}}`,
      ]),
    )
    .sort(([a], [b]) => b.length - a.length);
  const trocas = [...daUrl, ...variaveis];
  if (trocas.length === 0) return (texto) => texto;
  // A function, so a `$` in the replacement is never read as a pattern ($&, $1).
  return (texto) => trocas.reduce((limpo, [segredo, troca]) => limpo.replaceAll(segredo, () => troca), texto);
}

/**
 * Clears an error in place before it leaves mcp/, logged or thrown: the
 * message and stack of it and of every error it wraps (its cause, an
 * SdkError's data.cause, an AggregateError's errors), and every other
 * text it carries (a spawn failure's `path`, a network failure's
 * `hostname` or `address`); a spawn failure's `spawnargs` (the child's
 * args) go. The same object goes on, so its class, code and HTTP status
 * still tell the caller what happened.
 */
export function limparErro(erro: unknown, limpar: (texto: string) => string): void {
  const vistos = new Set<Error>();
  const visitar = (atual: unknown): void => {
    if (!(atual instanceof Error) || vistos.has(atual)) return;
    vistos.add(atual);
    for (const campo of new Set(['message', 'stack', ...Object.keys(atual)])) {
      const texto: unknown = Reflect.get(atual, campo);
      if (typeof texto !== 'string') continue;
      const limpo = limpar(texto);
      // Only what changes is written, as an own property: an abort's DOMException has a getter for its message.
      if (limpo !== texto) Object.defineProperty(atual, campo, { value: limpo, writable: true, configurable: true });
    }
    Reflect.deleteProperty(atual, 'spawnargs');
    visitar(atual.cause);
    if (atual instanceof SdkError) visitar(objeto(atual.data)?.cause);
    if (atual instanceof AggregateError) for (const interno of atual.errors as unknown[]) visitar(interno);
  };
  visitar(erro);
}
