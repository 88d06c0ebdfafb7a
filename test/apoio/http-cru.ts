/**
 * A POST with its headers exactly as given, repeats included: fetch joins
 * a repeated header into one, as a hostile client would not.
 */
import { request } from 'node:http';

export function postarCru(url: URL, cabecalhos: readonly string[], corpo: string): Promise<number | undefined> {
  return new Promise((resolver, rejeitar) => {
    const pedido = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: ['host', url.host, ...cabecalhos] },
      (resposta) => {
        resposta.resume();
        resolver(resposta.statusCode);
      },
    );
    pedido.once('error', rejeitar);
    pedido.end(corpo);
  });
}
