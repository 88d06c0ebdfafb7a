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

function executar(comando: string, args: readonly string[], cwd: string): Promise<Saida> {
  return new Promise((resolver, rejeitar) => {
    const filho = spawn(comando, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let texto = '';
    const juntar = (parte: Buffer) => (texto += parte.toString());
    filho.stdout.on('data', juntar);
    filho.stderr.on('data', juntar);
    filho.once('error', rejeitar);
    filho.once('close', (codigo) => resolver({ codigo, texto }));
  });
}

/** conformidade/ is installed from its own lockfile the first time, or again when the lockfile changed. */
async function instalar(): Promise<void> {
  const instalado = join(PASTA, 'node_modules/.package-lock.json');
  if (existsSync(instalado) && existsSync(NODE_22) && statSync(instalado).mtimeMs >= statSync(join(PASTA, 'package-lock.json')).mtimeMs)
    return;
  const { codigo, texto } = await executar('npm', ['ci', '--no-audit', '--no-fund'], PASTA);
  assert.equal(codigo, 0, `npm ci em conformidade/ falhou:\n${texto}`);
}

const Verificacao = z.looseObject({ id: z.string(), status: z.string(), errorMessage: z.string().optional() });

/** Every check the suite wrote, by scenario (its folder is server-<scenario>-<timestamp>). */
function verificacoes(pasta: string): Map<string, z.infer<typeof Verificacao>[]> {
  const porCenario = new Map<string, z.infer<typeof Verificacao>[]>();
  for (const nome of readdirSync(pasta)) {
    const cenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z?$/.exec(nome)?.[1];
    if (cenario === undefined) continue;
    const lidas = z.array(Verificacao).parse(JSON.parse(readFileSync(join(pasta, nome, 'checks.json'), 'utf8')));
    porCenario.set(cenario, [...(porCenario.get(cenario) ?? []), ...lidas]);
  }
  return porCenario;
}

describe('MCP conformance suite (2026-07-28)', () => {
  let mcp: Processo;
  let resultados: string;
  let execucao: Saida;

  before(async () => {
    await instalar();
    mcp = await iniciarServidorMcp();
    resultados = mkdtempSync(join(tmpdir(), 'conformidade-'));
    execucao = await executar(
      NODE_22,
      [SUITE, 'server', '--url', mcp.url, '--requirements', '2026-07-28', '--expected-failures', NAO_SE_APLICA, '-o', resultados],
      PASTA,
    );
  });
  after(async () => {
    await mcp.parar();
    rmSync(resultados, { recursive: true, force: true });
  });

  it('runs on the Node 22 of conformidade/, not on the project Node', async () => {
    const versao = await executar(NODE_22, ['--version'], PASTA);
    assert.match(versao.texto.trim(), /^v22\./);
  });

  it('every applicable scenario passes; only those in nao-se-aplica.yml fail, and each of them still does', () => {
    // With --expected-failures the suite exits non-zero for an unlisted failure or warning, and for a listed one that now passes.
    const naoEsperadas = execucao.texto
      .split('\n')
      .filter((linha) => /^\s*✗/.test(linha) && !/\((extension|pending)\)/.test(linha))
      .join('\n');
    assert.equal(execucao.codigo, 0, `a suite falhou:\n${naoEsperadas}\n\n${execucao.texto.slice(-4000)}`);
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
