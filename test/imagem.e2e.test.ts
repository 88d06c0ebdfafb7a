/**
 * The container image, built here from the project's Containerfile with no
 * registry (scripts/imagem.ts: a local stand-in for the base image, then
 * --pull=never), and run with podman: one MCP server and two agents from
 * the same image on one PostgreSQL (the test's, on loopback; the containers
 * share the host's network and listen on loopback only). The course's
 * conflict pauses on agent A; A is killed with `podman kill`; agent B
 * answers the paused Task and the booking is in PostgreSQL. Takes about
 * three minutes, most of it building (`.ci/run` installs podman, runc and
 * mmdebstrap).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { ambienteDoPodman, construirImagem, IMAGEM } from '../scripts/imagem.js';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';
import { enviar, estado, mensagem, reservaDe, tarefa } from './apoio/a2a.js';
import { portaLivre } from './apoio/ponte-generica.js';
import { segredoDeTeste } from './apoio/processos.js';
import { ate } from './apoio/saude.js';

const pasta = mkdtempSync(join(tmpdir(), 'ponte-conteineres-'));
const env = ambienteDoPodman(pasta);
const nomes: string[] = [];
let postgres: Postgres | undefined;

const podman = (...args: string[]) => execFileSync('podman', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Runs one process of the image on the host's network, listening on a free loopback port; ready when its /readyz says so. */
async function rodar(nome: string, variaveis: Record<string, string>, comando: string[] = []): Promise<string> {
  const porta = await portaLivre();
  const ehMcp = comando.some((parte) => parte.includes('servidor-mcp'));
  const [host, chave] = ehMcp ? ['MCP_HOST', 'MCP_PORT'] : ['AGENTE_HOST', 'AGENTE_PORT'];
  const definidas = { ...variaveis, [host]: '127.0.0.1', [chave]: String(porta) };
  nomes.push(nome);
  podman(
    'run',
    '-d',
    '--name',
    nome,
    '--network=host',
    ...Object.entries(definidas).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    IMAGEM,
    ...comando,
  );
  const base = `http://127.0.0.1:${String(porta)}`;
  await ate(base, '/readyz', ({ status }) => status === 200, 30_000).catch((erro: unknown) => {
    throw new Error(`${nome} nao ficou pronto:\n${podman('logs', nome)}`, { cause: erro });
  });
  return base;
}

before(async () => {
  construirImagem();
  postgres = await iniciarPostgres();
});
after(async () => {
  for (const nome of nomes) execFileSync('podman', ['rm', '-f', nome], { env, stdio: 'ignore' });
  await postgres?.parar();
  rmSync(pasta, { recursive: true, force: true });
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

it('one MCP server and two agents from the image on PostgreSQL: paused on A, A killed, answered on B, booked once', async () => {
  assert.ok(postgres);
  const segredo = segredoDeTeste();
  const reservas = await postgres.novoBanco('imagem_reservas');
  const tasks = await postgres.novoBanco('imagem_tasks');
  const mcp = await rodar('ponte-mcp', { REQUEST_STATE_SECRET: segredo, RESERVAS_DB: reservas }, ['node', 'servidor-mcp/dist/main.js']);
  const agenteA = await rodar('ponte-agente-a', { MCP_URL: `${mcp}/mcp`, TASKS_DB: tasks });
  const agenteB = await rodar('ponte-agente-b', { MCP_URL: `${mcp}/mcp`, TASKS_DB: tasks });
  // The image's own health check, as the container engine runs it, passes on both processes.
  for (const nome of ['ponte-mcp', 'ponte-agente-b']) podman('healthcheck', 'run', nome);

  const pausa = await enviar(
    agenteA,
    'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Biff',
  );
  assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagem(pausa));
  assert.equal(mensagem(pausa), 'alternativas: sala-fusca, sala-mirante');
  podman('kill', 'ponte-agente-a');

  const fim = await enviar(agenteB, 'escolha=sala-mirante', { taskId: tarefa(pausa).id });
  assert.equal(estado(fim), 'TASK_STATE_COMPLETED', mensagem(fim));
  const reserva = reservaDe(fim);
  assert.equal(reserva.sala, 'sala-mirante');

  const cliente = new pg.Client({ connectionString: reservas });
  await cliente.connect();
  try {
    const { rows } = await cliente.query<{ sala: string; responsavel: string }>(
      "SELECT sala, responsavel FROM reservas WHERE responsavel = 'Biff'",
    );
    assert.deepEqual(rows, [{ sala: 'sala-mirante', responsavel: 'Biff' }]);
  } finally {
    await cliente.end();
  }
});
