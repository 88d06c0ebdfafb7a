/**
 * Requests with their headers exactly as given, repeats and Host included:
 * fetch joins a repeated header into one and writes Host from the URL, as
 * a hostile client (or a browser after a DNS rebinding) would not.
 */
import { request } from 'node:http';

export interface RespostaCrua {
  readonly status: number | undefined;
  readonly cabecalhos: Record<string, string | string[] | undefined>;
  readonly corpo: string;
}

/** `cabecalhos` as [name, value, name, value...]; a `host` among them replaces the URL's. */
export function pedirCru(url: URL, metodo: string, cabecalhos: readonly string[], corpo?: string): Promise<RespostaCrua> {
  const temHost = cabecalhos.some((valor, i) => i % 2 === 0 && valor.toLowerCase() === 'host');
  return new Promise((resolver, rejeitar) => {
    const pedido = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: metodo,
        headers: temHost ? [...cabecalhos] : ['host', url.host, ...cabecalhos],
      },
      (resposta) => {
        let texto = '';
        resposta.setEncoding('utf8');
        resposta.on('data', (parte: string) => (texto += parte));
        resposta.once('end', () => resolver({ status: resposta.statusCode, cabecalhos: resposta.headers, corpo: texto }));
      },
    );
    pedido.once('error', rejeitar);
    pedido.end(corpo);
  });
}

export async function postarCru(url: URL, cabecalhos: readonly string[], corpo: string): Promise<number | undefined> {
  return (await pedirCru(url, 'POST', cabecalhos, corpo)).status;
}
