/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance,
 * pinned in conformidade/) against a fresh server, for the 2026-07-28
 * requirements. The suite needs Node 22; it comes from the `node` package
 * of the npm registry, installed in conformidade/ apart from the workspaces,
 * so the project's own Node is never shadowed. Every scenario that applies
 * must pass; those that need the suite's test-only fixtures are listed,
 * each with its reason, in conformidade/nao-se-aplica.yml.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import * as z from 'zod';
import { iniciarServidorMcp, type Processo } from './apoio/processos.js';

const PASTA = fileURLToPath(new URL('../conformidade/', import.meta.url));
const NODE_22 = join(PASTA, 'node_modules/node/bin/node');
const SUITE = join(PASTA, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NAO_SE_APLICA = join(PASTA, 'nao-se-aplica.yml');

interface Saida {
  readonly codigo: number | null;
  readonly texto: string;
}

/** Runs a command to its end, or kills it at `prazoMs`; its output, ANSI colours removed (the suite writes them whatever NO_COLOR says). */
function executar(comando: string, args: readonly string[], cwd: string, prazoMs: number): Promise<Saida> {
  return new Promise((resolver, rejeitar) => {
    const filho = spawn(comando, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: prazoMs, killSignal: 'SIGKILL' });
    let texto = '';
    const juntar = (parte: Buffer) => (texto += parte.toString());
    filho.stdout.on('data', juntar);
    filho.stderr.on('data', juntar);
    filho.once('error', rejeitar);
    // eslint-disable-next-line no-control-regex -- the escape character is what is removed
    filho.once('close', (codigo) => resolver({ codigo, texto: texto.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

/** conformidade/ is installed from its own lockfile the first time, or again when the lockfile changed. */
async function instalar(): Promise<void> {
  const instalado = join(PASTA, 'node_modules/.package-lock.json');
  // Two test runs in one checkout after a lockfile change would both reinstall; CI runs one.
  if (existsSync(instalado) && existsSync(NODE_22) && statSync(instalado).mtimeMs >= statSync(join(PASTA, 'package-lock.json')).mtimeMs)
    return;
  const { codigo, texto } = await executar('npm', ['ci', '--no-audit', '--no-fund'], PASTA, 240_000);
  const ultima = texto.trim().split('\n').at(-1) ?? '';
  assert.equal(codigo, 0, `npm ci em conformidade/ falhou (o registro npm esta acessivel?): ${ultima}`);
}

const Verificacao = z.looseObject({ id: z.string(), status: z.string(), errorMessage: z.string().optional() });

/** Every check the suite wrote, by scenario (its folder is server-<scenario>-<timestamp>). */
function verificacoes(pasta: string): Map<string, z.infer<typeof Verificacao>[]> {
  const porCenario = new Map<string, z.infer<typeof Verificacao>[]>();
  for (const nome of readdirSync(pasta)) {
    const cenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z?$/.exec(nome)?.[1];
    if (cenario === undefined) continue;
    const arquivo = join(pasta, nome, 'checks.json');
    assert.ok(existsSync(arquivo), `a suite nao escreveu ${arquivo}`);
    const lidas = z.array(Verificacao).parse(JSON.parse(readFileSync(arquivo, 'utf8')));
    porCenario.set(cenario, [...(porCenario.get(cenario) ?? []), ...lidas]);
  }
  return porCenario;
}

describe('MCP conformance suite (2026-07-28)', () => {
  let mcp: Processo | undefined;
  const resultados = mkdtempSync(join(tmpdir(), 'conformidade-'));
  let execucao: Saida;

  before(
    async () => {
      await instalar();
      mcp = await iniciarServidorMcp();
      execucao = await executar(
        NODE_22,
        [SUITE, 'server', '--url', mcp.url, '--requirements', '2026-07-28', '--expected-failures', NAO_SE_APLICA, '-o', resultados],
        PASTA,
        120_000,
      );
    },
    { timeout: 420_000 },
  );
  after(async () => {
    await mcp?.parar();
    rmSync(resultados, { recursive: true, force: true });
  });

  it('runs on the Node 22 of conformidade/, exactly the version pinned, not on the project Node', async () => {
    const versao = await executar(NODE_22, ['--version'], PASTA, 10_000);
    assert.equal(versao.texto.trim(), 'v22.23.3');
  });

  it('every applicable scenario passes; only those in nao-se-aplica.yml fail, and each of them still does', () => {
    // With --expected-failures the suite exits non-zero for an unlisted failure or warning, and for a listed one that now passes;
    // it then names them after the summary, and that part is what the assertion shows.
    const inicio = execucao.texto.search(/Unexpected failures|Stale baseline/);
    const motivo = inicio >= 0 ? execucao.texto.slice(inicio) : execucao.texto.slice(-4000);
    assert.equal(execucao.codigo, 0, `a suite falhou:\n${motivo}`);
    assert.match(execucao.texto, /Baseline check passed: all failures are expected\./);
  });

  it('the scenarios of what this server does were really run, and passed every check', () => {
    const porCenario = verificacoes(resultados);
    for (const cenario of [
      'tools-list',
      'resources-list',
      'prompts-list',
      'caching',
      'sep-2164-resource-not-found',
      'dns-rebinding-protection',
      'input-required-result-unsupported-methods',
      'input-required-result-validate-input',
      'http-header-validation',
    ]) {
      const checks = porCenario.get(cenario);
      assert.ok(checks && checks.length > 0, `${cenario} was not run`);
      const falhas = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      assert.deepEqual(
        falhas.map((check) => `${check.id}: ${check.errorMessage ?? check.status}`),
        [],
        cenario,
      );
    }
  });
});
