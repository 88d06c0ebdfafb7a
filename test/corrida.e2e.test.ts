/**
 * Answers racing for one paused Task, on one agent and across agents that
 * share PostgreSQL (TASKS_DB): one MCP retry, one booking, one success
 * reply for the choice that was applied; every other answer gets what it
 * would get arriving after the winner (-32004), and never enters history.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Disponibilidade } from 'compartilhado/contrato';
import { a2a, enviar, estado, obter, pedido, reservaDe, tarefa } from './apoio/a2a.js';
import { chamar, estruturado } from './apoio/mcp.js';
import { iniciarAgente, iniciarServidorMcp, linhasAte, type Processo } from './apoio/processos.js';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';

const RESPOSTAS = 8;
/** What a pause of sala-garagem 14-15 offers, in order. */
const ALTERNATIVAS = ['sala-fusca', 'sala-mirante'];

/** The element at `i`; an index past the end fails the test here. */
function em<T>(lista: readonly T[], i: number): T {
  const elemento = lista[i];
  assert.ok(elemento !== undefined, `no element ${i} in a list of ${lista.length}`);
  return elemento;
}

/** tools/call requests the MCP server answered so far. */
const chamadasDeFerramenta = async (mcp: Processo) =>
  (await linhasAte(mcp, (id) => chamar(mcp.url, { metodo: 'tools/list', id }))).filter((linha) => linha.includes('metodo=tools/call'))
    .length;

async function corrida(agentes: Processo[], mcp: Processo, dia: string) {
  const [primeiro] = agentes;
  assert.ok(primeiro);
  assert.equal(estado(await enviar(primeiro.url, pedido('sala-garagem', dia, '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
  const pausa = await enviar(primeiro.url, pedido('sala-garagem', dia, '14:00', '15:00', 'Biff'));
  assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED', pausa.texto);
  const id = tarefa(pausa).id;
  const antes = await chamadasDeFerramenta(mcp);

  const escolhas = Array.from({ length: RESPOSTAS }, (_, i) => em(ALTERNATIVAS, i % ALTERNATIVAS.length));
  const respostas = await Promise.all(
    escolhas.map((sala, i) => enviar(em(agentes, i % agentes.length).url, `escolha=${sala}`, { taskId: id })),
  );

  const vencedoras = respostas.flatMap((resposta, i) => (resposta.corpo.error ? [] : [{ resposta, sala: em(escolhas, i) }]));
  assert.equal(vencedoras.length, 1, respostas.map((r) => r.texto.slice(0, 160)).join('\n'));
  const { resposta: vencedora, sala } = em(vencedoras, 0);
  assert.equal(estado(vencedora), 'TASK_STATE_COMPLETED');
  assert.equal(reservaDe(vencedora).sala, sala, 'the success reply tells the choice that was applied');
  for (const perdedora of respostas.filter((r) => r !== vencedora)) {
    assert.equal(perdedora.status, 200);
    assert.equal(perdedora.corpo.error?.code, -32004, perdedora.texto);
  }

  assert.equal((await chamadasDeFerramenta(mcp)) - antes, 1, 'exactly one MCP retry');
  for (const candidata of ALTERNATIVAS) {
    const consulta = await chamar(mcp.url, {
      metodo: 'tools/call',
      params: {
        name: 'consultar_disponibilidade',
        arguments: { sala: candidata, inicio: `${dia}T14:00:00-03:00`, fim: `${dia}T15:00:00-03:00` },
      },
    });
    assert.equal(
      estruturado(consulta, Disponibilidade).livre,
      candidata !== sala,
      `${candidata} booked only if it was the winner's choice`,
    );
  }
  for (const agente of agentes) {
    const final = tarefa(await obter(agente.url, id));
    assert.equal(final.status.state, 'TASK_STATE_COMPLETED', 'never moved backwards');
    const doUsuario = (final.history ?? []).filter((m) => m.role === 'ROLE_USER').map((m) => m.parts[0]?.text);
    assert.deepEqual(
      doUsuario,
      [pedido('sala-garagem', dia, '14:00', '15:00', 'Biff'), `escolha=${sala}`],
      'only the winning answer is in the history',
    );
  }
}

describe('answers racing for one paused Task', () => {
  it(`on one agent with Tasks in memory: ${RESPOSTAS} answers at once`, async () => {
    const mcp = await iniciarServidorMcp();
    const agente = await iniciarAgente(mcp.url);
    try {
      for (const dia of ['2027-06-01', '2027-06-02', '2027-06-03']) await corrida([agente], mcp, dia);
      assert.ok(!agente.linhas.some((linha) => /MaxListenersExceededWarning/.test(linha)));
    } finally {
      await agente.parar();
      await mcp.parar();
    }
  });

  describe('across agents sharing PostgreSQL (TASKS_DB)', () => {
    let postgres: Postgres | undefined;
    let mcp: Processo | undefined;
    const agentes: Processo[] = [];
    before(async () => {
      postgres = await iniciarPostgres();
      const banco = await postgres.novoBanco(`corrida_${randomUUID().replaceAll('-', '')}`);
      mcp = await iniciarServidorMcp();
      agentes.push(await iniciarAgente(mcp.url, { TASKS_DB: banco }), await iniciarAgente(mcp.url, { TASKS_DB: banco }));
    });
    after(async () => {
      await Promise.all(agentes.map((agente) => agente.parar()));
      await mcp?.parar();
      await postgres?.parar();
    });

    it('a Task paused on one agent is read and continued on another', async () => {
      const [a, b] = agentes;
      assert.ok(a && b);
      assert.ok(a.linhas.some((l) => l.includes('Tasks em PostgreSQL')));
      assert.equal(estado(await enviar(a.url, pedido('sala-garagem', '2027-06-10', '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
      const pausa = await enviar(a.url, pedido('sala-garagem', '2027-06-10', '14:00', '15:00', 'Biff'));
      assert.equal(estado(await obter(b.url, tarefa(pausa).id)), 'TASK_STATE_INPUT_REQUIRED');
      const fim = await enviar(b.url, 'escolha=sala-mirante', { taskId: tarefa(pausa).id });
      assert.equal(estado(fim), 'TASK_STATE_COMPLETED', fim.texto);
      assert.equal(estado(await obter(a.url, tarefa(pausa).id)), 'TASK_STATE_COMPLETED');
    });

    it(`${RESPOSTAS} answers at once, spread over two agents`, async () => {
      assert.ok(mcp);
      for (const dia of ['2027-06-11', '2027-06-12', '2027-06-13']) await corrida(agentes, mcp, dia);
      for (const agente of agentes) assert.ok(!agente.linhas.some((linha) => /MaxListenersExceededWarning/.test(linha)));
    });

    it('a cancel racing the answers either wins (CANCELED, nothing booked) or meets the finished Task', async () => {
      const [a, b] = agentes;
      assert.ok(a && b && mcp);
      const servidor = mcp;
      const fuscaLivre = async () =>
        estruturado(
          await chamar(servidor.url, {
            metodo: 'tools/call',
            params: {
              name: 'consultar_disponibilidade',
              arguments: { sala: 'sala-fusca', inicio: '2027-06-14T14:00:00-03:00', fim: '2027-06-14T15:00:00-03:00' },
            },
          }),
          Disponibilidade,
        ).livre;
      assert.equal(estado(await enviar(a.url, pedido('sala-garagem', '2027-06-14', '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
      const id = tarefa(await enviar(a.url, pedido('sala-garagem', '2027-06-14', '14:00', '15:00', 'Biff'))).id;
      const [cancelamento, resposta] = await Promise.all([
        a2a(b.url, 'CancelTask', { id }),
        enviar(a.url, 'escolha=sala-fusca', { taskId: id }),
      ]);
      const final = estado(await obter(a.url, id));
      if (final === 'TASK_STATE_CANCELED') {
        assert.equal(estado(cancelamento), 'TASK_STATE_CANCELED');
        assert.equal(resposta.corpo.error?.code, -32004);
        assert.equal(await fuscaLivre(), true, 'a canceled Task booked nothing');
      } else {
        assert.equal(final, 'TASK_STATE_COMPLETED');
        assert.equal(estado(resposta), 'TASK_STATE_COMPLETED');
        assert.ok(cancelamento.corpo.error, 'a finished Task cannot be canceled');
        assert.equal(await fuscaLivre(), false, 'the completed Task booked its choice');
      }
    });
  });
});
