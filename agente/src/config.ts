/** Environment read and validated once, before anything listens. */
import { isIPv6 } from 'node:net';
import { ConfiguracaoInvalida, lerInteiro, lerPorta } from 'compartilhado/ambiente';

export interface Configuracao {
  readonly porta: number;
  readonly host: string;
  readonly mcpUrl: URL;
  /** Public base URL for the card; undefined means "derive from the port actually bound". */
  readonly urlPublica: URL | undefined;
  readonly limiteDoCorpoBytes: number;
  /** TASKS_DB: a SQLite file or a postgres:// URL; undefined keeps Tasks in memory. */
  readonly banco: string | undefined;
  readonly maxTarefas: number;
  readonly maxPausadas: number;
  /** How long a paused Task waits for its answer: the MCP server's requestState lifetime. */
  readonly validadeDaPausaMs: number;
  /** AGENTE_PUSH_HOSTS: the only hosts a push notification may be POSTed to, against server-side request forgery. */
  readonly hostsDePush: ReadonlySet<string>;
}

/** An http(s) URL from the environment: with a default it is always there, without one it may be absent. */
function url(env: NodeJS.ProcessEnv, nome: string, padrao: string): URL;
function url(env: NodeJS.ProcessEnv, nome: string): URL | undefined;
function url(env: NodeJS.ProcessEnv, nome: string, padrao?: string): URL | undefined {
  const bruto = env[nome] || padrao;
  if (bruto === undefined) return undefined;
  try {
    const valor = new URL(bruto);
    if (valor.protocol !== 'http:' && valor.protocol !== 'https:') throw new Error();
    return valor;
  } catch {
    throw new ConfiguracaoInvalida(`${nome}=${bruto}: esperado uma URL http(s) absoluta`);
  }
}

/** A host name or IP address as URL parsing writes it (127.1 is 127.0.0.1), IPv6 without brackets; undefined for anything else. */
function host(entrada: string): string | undefined {
  const endereco = entrada.replace(/^\[(.*)\]$/, '$1');
  // Host characters only: with a scheme, port, path or userinfo, `http://${entrada}/` would parse as another host or drop the rest.
  const naUrl = isIPv6(endereco) ? `[${endereco}]` : /^[a-z0-9._-]+$/.test(entrada) ? entrada : undefined;
  if (naUrl === undefined || !URL.canParse(`http://${naUrl}/`)) return undefined;
  return new URL(`http://${naUrl}/`).hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Comma-separated hosts, compared with a webhook URL's host exactly; unset or empty means loopback only. */
function hosts(env: NodeJS.ProcessEnv, nome: string, padrao: readonly string[]): ReadonlySet<string> {
  const bruto = env[nome] ?? '';
  const entradas = bruto
    .split(',')
    .map((entrada) => entrada.trim().toLowerCase())
    .filter((entrada) => entrada !== '');
  if (entradas.length === 0) return new Set(padrao);
  return new Set(
    entradas.map((entrada) => {
      const valor = host(entrada);
      if (valor === undefined)
        throw new ConfiguracaoInvalida(
          `${nome}=${bruto}: "${entrada}" nao e um host; esperado nomes ou enderecos IP separados por virgula, sem esquema, porta, caminho ou espaco (ex.: localhost,127.0.0.1,::1)`,
        );
      return valor;
    }),
  );
}

export function lerConfiguracao(env: NodeJS.ProcessEnv = process.env): Configuracao {
  return Object.freeze({
    porta: lerPorta(env, 'AGENTE_PORT', 7300),
    host: env.AGENTE_HOST || '127.0.0.1',
    mcpUrl: url(env, 'MCP_URL', 'http://localhost:7301/mcp'),
    urlPublica: url(env, 'AGENTE_URL'),
    limiteDoCorpoBytes: 64 * 1024,
    banco: env.TASKS_DB || undefined,
    maxTarefas: lerInteiro(env, 'AGENTE_MAX_TASKS', 20_000, 1, 10_000_000),
    maxPausadas: lerInteiro(env, 'AGENTE_MAX_PAUSED', 10_000, 1, 10_000_000),
    validadeDaPausaMs: lerInteiro(env, 'AGENTE_PAUSE_TTL_SECONDS', 600, 60, 1800) * 1000,
    hostsDePush: hosts(env, 'AGENTE_PUSH_HOSTS', ['localhost', '127.0.0.1', '::1']),
  });
}
