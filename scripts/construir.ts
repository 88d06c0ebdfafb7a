/**
 * `npm run build`: each process bundled by esbuild into one JavaScript file
 * (and the console page built by Vite). Node starts a bundle in a fraction of the time
 * and memory tsx needs (no loader thread, no transform, one file to read).
 * `--se-preciso` builds only when a bundle is missing or older than any
 * source or the lockfile. Bundles are written to a temporary name and
 * renamed, so a process never starts from a half-written file, even when
 * several builds race.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const RAIZ = fileURLToPath(new URL('../', import.meta.url));

export const PROCESSOS = {
  mcp: { entrada: 'servidor-mcp/src/main.ts', saida: 'servidor-mcp/dist/main.js' },
  agente: { entrada: 'agente/src/main.ts', saida: 'agente/dist/main.js' },
} as const;

/** The console the agent serves at /: a page built by Vite from console/ into console/dist/. */
export const CONSOLE = { raiz: 'console', saida: 'console/dist/index.html' } as const;

const FONTES = ['compartilhado/src', 'servidor-mcp/src', 'agente/src', 'console/src', 'console/index.html', 'package-lock.json'];

/** CommonJS dependencies (pg, express) call require(); an ESM bundle gives them one. */
const REQUIRE = 'import { createRequire as __criarRequire } from "node:module"; const require = __criarRequire(import.meta.url);';

function maisRecente(caminho: string): number {
  const info = statSync(join(RAIZ, caminho));
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(0, ...readdirSync(join(RAIZ, caminho)).map((nome) => maisRecente(join(caminho, nome))));
}

function desatualizado(): boolean {
  const fontes = Math.max(...FONTES.map(maisRecente));
  return [...Object.values(PROCESSOS), CONSOLE].some(({ saida }) => {
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
      target: 'node22',
      // Native or optional: loaded from node_modules at run time.
      external: ['better-sqlite3', 'pg-native', 'grpc-health-check'],
      banner: { js: REQUIRE },
      write: false,
      logLevel: 'warning',
    });
    for (const arquivo of outputFiles) gravarInteiro(arquivo.path, arquivo.contents);
    apagarAntigos(join(RAIZ, dirname(saida), 'partes'), new Set(outputFiles.map((arquivo) => arquivo.path)));
  }
  await construirConsole();
}

/**
 * Chunks and assets are named by their hash: those of earlier builds are no
 * one's now. A build running beside this one (test files start in
 * parallel) writes the same names, through .tmp files left alone.
 */
function apagarAntigos(pasta: string, atuais: ReadonlySet<string>): void {
  if (!existsSync(pasta)) return;
  for (const nome of readdirSync(pasta)) {
    const caminho = join(pasta, nome);
    if (!atuais.has(caminho) && !nome.endsWith('.tmp')) rmSync(caminho, { force: true });
  }
}

/** A file written under a temporary name and renamed: no reader ever sees half of it. */
function gravarInteiro(caminho: string, conteudo: string | Uint8Array): void {
  mkdirSync(dirname(caminho), { recursive: true });
  const temporario = `${caminho}.${process.pid}.tmp`;
  writeFileSync(temporario, conteudo);
  renameSync(temporario, caminho);
}

/** The console with Vite, every asset from the project's own files (no CDN); index.html written last, as the sign it is whole. */
async function construirConsole(): Promise<void> {
  const { build: construirComVite } = await import('vite');
  const saida = await construirComVite({ root: join(RAIZ, CONSOLE.raiz), logLevel: 'warn', build: { write: false, emptyOutDir: false } });
  for (const resultado of Array.isArray(saida) ? saida : [saida]) {
    if (!('output' in resultado)) throw new Error('o Vite nao devolveu os arquivos do console');
    const arquivos = [...resultado.output].sort((a, b) => Number(a.fileName === 'index.html') - Number(b.fileName === 'index.html'));
    for (const arquivo of arquivos)
      gravarInteiro(join(RAIZ, CONSOLE.raiz, 'dist', arquivo.fileName), arquivo.type === 'asset' ? arquivo.source : arquivo.code);
    const dist = join(RAIZ, CONSOLE.raiz, 'dist');
    apagarAntigos(join(dist, 'assets'), new Set(arquivos.map((arquivo) => join(dist, arquivo.fileName))));
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
