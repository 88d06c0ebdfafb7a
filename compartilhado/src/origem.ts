/**
 * Which browser pages may call a process: the guard against DNS rebinding,
 * one rule for the MCP server and the agent.
 *
 * A request that carries `Origin` comes from a browser page. It is served
 * only when that origin is the process's own public origin, a loopback name
 * on the process's own port, or one the operator listed. A request without
 * `Origin` is not from a page (SDK clients, curl, the course validator) and
 * passes. On a loopback listener the `Host` header must name the process
 * too: after a rebinding, the browser sends the attacker's host name.
 *
 * The SDKs' own guards (`originValidation`, `hostHeaderValidation` in
 * @modelcontextprotocol/node) compare host names on any port; this rule
 * needs whole origins, scheme and port included.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { ConfiguracaoInvalida } from './ambiente.js';
import { citado } from './entrada.js';
import { urlLocal } from './processo.js';

const NOMES_DE_LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Whether a listen address is on the loopback interface (where the Host
 * check applies). IPv6 is read as URL parsing writes it, so every spelling
 * of ::1 and an IPv4-mapped 127.x (::ffff:7f..) count.
 */
export function ehLoopback(host: string): boolean {
  if (host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host)) return true;
  if (!host.includes(':') || !URL.canParse(`http://[${host}]/`)) return false;
  const ipv6 = new URL(`http://[${host}]/`).hostname;
  return ipv6 === '[::1]' || ipv6.startsWith('[::ffff:7f');
}

export interface OpcoesDaOrigem {
  /** The port the process is bound to. */
  readonly porta: number;
  /** The address it listens on: a loopback one turns the Host check on. */
  readonly host: string;
  /** Its public URL (AGENTE_URL, MCP_URL), when it has one. */
  readonly publica?: URL;
  /** Origins the operator allows besides (AGENTE_ORIGENS, MCP_ORIGENS), as origin strings. */
  readonly listadas: readonly string[];
}

/** Why a request is refused, or undefined when it may go on. */
export type RegraDeOrigem = (headers: IncomingHttpHeaders) => string | undefined;

export function regraDeOrigem({ porta, host, publica, listadas }: OpcoesDaOrigem): RegraDeOrigem {
  // The loopback names on its own port, and the loopback address it is bound to (127.0.0.2, say) as urlLocal writes it.
  const locais = [
    ...NOMES_DE_LOOPBACK.map((nome) => new URL(`http://${nome}:${porta}`)),
    ...(ehLoopback(host) ? [urlLocal(host, porta)] : []),
  ];
  const outras = [...(publica ? [publica.origin] : []), ...listadas].map((origem) => new URL(origem));
  const origens = new Set([...locais, ...outras].map((url) => url.origin));
  const hosts = new Set([...locais, ...outras].map((url) => url.host));
  const conferirHost = ehLoopback(host);
  return ({ origin, host: cabecalhoHost }) => {
    // The refusal quotes the header, for whoever debugs a proxy; only so much of it, as any client text.
    if (origin !== undefined && origin !== '' && !origens.has(origin)) return `Invalid Origin: ${citado(origin)}`;
    if (conferirHost && !hosts.has((cabecalhoHost ?? '').toLowerCase())) return `Invalid Host: ${citado(cabecalhoHost ?? '(ausente)')}`;
    return undefined;
  };
}

/** The refusal both processes answer with: 403 and a JSON-RPC error naming what was refused (no id: the body was not read). */
export function responderRecusaDeOrigem(res: ServerResponse, motivo: string): void {
  const corpo = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: motivo }, id: null });
  res.writeHead(403, { 'content-type': 'application/json' }).end(corpo);
}

/** AGENTE_ORIGENS / MCP_ORIGENS: comma-separated origins, each exactly scheme://host[:porta]. */
export function lerOrigens(env: NodeJS.ProcessEnv, nome: string): string[] {
  const bruto = env[nome];
  if (!bruto) return [];
  return bruto.split(',').map((entrada) => {
    const url = URL.canParse(entrada.trim()) ? new URL(entrada.trim()) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entrada.trim().toLowerCase().replace(/\/$/, '')) {
      throw new ConfiguracaoInvalida(
        `${nome}=${bruto}: "${entrada}" nao e uma origem; esperado origens separadas por virgula, cada uma http(s)://host[:porta] como o navegador a escreve: sem caminho, sem a porta padrao, nome internacional em punycode (ex.: http://localhost:5173,https://salas.exemplo.com)`,
      );
    }
    return url.origin;
  });
}
