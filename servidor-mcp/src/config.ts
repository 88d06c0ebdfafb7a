/** Environment read and validated once, before anything listens. */
import { fileURLToPath } from 'node:url';
import { ConfiguracaoInvalida, lerInteiro, lerPorta, lerUrlDoPostgres } from 'compartilhado/ambiente';
import { Identidades } from 'compartilhado/identidade';
import { lerEsperaDoBanco } from 'compartilhado/espera';
import { lerOrigens } from 'compartilhado/origem';

export interface Configuracao {
  readonly porta: number;
  readonly host: string;
  readonly segredo: string;
  readonly validadeDoEstadoSegundos: number;
  readonly pastaDeDados: string;
  readonly limiteDoCorpoBytes: number;
  /** RESERVAS_DB: bookings in PostgreSQL, shared by every server on it; undefined keeps them in memory. */
  readonly banco: string | undefined;
  /** DB_WAIT_SECONDS: how long a RESERVAS_DB that does not answer yet is waited for at start. */
  readonly esperaDoBancoMs: number;
  /** MCP_TOKENS: who may call /mcp; undefined means anyone (the course's default). */
  readonly identidades: Identidades | undefined;
  /** MCP_URL, with MCP_TOKENS: the public URL of /mcp, as clients reach it; undefined means the bound address. */
  readonly urlPublica: URL | undefined;
  /** MCP_ORIGENS: browser origins allowed besides the server's own (see compartilhado/origem). */
  readonly origens: readonly string[];
}

const MINIMO_DO_SEGREDO = 32;
const VALIDADE = { padrao: 600, minima: 300, maxima: 1800 };

/**
 * MCP_URL, read only with MCP_TOKENS (it names the resource the tokens
 * protect; the course's default reads nothing new): the public URL of /mcp,
 * no query or fragment (RFC 9728's resource). Without it, the bound address,
 * unless that is a wildcard no client can reach as such.
 */
function lerUrlPublica(env: NodeJS.ProcessEnv, host: string, identidades: Identidades | undefined): URL | undefined {
  const bruto = env.MCP_URL;
  if (!identidades) return undefined;
  if (!bruto) {
    if (host === '0.0.0.0' || host === '::')
      throw new ConfiguracaoInvalida(`MCP_TOKENS com MCP_HOST=${host}: defina MCP_URL, a URL de /mcp como os clientes a veem`);
    return undefined;
  }
  const url = URL.canParse(bruto) ? new URL(bruto) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.pathname !== '/mcp')
    throw new ConfiguracaoInvalida(`MCP_URL=${bruto}: esperado http(s)://host[:porta]/mcp, sem query nem fragmento`);
  return url;
}

export function lerConfiguracao(env: NodeJS.ProcessEnv = process.env): Configuracao {
  const segredo = env.REQUEST_STATE_SECRET ?? '';
  if (Buffer.byteLength(segredo, 'utf8') < MINIMO_DO_SEGREDO) {
    throw new ConfiguracaoInvalida(
      `REQUEST_STATE_SECRET ausente ou curto (minimo ${MINIMO_DO_SEGREDO} bytes). ` +
        'Gere um com: python3 -c "import secrets; print(secrets.token_hex(32))"',
    );
  }
  const host = env.MCP_HOST || '127.0.0.1';
  const identidades = Identidades.ler(env, 'MCP_TOKENS');
  return Object.freeze({
    porta: lerPorta(env, 'MCP_PORT', 7301),
    host,
    segredo,
    validadeDoEstadoSegundos: lerInteiro(env, 'REQUEST_STATE_TTL_SECONDS', VALIDADE.padrao, VALIDADE.minima, VALIDADE.maxima),
    pastaDeDados: env.DADOS_DIR || fileURLToPath(new URL('../../dados/', import.meta.url)),
    limiteDoCorpoBytes: 64 * 1024,
    banco: lerUrlDoPostgres(env, 'RESERVAS_DB'),
    esperaDoBancoMs: lerEsperaDoBanco(env),
    identidades,
    urlPublica: lerUrlPublica(env, host, identidades),
    origens: lerOrigens(env, 'MCP_ORIGENS'),
  });
}
