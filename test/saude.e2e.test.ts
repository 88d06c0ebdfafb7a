/**
 * GET /healthz and /readyz on both processes (compartilhado/saude), as an
 * orchestrator's probes ask them: live while the process runs; ready only
 * while it can serve. The agent is not ready while it starts (a stdio
 * server that takes 3 s holds its catalog), and neither process is while
 * its database is stopped (the agent's gRPC health service neither); both
 * are again once it is back. No token, and nothing in the body but a status
 * and general words.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, type Processo } from '../scripts/processos.js';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';
import { pastaTemporaria, portaLivre, servidorLento } from './apoio/ponte-generica.js';
import { segredoDeTeste } from './apoio/processos.js';
import { ate, enderecoGrpc, saude, saudeGrpc } from './apoio/saude.js';

describe('the agent while a configured stdio server takes 3 s to start', () => {
  it('is live at once, not ready until its catalog is loaded, then ready; no token asked, HEAD too', async () => {
    const pasta = pastaTemporaria();
    const porta = await portaLivre();
    const config = pasta.config({ lento: servidorLento(pasta) });
    const iniciado = iniciar(ARQUIVO_DO_AGENTE, {
      AGENTE_PORT: String(porta),
      AGENTE_MCP_CONFIG: config,
      AGENTE_TOKENS: `ana:${randomBytes(24).toString('base64url')}`,
    });
    const base = `http://127.0.0.1:${String(porta)}`;
    try {
      // The first answer, as soon as the port accepts: the store and the slow server are still being opened.
      const iniciando = await ate(base, '/readyz', () => true);
      assert.deepEqual(iniciando, {
        status: 503,
        retryAfter: '1',
        corpo: { status: 'indisponivel', motivo: 'iniciando: banco de Tasks e servidores MCP' },
      });
      assert.deepEqual(await saude(base, '/healthz'), { status: 200, retryAfter: null, corpo: { status: 'vivo' } });

      const agente = await iniciado;
      assert.deepEqual(await saude(base, '/readyz'), { status: 200, retryAfter: null, corpo: { status: 'pronto' } });
      const cabeca = await fetch(new URL('/readyz', base), { method: 'HEAD' });
      assert.equal(cabeca.status, 200);
      assert.equal(await cabeca.text(), '');
      await agente.esperarLinha(/^GET \/readyz .*http=503 /);
      await agente.esperarLinha(/^GET \/readyz .*http=200 /);
    } finally {
      await (await iniciado.catch(() => undefined))?.parar();
      pasta.apagar();
    }
  });
});

describe('both processes on PostgreSQL, the database stopped and started again', () => {
  let postgres: Postgres | undefined;
  let mcp: Processo | undefined;
  let agente: Processo | undefined;
  before(async () => {
    postgres = await iniciarPostgres();
    const segredo = segredoDeTeste();
    mcp = await iniciar(ARQUIVO_DO_MCP, {
      MCP_PORT: '0',
      REQUEST_STATE_SECRET: segredo,
      RESERVAS_DB: await postgres.novoBanco('saude_reservas'),
    });
    agente = await iniciar(ARQUIVO_DO_AGENTE, {
      AGENTE_PORT: '0',
      AGENTE_GRPC_PORTA: '0',
      MCP_URL: mcp.url,
      TASKS_DB: await postgres.novoBanco('saude_tasks'),
    });
  });
  after(async () => {
    await agente?.parar();
    await mcp?.parar();
    await postgres?.parar();
  });

  it('both ready; with the database stopped, both still live and not ready, saying which store in general words (the gRPC health service too); ready again once it is back', async () => {
    assert.ok(postgres && mcp && agente);
    const bases = { agente: agente.url, mcp: new URL(mcp.url).origin };
    const grpc = enderecoGrpc(agente.linhas);
    const SERVICOS = ['', 'lf.a2a.v1.A2AService'];
    assert.deepEqual(await saudeGrpc(grpc, SERVICOS), ['SERVING', 'SERVING']);
    for (const base of Object.values(bases)) {
      assert.deepEqual((await saude(base, '/readyz')).corpo, { status: 'pronto' });
      assert.deepEqual((await saude(base, '/healthz')).corpo, { status: 'vivo' });
    }
    await postgres.desligar();
    try {
      assert.deepEqual(await ate(bases.agente, '/readyz', ({ status }) => status === 503), {
        status: 503,
        retryAfter: '1',
        corpo: { status: 'indisponivel', motivo: 'banco de Tasks inacessivel' },
      });
      assert.deepEqual(await ate(bases.mcp, '/readyz', ({ status }) => status === 503), {
        status: 503,
        retryAfter: '1',
        corpo: { status: 'indisponivel', motivo: 'banco de reservas inacessivel' },
      });
      for (const base of Object.values(bases)) assert.equal((await saude(base, '/healthz')).status, 200, 'the process still runs');
      assert.deepEqual(await saudeGrpc(grpc, SERVICOS), ['NOT_SERVING', 'NOT_SERVING']);
    } finally {
      await postgres.ligar();
    }
    for (const base of Object.values(bases)) assert.equal((await ate(base, '/readyz', ({ status }) => status === 200)).status, 200);
    assert.deepEqual(await saudeGrpc(grpc, SERVICOS), ['SERVING', 'SERVING']);
    await mcp.esperarLinha(/ GET \S*readyz .*http=503/);
  });
});

describe('both processes started while their PostgreSQL is still down, with DB_WAIT_SECONDS', () => {
  it('each says it is waiting, and both serve once the database is up; no password in the lines', async () => {
    const postgres = await iniciarPostgres();
    const pendentes: Promise<Processo>[] = [];
    try {
      const reservas = await postgres.novoBanco('espera_reservas');
      const tasks = await postgres.novoBanco('espera_tasks');
      await postgres.desligar();
      const esperando = (variavel: string) => {
        let ver: (linha: string) => void = () => undefined;
        const vista = new Promise<string>((resolver) => (ver = resolver));
        return { vista, aoLer: (linha: string) => linha.startsWith(`${variavel}: `) && ver(linha) };
      };
      const [doMcp, doAgente] = [esperando('RESERVAS_DB'), esperando('TASKS_DB')];
      const portaDoMcp = await portaLivre();
      pendentes.push(
        iniciar(
          ARQUIVO_DO_MCP,
          { MCP_PORT: String(portaDoMcp), REQUEST_STATE_SECRET: segredoDeTeste(), RESERVAS_DB: reservas, DB_WAIT_SECONDS: '60' },
          { aoLer: doMcp.aoLer, ms: 60_000 },
        ),
        iniciar(
          ARQUIVO_DO_AGENTE,
          { AGENTE_PORT: '0', MCP_URL: `http://127.0.0.1:${String(portaDoMcp)}/mcp`, TASKS_DB: tasks, DB_WAIT_SECONDS: '60' },
          { aoLer: doAgente.aoLer, ms: 60_000 },
        ),
      );
      for (const [linha, url] of [
        [await doMcp.vista, reservas],
        [await doAgente.vista, tasks],
      ] as const) {
        assert.ok(linha.includes(`${url} ainda nao responde (`), linha);
        assert.match(linha, /ECONNREFUSED.*; nova tentativa em \d+ ms$/);
      }
      await postgres.ligar();
      const [mcp, agente] = await Promise.all(pendentes);
      assert.ok(mcp && agente);
      for (const base of [agente.url, new URL(mcp.url).origin]) assert.equal((await saude(base, '/readyz')).status, 200);
    } finally {
      for (const processo of await Promise.allSettled(pendentes)) if (processo.status === 'fulfilled') await processo.value.parar();
      await postgres.parar();
    }
  });
});
