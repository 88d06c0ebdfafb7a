/**
 * `npm run build`: each process bundled by esbuild into one JavaScript file
 * in its workspace's dist/. Node starts a bundle in a fraction of the time
 * and memory tsx needs (no loader thread, no transform, one file to read).
 * `--se-preciso` builds only when a bundle is missing or older than any
 * source or the lockfile. Bundles are written to a temporary name and
 * renamed, so a process never starts from a half-written file, even when
 * several builds race.
 */
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const RAIZ = fileURLToPath(new URL('../', import.meta.url));

export const PROCESSOS = {
  mcp: { entrada: 'servidor-mcp/src/main.ts', saida: 'servidor-mcp/dist/main.js' },
  agente: { entrada: 'agente/src/main.ts', saida: 'agente/dist/main.js' },
} as const;

const FONTES = ['compartilhado/src', 'servidor-mcp/src', 'agente/src', 'package-lock.json'];

/** CommonJS dependencies (pg, express) call require(); an ESM bundle gives them one. */
const REQUIRE = 'import { createRequire as __criarRequire } from "node:module"; const require = __criarRequire(import.meta.url);';

function maisRecente(caminho: string): number {
  const info = statSync(join(RAIZ, caminho));
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(0, ...readdirSync(join(RAIZ, caminho)).map((nome) => maisRecente(join(caminho, nome))));
}

function desatualizado(): boolean {
  const fontes = Math.max(...FONTES.map(maisRecente));
  return Object.values(PROCESSOS).some(({ saida }) => {
    try {
      return statSync(join(RAIZ, saida)).mtimeMs < fontes;
    } catch {
      return true;
    }
  });
}

export async function construir(): Promise<void> {
  for (const { entrada, saida } of Object.values(PROCESSOS)) {
    const { outputFiles } = await build({
      entryPoints: { main: join(RAIZ, entrada) },
      outdir: join(RAIZ, dirname(saida)),
      // What is imported dynamically (the database code of the agent) becomes a chunk loaded only when used.
      splitting: true,
      chunkNames: 'partes/[name]-[hash]',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // Native or optional: loaded from node_modules at run time.
      external: ['better-sqlite3', 'pg-native'],
      banner: { js: REQUIRE },
      write: false,
      logLevel: 'warning',
    });
    for (const arquivo of outputFiles) {
      mkdirSync(dirname(arquivo.path), { recursive: true });
      const temporario = `${arquivo.path}.${process.pid}.tmp`;
      writeFileSync(temporario, arquivo.contents);
      renameSync(temporario, arquivo.path);
    }
  }
}

let construcao: Promise<void> | undefined;

/** Builds once per process, and only when something changed since the last build. */
export function construirSePreciso(): Promise<void> {
  construcao ??= desatualizado() ? construir() : Promise.resolve();
  return construcao;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await (process.argv.includes('--se-preciso') ? construirSePreciso() : construir());
}
