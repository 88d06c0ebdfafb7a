/** Environment read and validated once, before anything listens. */
import { ConfiguracaoInvalida, lerPorta } from 'compartilhado/ambiente';

export interface Configuracao {
  readonly porta: number;
  readonly host: string;
  readonly mcpUrl: URL;
  /** Public base URL for the card; undefined means "derive from the port actually bound". */
  readonly urlPublica: URL | undefined;
  readonly limiteDoCorpoBytes: number;
}

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
    mcpUrl: url(env, 'MCP_URL', 'http://localhost:7301/mcp')!,
    urlPublica: url(env, 'AGENTE_URL'),
    limiteDoCorpoBytes: 64 * 1024,
  });
}
