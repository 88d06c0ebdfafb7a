/** Environment read and validated once, before anything listens. */
import { fileURLToPath } from 'node:url';
import { ConfiguracaoInvalida, lerInteiro, lerPorta, lerUrlDoPostgres } from 'compartilhado/ambiente';
import { Identidades } from 'compartilhado/identidade';

export interface Configuracao {
  readonly porta: number;
  readonly host: string;
  readonly segredo: string;
  readonly validadeDoEstadoSegundos: number;
  readonly pastaDeDados: string;
  readonly limiteDoCorpoBytes: number;
  /** RESERVAS_DB: bookings in PostgreSQL, shared by every server on it; undefined keeps them in memory. */
  readonly banco: string | undefined;
  /** MCP_TOKENS: who may call /mcp; undefined means anyone (the course's default). */
  readonly identidades: Identidades | undefined;
  /** MCP_URL: the public URL of /mcp, as clients reach it; undefined means the bound address. */
  readonly urlPublica: URL | undefined;
}

const MINIMO_DO_SEGREDO = 32;
const VALIDADE = { padrao: 600, minima: 300, maxima: 1800 };

function lerUrlPublica(env: NodeJS.ProcessEnv, nome: string): URL | undefined {
  const bruto = env[nome];
  if (!bruto) return undefined;
  if (!URL.canParse(bruto) || !/^https?:$/.test(new URL(bruto).protocol))
    throw new ConfiguracaoInvalida(`${nome}=${bruto}: esperado uma URL http(s) absoluta, a de /mcp como os clientes a veem`);
  return new URL(bruto);
}

export function lerConfiguracao(env: NodeJS.ProcessEnv = process.env): Configuracao {
  const segredo = env.REQUEST_STATE_SECRET ?? '';
  if (Buffer.byteLength(segredo, 'utf8') < MINIMO_DO_SEGREDO) {
    throw new ConfiguracaoInvalida(
      `REQUEST_STATE_SECRET ausente ou curto (minimo ${MINIMO_DO_SEGREDO} bytes). ` +
        'Gere um com: python3 -c "import secrets; print(secrets.token_hex(32))"',
    );
  }
  return Object.freeze({
    porta: lerPorta(env, 'MCP_PORT', 7301),
    host: env.MCP_HOST || '127.0.0.1',
    segredo,
    validadeDoEstadoSegundos: lerInteiro(env, 'REQUEST_STATE_TTL_SECONDS', VALIDADE.padrao, VALIDADE.minima, VALIDADE.maxima),
    pastaDeDados: env.DADOS_DIR || fileURLToPath(new URL('../../dados/', import.meta.url)),
    limiteDoCorpoBytes: 64 * 1024,
    banco: lerUrlDoPostgres(env, 'RESERVAS_DB'),
    identidades: Identidades.ler(env, 'MCP_TOKENS'),
    urlPublica: lerUrlPublica(env, 'MCP_URL'),
  });
}
