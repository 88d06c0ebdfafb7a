/** Environment read and validated once, before anything listens. */
export interface Configuracao {
  readonly porta: number;
  readonly host: string;
  readonly mcpUrl: URL;
  /** Public base URL for the card; undefined means "derive from the port actually bound". */
  readonly urlPublica: URL | undefined;
  readonly limiteDoCorpoBytes: number;
}

export class ConfiguracaoInvalida extends Error {}

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
  const brutoDaPorta = env.AGENTE_PORT || '7300';
  const porta = Number(brutoDaPorta);
  if (!Number.isInteger(porta) || porta < 0 || porta > 65535) {
    throw new ConfiguracaoInvalida(`AGENTE_PORT=${brutoDaPorta}: esperado um inteiro entre 0 e 65535`);
  }
  return Object.freeze({
    porta,
    host: env.AGENTE_HOST || '127.0.0.1',
    mcpUrl: url(env, 'MCP_URL', 'http://localhost:7301/mcp')!,
    urlPublica: url(env, 'AGENTE_URL'),
    limiteDoCorpoBytes: 64 * 1024,
  });
}
