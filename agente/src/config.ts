/** Environment read and validated once, before anything listens. */
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
  });
}
