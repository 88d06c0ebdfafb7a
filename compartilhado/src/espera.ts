/**
 * A PostgreSQL that is still starting, as in a compose topology where the
 * database and the processes come up together, is waited for up to
 * DB_WAIT_SECONDS instead of ending the process at once. Only the failures
 * of a server not there yet are waited out (no route, refused, reset, the
 * server saying it is starting up); a wrong password or a missing database
 * is not going to change, so the opening that follows reports it at once, in
 * its own words, as does the last failure when the time is up.
 */
import { setTimeout as esperar } from 'node:timers/promises';
import { lerInteiro, urlSemSenha } from './ambiente.js';

/** DB_WAIT_SECONDS, 0 to 600; 0 (the default) waits for nothing. */
export const lerEsperaDoBanco = (env: NodeJS.ProcessEnv): number => lerInteiro(env, 'DB_WAIT_SECONDS', 0, 0, 600) * 1000;

const AINDA_NAO_ESTA_LA = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  '57P03',
]);

function aindaNaoEstaLa(erro: unknown): boolean {
  const { code, message } = (erro ?? {}) as { code?: unknown; message?: unknown };
  // node-pg's own words for a connection that timed out or that the server closed while it started.
  return AINDA_NAO_ESTA_LA.has(String(code)) || /timeout|Connection terminated/i.test(String(message));
}

/** Resolves once a connection to `url` answers a query, or when waiting longer would not help. */
export async function esperarPostgres(url: string, esperaMs: number, variavel: string, log: (linha: string) => void): Promise<void> {
  if (esperaMs <= 0) return;
  const { default: pg } = await import('pg');
  const limite = Date.now() + esperaMs;
  for (let pausaMs = 250; ; pausaMs = Math.min(2 * pausaMs, 2000)) {
    const cliente = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    // An error on a client that is going away must not end the process.
    cliente.on('error', () => undefined);
    try {
      await cliente.connect();
      await cliente.query('SELECT 1');
      return;
    } catch (erro) {
      if (!aindaNaoEstaLa(erro) || Date.now() + pausaMs > limite) return;
      const motivo = erro instanceof Error ? erro.message : String(erro);
      log(`${variavel}: ${urlSemSenha(url)} ainda nao responde (${motivo}); nova tentativa em ${String(pausaMs)} ms`);
    } finally {
      await cliente.end().catch(() => undefined);
    }
    await esperar(pausaMs);
  }
}
