/**
 * The container image and compose.yaml, built and run here with no
 * registry (scripts/imagem.ts: local stand-ins for the node and postgres
 * images, then the Containerfile with --pull=never). The image is checked
 * as built; then `podman-compose up` brings up the whole topology of
 * compose.yaml (PostgreSQL, two MCP servers, two agents) on free loopback
 * ports: the course's conflict pauses on agent 1, agent 1 is killed with
 * `podman kill`, agent 2 answers the paused Task through the other MCP
 * server, and the booking is in PostgreSQL, once; then everything comes
 * down. About three minutes, most of it building (`.ci/run` installs
 * podman, runc, mmdebstrap and podman-compose).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { ambienteDoPodman, construirImagem, IMAGEM } from '../scripts/imagem.js';
import { enviar, estado, mensagem, reservaDe, tarefa } from './apoio/a2a.js';
import { portaLivre } from './apoio/ponte-generica.js';
import { segredoDeTeste } from './apoio/processos.js';
import { ate } from './apoio/saude.js';

const RAIZ = fileURLToPath(new URL('../', import.meta.url));
const pasta = mkdtempSync(join(tmpdir(), 'ponte-conteineres-'));
const PROJETO = `ponte-teste-${String(process.pid)}`;
const env: NodeJS.ProcessEnv = {
  ...ambienteDoPodman(pasta),
  REQUEST_STATE_SECRET: segredoDeTeste(),
  POSTGRES_PASSWORD: segredoDeTeste(),
};

const podman = (...args: string[]) => execFileSync('podman', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const compose = (...args: string[]) =>
  execFileSync('podman-compose', ['-p', PROJETO, '-f', 'compose.yaml', ...args], { cwd: RAIZ, env, encoding: 'utf8', stdio: 'pipe' });
/** podman-compose names a service's container <project>_<service>_1. */
const conteiner = (servico: string) => `${PROJETO}_${servico}_1`;

before(() => {
  construirImagem();
});
after(() => {
  try {
    compose('down', '-v');
  } finally {
    // podman-compose 1.0.3 leaves the project's network behind.
    execFileSync('podman', ['network', 'rm', '-f', `${PROJETO}_default`], { env, stdio: 'ignore' });
    rmSync(pasta, { recursive: true, force: true });
  }
});

it('the image: a non-root user, a health check, no secret inside; the MCP server refuses to start without REQUEST_STATE_SECRET', () => {
  const [config] = JSON.parse(podman('inspect', IMAGEM)) as { Config: { User: string; Env: string[] }; Healthcheck?: { Test: string[] } }[];
  assert.ok(config);
  assert.equal(config.Config.User, '10001:10001');
  assert.ok(config.Healthcheck?.Test.join(' ').includes('/healthz'));
  assert.ok(!config.Config.Env.some((variavel) => /SECRET|_DB=/.test(variavel)), config.Config.Env.join('\n'));
  const semSegredo = (() => {
    try {
      podman('run', '--rm', '--network=host', '-e', 'MCP_HOST=127.0.0.1', '-e', 'MCP_PORT=0', IMAGEM, 'node', 'servidor-mcp/dist/main.js');
      return '';
    } catch (erro) {
      return String((erro as { stderr?: unknown }).stderr);
    }
  })();
  assert.match(semSegredo, /REQUEST_STATE_SECRET/);
});

it('compose.yaml with podman-compose: PostgreSQL, two MCP servers, two agents; paused on agent 1, agent 1 killed, answered on agent 2, booked once', async () => {
  const portas = {
    AGENTE_1_PORTA: await portaLivre(),
    AGENTE_2_PORTA: await portaLivre(),
    MCP_1_PORTA: await portaLivre(),
    MCP_2_PORTA: await portaLivre(),
  };
  for (const [nome, porta] of Object.entries(portas)) env[nome] = String(porta);
  compose('up', '-d');
  const base = (porta: number) => `http://127.0.0.1:${String(porta)}`;
  for (const porta of Object.values(portas)) {
    await ate(base(porta), '/readyz', ({ status }) => status === 200, 90_000).catch((erro: unknown) => {
      throw new Error(`a porta ${String(porta)} nao ficou pronta:\n${compose('logs')}`, { cause: erro });
    });
  }
  // The health checks compose.yaml declares, as the container engine runs them, pass on every service.
  for (const servico of ['postgres', 'mcp-1', 'mcp-2', 'agente-1', 'agente-2']) podman('healthcheck', 'run', conteiner(servico));

  const pausa = await enviar(
    base(portas.AGENTE_1_PORTA),
    'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Biff',
  );
  assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagem(pausa));
  assert.equal(mensagem(pausa), 'alternativas: sala-fusca, sala-mirante');
  podman('kill', conteiner('agente-1'));

  const fim = await enviar(base(portas.AGENTE_2_PORTA), 'escolha=sala-mirante', { taskId: tarefa(pausa).id });
  assert.equal(estado(fim), 'TASK_STATE_COMPLETED', mensagem(fim));
  assert.equal(reservaDe(fim).sala, 'sala-mirante');

  const reservas = podman(
    'exec',
    conteiner('postgres'),
    'psql',
    '--username=ponte',
    '--dbname=reservas',
    '--tuples-only',
    '--no-align',
    '--command',
    "SELECT sala || ' ' || responsavel FROM reservas WHERE responsavel = 'Biff'",
  );
  assert.equal(reservas, 'sala-mirante Biff');
});
