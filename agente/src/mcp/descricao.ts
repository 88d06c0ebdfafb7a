/**
 * How a server is named in what leaves mcp/: Task messages that A2A
 * clients read, the start-up failure line, log lines. Never with what may
 * be a credential: a stdio server's args (a database URL with its
 * password), an HTTP URL's query or fragment (a token). A URL's userinfo
 * is refused by the configuration (configuracao.ts), so its query and
 * fragment are all it can hide.
 */
import { basename } from 'node:path';
import { SdkError } from '@modelcontextprotocol/client';
import { objeto } from 'compartilhado/log';
import { ehHttp, type ServidorConfigurado } from './configuracao.js';

/** An HTTP endpoint as messages show it: origin and path, no userinfo, query or fragment. */
export const ondeDaUrl = (url: URL): string => `${url.origin}${url.pathname}`;

/** Where a server is: its URL so shown, or the command's file name and the server's name, never the args. */
export function ondeEsta(servidor: ServidorConfigurado): string {
  return ehHttp(servidor) ? ondeDaUrl(servidor.url) : `stdio ${basename(servidor.command)} de ${servidor.nome}`;
}

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
 * What takes a server's URL secrets out of a text: the URL whole becomes
 * its description, and its query and fragment, wherever else they appear
 * (a request line quotes path and query; a parameter alone), are removed.
 * Nothing to take for a stdio server: its args appear in no message.
 */
export function semSegredos(servidor: ServidorConfigurado): (texto: string) => string {
  if (!ehHttp(servidor)) return (texto) => texto;
  const { url } = servidor;
  const partes = [url.search + url.hash, url.search, url.search.slice(1), url.hash, url.hash.slice(1)].filter((parte) => parte.length > 1);
  const trocas: [string, string][] = [
    ...formas(url.href).map((forma): [string, string] => [forma, ondeDaUrl(url)]),
    ...partes.flatMap(formas).map((forma): [string, string] => [forma, '']),
  ];
  return (texto) => trocas.reduce((limpo, [segredo, troca]) => limpo.replaceAll(segredo, troca), texto);
}

/**
 * Clears an error in place before it leaves mcp/, logged or thrown: the
 * message and stack of it and of every error it wraps (its cause, an
 * SdkError's data.cause, an AggregateError's errors), and a spawn
 * failure's `spawnargs` (the child's args). The same object goes on, so
 * its class, code and HTTP status still tell the caller what happened.
 */
export function limparErro(erro: unknown, limpar: (texto: string) => string): void {
  const vistos = new Set<Error>();
  const visitar = (atual: unknown): void => {
    if (!(atual instanceof Error) || vistos.has(atual)) return;
    vistos.add(atual);
    for (const campo of ['message', 'stack'] as const) {
      const texto = atual[campo];
      const limpo = texto === undefined ? texto : limpar(texto);
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
