/** Environment read and validated once, before anything listens. */
import { fileURLToPath } from 'node:url';
import { ConfiguracaoInvalida, lerInteiro, lerPorta, lerUrlDoPostgres } from 'compartilhado/ambiente';

export interface Configuracao {
  readonly porta: number;
  readonly host: string;
  readonly segredo: string;
  readonly validadeDoEstadoSegundos: number;
  readonly pastaDeDados: string;
  readonly limiteDoCorpoBytes: number;
  /** RESERVAS_DB: bookings in PostgreSQL, shared by every server on it; undefined keeps them in memory. */
  readonly banco: string | undefined;
}

const MINIMO_DO_SEGREDO = 32;
const VALIDADE = { padrao: 600, minima: 300, maxima: 1800 };

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
  });
}
