/**
 * Exactly once under faults, with the real processes: a step is held open
 * at a known point (the MCP server frozen with SIGSTOP, the claim read in
 * the database), then a process is killed, a connection terminated, a
 * server made unreachable. Whatever happens, no booking is made twice or
 * left without its COMPLETED Task, no pause is lost while nothing was
 * booked, and no Task stays WORKING once everything is back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { Disponibilidade } from 'compartilhado/contrato';
import pg from 'pg';
import { a2a, enviar, estado, mensagem, obter, pedido, reservaDe, tarefa, type RespostaA2A } from './apoio/a2a.js';
import { chamarFerramenta, estruturado } from './apoio/mcp.js';
import { iniciarAgente, iniciarServidorMcp, segredoDeTeste, type Processo } from './apoio/processos.js';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';

const dia = (n: number) => `2027-05-${String(n).padStart(2, '0')}`;
/** Short enough for quick recovery: a claim lasts 3 × 4 + 5 = 17 s, the sweep runs every second. */
const AGENTE_RAPIDO = { AGENTE_MCP_TIMEOUT_SECONDS: '4', AGENTE_SWEEP_SECONDS: '1' };

/** Polls `condicao` until it holds: readiness read from the system itself, bounded in time. */
async function esperarAte(condicao: () => Promise<boolean> | boolean, descricao: string, ms = 60_000): Promise<void> {
  const limite = Date.now() + ms;
  while (!(await condicao())) {
    if (Date.now() > limite) throw new Error(`nao aconteceu em ${String(ms)} ms: ${descricao}`);
    await new Promise((resolver) => setTimeout(resolver, 50));
  }
}

/** Waits until the Task is in `esperado`, and gives its GetTask. */
async function esperarEstado(agente: Processo, taskId: string, esperado: string): Promise<RespostaA2A> {
  let ultima: RespostaA2A | undefined;
  await esperarAte(
    async () => {
      ultima = await obter(agente.url, taskId);
      return estado(ultima) === esperado;
    },
    `Task ${taskId} em ${esperado} (esta em ${ultima ? estado(ultima) : '?'})`,
  );
  if (!ultima) throw new Error('unreachable');
  return ultima;
}

/** A request on a day whose sala-garagem slot is taken first: it pauses, offering sala-fusca first. */
async function pausada(agente: Processo, n: number): Promise<string> {
  assert.equal(estado(await enviar(agente.url, pedido('sala-garagem', dia(n), '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
  const resposta = await enviar(agente.url, pedido('sala-garagem', dia(n), '14:00', '15:00', `Biff ${String(n)}`));
  assert.equal(estado(resposta), 'TASK_STATE_INPUT_REQUIRED', resposta.texto);
  return tarefa(resposta).id;
}

/** The bookings of sala-fusca on day n, 14:00-15:00, as the MCP server sees them. */
async function reservasDaFusca(mcp: Processo, n: number): Promise<string[]> {
  const resposta = await chamarFerramenta(mcp.url, 'consultar_disponibilidade', {
    sala: 'sala-fusca',
    inicio: `${dia(n)}T14:00:00-03:00`,
    fim: `${dia(n)}T15:00:00-03:00`,
  });
  return estruturado(resposta, Disponibilidade).conflitos.map((conflito) => conflito.id);
}

const congelar = (processo: Processo) => processo.filho.kill('SIGSTOP');
const descongelar = (processo: Processo) => processo.filho.kill('SIGCONT');
const vivo = (processo: Processo) => processo.filho.exitCode === null && processo.filho.signalCode === null;

let postgres: Postgres;
const pasta = mkdtempSync(join(tmpdir(), 'ponte-falhas-'));
before(async () => {
  postgres = await iniciarPostgres();
});
after(async () => {
  await postgres.parar();
  rmSync(pasta, { recursive: true, force: true });
});

/** A fresh database for both stores, and counts read from it directly, each on a connection of its own (it may restart). */
async function banco() {
  const url = await postgres.novoBanco(`falhas_${randomUUID().replaceAll('-', '')}`);
  const contar = async (sql: string, valores: unknown[] = []) => {
    const cliente = new pg.Client(url);
    await cliente.connect();
    try {
      return (await cliente.query<{ n: number }>(sql, valores)).rows[0]?.n ?? 0;
    } finally {
      await cliente.end();
    }
  };
  return {
    url,
    contar,
    reivindicadas: (ids: readonly string[]) =>
      contar('SELECT count(*)::int AS n FROM a2a_pausas WHERE task_id = ANY($1::text[]) AND reivindicada_ate IS NOT NULL', [ids]),
    /** Bookings made through the agent: the seed has no key, every call of the agent has one. */
    reservasFeitas: () => contar('SELECT count(*)::int AS n FROM reservas WHERE chave IS NOT NULL'),
    passosAbertos: () => contar('SELECT count(*)::int AS n FROM a2a_pausas'),
  };
}

describe('PostgreSQL: kill -9 of an agent while its answers wait on a frozen MCP server', () => {
  it('another agent replays each claimed answer with its key: every Task COMPLETED with the one booking the server made', async () => {
    const { url, reivindicadas, reservasFeitas, passosAbertos } = await banco();
    const mcp = await iniciarServidorMcp({ RESERVAS_DB: url });
    let primeiro: Processo | undefined = await iniciarAgente(mcp.url, { TASKS_DB: url, ...AGENTE_RAPIDO });
    let segundo: Processo | undefined;
    try {
      const dias = [1, 2, 3, 4, 5];
      const ids: string[] = [];
      for (const n of dias) ids.push(await pausada(primeiro, n));
      congelar(mcp);
      const agente = primeiro;
      const respostas = ids.map((id) => enviar(agente.url, 'escolha=sala-fusca', { taskId: id }).catch((erro: unknown) => erro));
      // Held at a known point: each answer claimed with its WORKING state, its call sent to a server that cannot answer.
      await esperarAte(async () => (await reivindicadas(ids)) === ids.length, 'as 5 respostas reivindicadas', 15_000);
      await primeiro.parar('SIGKILL');
      primeiro = undefined;
      await Promise.all(respostas);
      // The server wakes up and books what it had received: the dead agent never hears of it.
      descongelar(mcp);
      segundo = await iniciarAgente(mcp.url, { TASKS_DB: url, ...AGENTE_RAPIDO });
      for (const [i, id] of ids.entries()) {
        const fim = await esperarEstado(segundo, id, 'TASK_STATE_COMPLETED');
        const reserva = reservaDe(fim);
        assert.equal(reserva.sala, 'sala-fusca');
        assert.deepEqual(await reservasDaFusca(mcp, dias[i] ?? 0), [reserva.reserva], 'one booking, the one the Task names');
      }
      // Five sala-garagem bookings of the first requests, five sala-fusca of the answers: none twice.
      assert.equal(await reservasFeitas(), 10);
      assert.equal(await passosAbertos(), 0, 'no step left open');
    } finally {
      descongelar(mcp);
      await Promise.all([primeiro?.parar('SIGKILL'), segundo?.parar(), mcp.parar()]);
    }
  });
});

describe('PostgreSQL: the agent database connection terminated while a step waits on the MCP server', () => {
  it('the agent keeps serving, and the step ends COMPLETED with one booking', async () => {
    const { url, contar, reivindicadas, reservasFeitas } = await banco();
    const mcp = await iniciarServidorMcp({ RESERVAS_DB: url });
    const agente = await iniciarAgente(mcp.url, { TASKS_DB: url, ...AGENTE_RAPIDO });
    try {
      const id = await pausada(agente, 6);
      congelar(mcp);
      const resposta = enviar(agente.url, 'escolha=sala-fusca', { taskId: id });
      await esperarAte(async () => (await reivindicadas([id])) === 1, 'a resposta reivindicada', 15_000);
      const terminadas = await contar(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'agente'`,
      );
      assert.ok(terminadas > 0, 'the agent had connections to terminate');
      descongelar(mcp);
      await resposta.catch(() => undefined);
      assert.ok(vivo(agente), `the agent died:\n${agente.linhas.slice(-10).join('\n')}`);
      const fim = await esperarEstado(agente, id, 'TASK_STATE_COMPLETED');
      assert.deepEqual(await reservasDaFusca(mcp, 6), [reservaDe(fim).reserva]);
      assert.equal(await reservasFeitas(), 2);
    } finally {
      descongelar(mcp);
      await agente.parar();
      await mcp.parar();
    }
  });
});

describe('SQLite: kill -9 of the agent during a new Task first call', () => {
  it('the restarted agent replays the call keyed by the Task id: COMPLETED with the booking the server made, once', async () => {
    const arquivo = join(pasta, `tarefas-${randomUUID()}.db`);
    const mcp = await iniciarServidorMcp();
    let agente: Processo | undefined = await iniciarAgente(mcp.url, { TASKS_DB: arquivo, ...AGENTE_RAPIDO });
    try {
      // Warm: the tool list and the policy are cached, so the first call of the next Task is the booking itself.
      assert.equal(estado(await enviar(agente.url, pedido('sala-porao', dia(7), '09:00', '10:00'))), 'TASK_STATE_COMPLETED');
      congelar(mcp);
      // Answered at once, with the Task's id, while its first call waits on the frozen server.
      const resposta = await a2a(agente.url, 'SendMessage', {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: pedido('sala-fusca', dia(7), '14:00', '15:00') }] },
        configuration: { returnImmediately: true },
      });
      const taskId = tarefa(resposta).id;
      const leitor = () => new Sqlite(arquivo, { readonly: true, fileMustExist: true });
      await esperarAte(
        () => {
          const db = leitor();
          try {
            return db.prepare('SELECT 1 FROM a2a_pausas WHERE task_id = ? AND reivindicada_ate IS NOT NULL').get(taskId) !== undefined;
          } finally {
            db.close();
          }
        },
        'o pedido reivindicado',
        15_000,
      );
      await agente.parar('SIGKILL');
      agente = undefined;
      descongelar(mcp);
      agente = await iniciarAgente(mcp.url, { TASKS_DB: arquivo, ...AGENTE_RAPIDO });
      const fim = await esperarEstado(agente, taskId, 'TASK_STATE_COMPLETED');
      assert.deepEqual(await reservasDaFusca(mcp, 7), [reservaDe(fim).reserva]);
    } finally {
      descongelar(mcp);
      await agente?.parar();
      await mcp.parar();
    }
  });
});

describe('In memory: an MCP server frozen past the agent timeout', () => {
  it('the answer stays WORKING, cannot be canceled, and completes with the one booking once the server is back', async () => {
    const mcp = await iniciarServidorMcp();
    const agente = await iniciarAgente(mcp.url, { AGENTE_MCP_TIMEOUT_SECONDS: '1', AGENTE_SWEEP_SECONDS: '1' });
    try {
      const id = await pausada(agente, 8);
      congelar(mcp);
      const trabalhando = await enviar(agente.url, 'escolha=sala-fusca', { taskId: id });
      assert.equal(estado(trabalhando), 'TASK_STATE_WORKING', trabalhando.texto);
      assert.match(mensagem(trabalhando), /^Sem desfecho do servidor MCP em .+: a reserva pode ter sido feita\./);
      const cancelada = await a2a(agente.url, 'CancelTask', { id });
      assert.equal(cancelada.corpo.error?.code, -32002, cancelada.texto);
      assert.match(cancelada.corpo.error.message, /chamada em andamento no servidor MCP, que pode ter efeito/);
      descongelar(mcp);
      const fim = await esperarEstado(agente, id, 'TASK_STATE_COMPLETED');
      assert.deepEqual(await reservasDaFusca(mcp, 8), [reservaDe(fim).reserva]);
    } finally {
      descongelar(mcp);
      await agente.parar();
      await mcp.parar();
    }
  });
});

describe('An answer while the MCP server cannot book', () => {
  it('unreachable (killed): the Task stays INPUT_REQUIRED, says so, and the same answer later completes it', async () => {
    const segredo = segredoDeTeste();
    let mcp = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo });
    const agente = await iniciarAgente(mcp.url);
    try {
      const id = await pausada(agente, 9);
      const porta = String(mcp.porta);
      await mcp.parar('SIGKILL');
      const recusada = await enviar(agente.url, 'escolha=sala-fusca', { taskId: id });
      assert.equal(estado(recusada), 'TASK_STATE_INPUT_REQUIRED', recusada.texto);
      assert.match(
        mensagem(recusada),
        /^alternativas: sala-fusca, sala-mirante\nO servidor MCP esta inalcancavel em .+ Nada foi reservado: envie a resposta de novo\.$/,
      );
      mcp = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo, MCP_PORT: porta });
      const fim = await enviar(agente.url, 'escolha=sala-fusca', { taskId: id });
      assert.equal(estado(fim), 'TASK_STATE_COMPLETED', fim.texto);
      assert.equal(reservaDe(fim).sala, 'sala-fusca');
    } finally {
      await agente.parar();
      await mcp.parar();
    }
  });

  it('its database down: the answer stays WORKING (the server may have committed), and completes by itself once the database is back', async () => {
    const { url, reservasFeitas } = await banco();
    const mcp = await iniciarServidorMcp({ RESERVAS_DB: url });
    const agente = await iniciarAgente(mcp.url, { AGENTE_SWEEP_SECONDS: '1' });
    try {
      const id = await pausada(agente, 10);
      await postgres.desligar();
      try {
        const incerta = await enviar(agente.url, 'escolha=sala-fusca', { taskId: id });
        assert.equal(estado(incerta), 'TASK_STATE_WORKING', incerta.texto);
        assert.match(
          mensagem(incerta),
          /^Sem desfecho do servidor MCP em .+Banco de reservas indisponivel.*: a reserva pode ter sido feita\./,
        );
        // Replayed while the database is down: still uncertain, never FAILED nor released.
        await esperarAte(
          () => agente.linhas.some((linha) => linha.includes(`passo da Task ${id} repetido, desfecho incerto`)),
          'uma repeticao sem desfecho',
        );
        assert.equal(estado(await obter(agente.url, id)), 'TASK_STATE_WORKING');
      } finally {
        await postgres.ligar();
      }
      const fim = await esperarEstado(agente, id, 'TASK_STATE_COMPLETED');
      assert.equal(reservaDe(fim).sala, 'sala-fusca');
      assert.equal(await reservasFeitas(), 2);
    } finally {
      await agente.parar();
      await mcp.parar();
    }
  });
});
