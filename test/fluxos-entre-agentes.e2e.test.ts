/**
 * Streams that follow a Task wherever its steps run: two agents and one MCP
 * server on one throwaway PostgreSQL, the event log shared through it. A
 * subscription on agent A hears the answer to a pause that arrives at B,
 * and the sweep of B ending a step A left uncertain; every streamed event
 * carries its SSE id, and a client back with Last-Event-ID, on either
 * agent and binding, gets exactly what it missed. Readiness is read from
 * the streams themselves (their first event) and from the agents' logs.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';
import { enviar, estado, pedido, tarefa } from './apoio/a2a.js';
import { BINDINGS, clienteOficial, resumo, texto } from './apoio/cliente-a2a.js';
import { leitor } from './apoio/fluxo-a2a.js';
import { intermediario, type Intermediario } from './apoio/intermediario.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';
import { assinarCru, eventosSse, respostaDo, type EventoSse } from './apoio/sse.js';

const dia = (n: number) => `2027-08-${String(n).padStart(2, '0')}`;

/** A request on a day whose sala-garagem slot is taken first: it pauses on `agente`. */
async function pausada(agente: Processo, n: number): Promise<string> {
  assert.equal(estado(await enviar(agente.url, pedido('sala-garagem', dia(n), '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
  const resposta = await enviar(agente.url, pedido('sala-garagem', dia(n), '14:00', '15:00', `Biff ${String(n)}`));
  assert.equal(estado(resposta), 'TASK_STATE_INPUT_REQUIRED', resposta.texto);
  return tarefa(resposta).id;
}

/** Every event of a raw stream, to its end. */
async function todosCru(resposta: Response): Promise<EventoSse[]> {
  assert.equal(resposta.headers.get('content-type'), 'text/event-stream', `${String(resposta.status)} ${await resposta.clone().text()}`);
  const lidos: EventoSse[] = [];
  for await (const evento of eventosSse(resposta)) lidos.push(evento);
  return lidos;
}

const emResumo = (eventos: readonly EventoSse[]) => eventos.map((evento) => [evento.id, resumo(respostaDo(evento))]);

/** The error a refused raw subscription answers with, on its binding: JSON-RPC's code, or HTTP+JSON's status. */
async function recusa(resposta: Response): Promise<{ codigo: number; mensagem: string }> {
  const corpo = (await resposta.json()) as { error?: { code?: number; message?: string } };
  return { codigo: resposta.status === 200 ? (corpo.error?.code ?? 0) : resposta.status, mensagem: corpo.error?.message ?? '' };
}

/** Whether a stream's event is the WORKING of an MCP call whose outcome never arrived. */
const incerto = (evento: StreamResponse) =>
  evento.payload?.$case === 'statusUpdate' &&
  evento.payload.value.status?.state === TaskState.TASK_STATE_WORKING &&
  evento.payload.value.status.message !== undefined;

describe('streams that follow a Task across agents sharing PostgreSQL', () => {
  let postgres: Postgres | undefined;
  let mcp: Processo | undefined;
  const meios: Intermediario[] = [];
  const agentes: Processo[] = [];
  const ab = () => {
    const [a, b] = agentes;
    const [meioA, meioB] = meios;
    assert.ok(a && b && meioA && meioB);
    return { a, b, meioA, meioB };
  };
  before(async () => {
    postgres = await iniciarPostgres();
    const banco = await postgres.novoBanco(`fluxos_${randomUUID().replaceAll('-', '')}`);
    mcp = await iniciarServidorMcp();
    meios.push(await intermediario(mcp.url), await intermediario(mcp.url));
    const [meioA, meioB] = meios;
    assert.ok(meioA && meioB);
    // Each agent reaches MCP through a forwarder that can hold its calls. A gives up on a call after 1 s and
    // never sweeps within the test; B sweeps every second: a step A leaves uncertain is ended by B.
    agentes.push(
      await iniciarAgente(meioA.url, { TASKS_DB: banco, AGENTE_MCP_TIMEOUT_SECONDS: '1', AGENTE_SWEEP_SECONDS: '600' }),
      await iniciarAgente(meioB.url, { TASKS_DB: banco, AGENTE_SWEEP_SECONDS: '1' }),
    );
  });
  after(async () => {
    await Promise.all(agentes.map((agente) => agente.parar()));
    await Promise.all(meios.map((meio) => meio.fechar()));
    await mcp?.parar();
    await postgres?.parar();
  });

  for (const [i, binding] of BINDINGS.entries()) {
    it(`SubscribeToTask on A (${binding}) stays open on a paused Task and hears the continuation of the answer sent to B`, async () => {
      const { a, b } = ab();
      const id = await pausada(a, 1 + i);
      const cliente = await clienteOficial(a.url, binding);
      const assinatura = leitor(cliente.resubscribeTask({ id, tenant: '' }));
      assert.deepEqual((await assinatura.ate(() => true)).map(resumo), ['task:TASK_STATE_INPUT_REQUIRED']);
      const fim = await enviar(b.url, 'escolha=sala-fusca', { taskId: id });
      assert.equal(estado(fim), 'TASK_STATE_COMPLETED', fim.texto);
      const resto = await assinatura.resto();
      assert.deepEqual(resto.map(resumo), ['TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED']);
      const artefato = resto.find((evento) => evento.payload?.$case === 'artifactUpdate');
      assert.ok(artefato?.payload?.$case === 'artifactUpdate');
      assert.equal(artefato.payload.value.artifact?.artifactId, tarefa(fim).artifacts?.[0]?.artifactId, "B's artifact, as B stored it");
    });
  }

  it("a SendStreamingMessage on A whose MCP call goes uncertain follows the Task to the end B's sweep gives it, as does a SubscribeToTask on A", async (t) => {
    const { a, b, meioA, meioB } = ab();
    const id = await pausada(a, 3);
    // A's call held past its deadline; B's replay held until A's subscription has its first event.
    const soltar = [meioA.reter(), meioB.reter()];
    const soltarTodos = () => {
      for (const soltarUm of soltar) soltarUm();
    };
    // Released in the test, and here too if it fails first: later tests need MCP answering.
    t.after(soltarTodos);
    const fluxo = leitor((await clienteOficial(a.url, 'JSONRPC')).sendMessageStream(texto('escolha=sala-fusca', { taskId: id })));
    const ateIncerto = await fluxo.ate(incerto);
    assert.deepEqual(ateIncerto.map(resumo), ['task:TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_WORKING']);
    const assinatura = leitor((await clienteOficial(a.url, 'HTTP+JSON')).resubscribeTask({ id, tenant: '' }));
    assert.deepEqual((await assinatura.ate(() => true)).map(resumo), ['task:TASK_STATE_WORKING']);
    soltarTodos();
    assert.deepEqual((await fluxo.resto()).map(resumo), ['artifact:reserva', 'TASK_STATE_COMPLETED']);
    assert.deepEqual((await assinatura.resto()).map(resumo), ['artifact:reserva', 'TASK_STATE_COMPLETED']);
    await b.esperarLinha(new RegExp(`varredura: passo da Task ${id} repetido, desfecho concluida`));
  });

  it('every streamed event carries its id; a client back with Last-Event-ID gets exactly what it missed, on either agent and binding', async () => {
    const { a, b } = ab();
    const novo = await todosCru(
      await fetch(new URL('/rest/message:stream', a.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'listar salas' }] } }),
      }),
    );
    assert.deepEqual(emResumo(novo), [
      ['1', 'task:TASK_STATE_SUBMITTED'],
      ['2', 'TASK_STATE_WORKING'],
      ['3', 'artifact:salas'],
      ['4', 'TASK_STATE_COMPLETED'],
    ]);

    const id = await pausada(a, 4);
    const abandono = new AbortController();
    const primeira = eventosSse(await assinarCru(a.url, 'JSONRPC', id, {}, abandono.signal));
    const { value: retrato } = await primeira.next();
    assert.ok(retrato);
    assert.equal(resumo(respostaDo(retrato)), 'task:TASK_STATE_INPUT_REQUIRED');
    const visto = Number(retrato.id);
    assert.ok(Number.isInteger(visto) && visto > 0, `o retrato tem id: ${String(retrato.id)}`);
    // The client drops; the answer is made on B meanwhile.
    abandono.abort();
    await a.esperarLinha(new RegExp(`POST /a2a .*task=${id} .*cliente="saiu antes do fim"`));
    assert.equal(estado(await enviar(b.url, 'escolha=sala-mirante', { taskId: id })), 'TASK_STATE_COMPLETED');

    const perdidos = [
      [String(visto + 1), 'TASK_STATE_WORKING'],
      [String(visto + 2), 'artifact:reserva'],
      [String(visto + 3), 'TASK_STATE_COMPLETED'],
    ];
    const vistosPorTodos: unknown[] = [];
    for (const agente of [a, b])
      for (const binding of BINDINGS) {
        const eventos = await todosCru(await assinarCru(agente.url, binding, id, { 'Last-Event-ID': String(visto) }));
        assert.deepEqual(emResumo(eventos), perdidos, `${agente === a ? 'A' : 'B'} ${binding}`);
        vistosPorTodos.push(eventos.map((evento) => JSON.stringify(respostaDo(evento))));
      }
    assert.equal(new Set(vistosPorTodos.map((vistos) => JSON.stringify(vistos))).size, 1, 'the same events, byte for byte, everywhere');
    assert.deepEqual(emResumo(await todosCru(await assinarCru(b.url, 'HTTP+JSON', id, { 'Last-Event-ID': String(visto + 2) }))), [
      perdidos[2],
    ]);
    assert.deepEqual(await todosCru(await assinarCru(a.url, 'JSONRPC', id, { 'Last-Event-ID': String(visto + 3) })), [], 'nothing missed');
  });

  for (const binding of BINDINGS) {
    it(`a Last-Event-ID that is no id of the Task is refused with a clear message (${binding}), never a 500`, async () => {
      const { a } = ab();
      const id = await pausada(a, binding === 'JSONRPC' ? 5 : 6);
      const invalido = binding === 'JSONRPC' ? -32602 : 400;
      assert.deepEqual(await recusa(await assinarCru(a.url, binding, id, { 'Last-Event-ID': 'abc' })), {
        codigo: invalido,
        mensagem: 'Last-Event-ID invalido: deve ser o id de um evento deste stream (um inteiro nao negativo).',
      });
      const desconhecido = await recusa(await assinarCru(a.url, binding, id, { 'Last-Event-ID': '999999' }));
      assert.equal(desconhecido.codigo, invalido);
      assert.match(desconhecido.mensagem, new RegExp(`^Last-Event-ID 999999 desconhecido: o ultimo evento da Task ${id} e \\d+\\.$`));
      const inexistente = await recusa(await assinarCru(a.url, binding, randomUUID(), { 'Last-Event-ID': '1' }));
      assert.equal(inexistente.codigo, binding === 'JSONRPC' ? -32001 : 404);
    });
  }
});

describe('Last-Event-ID on one agent with Tasks in memory', () => {
  let mcp: Processo | undefined;
  let agente: Processo | undefined;
  before(async () => {
    mcp = await iniciarServidorMcp();
    agente = await iniciarAgente(mcp.url);
  });
  after(async () => {
    await agente?.parar();
    await mcp?.parar();
  });

  it('a subscription dropped while the Task is answered is resumed from its last id with the events missed', async () => {
    assert.ok(agente);
    const id = await pausada(agente, 7);
    const abandono = new AbortController();
    const { value: retrato } = await eventosSse(await assinarCru(agente.url, 'HTTP+JSON', id, {}, abandono.signal)).next();
    assert.ok(retrato?.id !== undefined);
    abandono.abort();
    await agente.esperarLinha(new RegExp(`GET /rest/tasks/${id}:subscribe .*cliente="saiu antes do fim"`));
    assert.equal(estado(await enviar(agente.url, 'escolha=sala-fusca', { taskId: id })), 'TASK_STATE_COMPLETED');
    const eventos = await todosCru(await assinarCru(agente.url, 'HTTP+JSON', id, { 'Last-Event-ID': retrato.id }));
    assert.deepEqual(
      eventos.map((evento) => resumo(respostaDo(evento))),
      ['TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED'],
    );
    assert.deepEqual(
      eventos.map((evento) => Number(evento.id)),
      [1, 2, 3].map((n) => Number(retrato.id) + n),
    );
  });
});
