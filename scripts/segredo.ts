/**
 * REQUEST_STATE_SECRET for local runs: the environment's when set; else one
 * generated once and kept in a git-ignored file, so paused requests survive
 * a restart. The value is never printed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ARQUIVO_DO_SEGREDO = fileURLToPath(new URL('../.segredo-local', import.meta.url));

export function segredoLocal(avisar: (linha: string) => void): string {
  const doAmbiente = process.env.REQUEST_STATE_SECRET;
  if (doAmbiente) return doAmbiente;
  if (existsSync(ARQUIVO_DO_SEGREDO)) {
    avisar('REQUEST_STATE_SECRET nao definido: usando o segredo local de .segredo-local');
    return readFileSync(ARQUIVO_DO_SEGREDO, 'utf8').trim();
  }
  const novo = randomBytes(32).toString('hex');
  writeFileSync(ARQUIVO_DO_SEGREDO, `${novo}\n`, { mode: 0o600 });
  avisar('REQUEST_STATE_SECRET nao definido: gerei um segredo aleatorio em .segredo-local (fora do git) e vou reusa-lo');
  return novo;
}
