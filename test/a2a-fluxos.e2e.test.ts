/**
 * The A2A surface where timing and the network matter: a subscription to
 * a running Task, a client gone mid-stream, the HTTP+JSON binding under
 * hostile input, webhooks that fail or hang, and push configs shared by
 * agents on PostgreSQL. MCP answers are held by a forwarder where a Task
 * must stay running; nothing waits on a clock.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { SendMessageRequest, StreamResponse, TaskState } from '@a2a-js/sdk';
import { escutar } from 'compartilhado/processo';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';
import { intermediario, type Intermediario } from './apoio/intermediario.js';
import { leitor } from './apoio/fluxo-a2a.js';
import { eventosSse, respostaDo } from './apoio/sse.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';
import {
  clienteOficial,
  comoTarefa,
  configDePush,
  listagem,
  nomeDoEstado,
  resumo,
  texto,
  todos,
  webhook,
  type Webhook,
} from './apoio/cliente-a2a.js';

const reservar = (sala: string, dia: string, responsavel: string) =>
  `reservar sala=${sala} inicio=${dia}T10:00:00-03:00 fim=${dia}T11:00:00-03:00 responsavel=${responsavel}`;

/** GetTask until the Task reaches a final state: the agent finishes it on its own time. */
async function ateTerminar(base: string, id: string): Promise<string> {
  const cliente = await clienteOficial(base, 'JSONRPC');
  for (;;) {
    const estado = nomeDoEstado(await cliente.getTask({ id, tenant: '' }));
    if (!['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(estado)) return estado;
    await new Promise((resolver) => setImmediate(resolver));
  }
}

describe('A2A flows', () => {
  let mcp: Processo;
  let meio: Intermediario;
  let agente: Processo;
  before(async () => {
    mcp = await iniciarServidorMcp();
    meio = await intermediario(mcp.url);
    agente = await iniciarAgente(meio.url);
  });
  after(async () => {
    await agente.parar();
    await meio.fechar();
    await mcp.parar();
  });

  it("SubscribeToTask: a running Task, then its events; a paused Task, then its answer's events; a finished one is refused", async (t) => {
    const cliente = await clienteOficial(agente.url, 'HTTP+JSON');
    const soltar = meio.reter();
    // Released in the test, and here too if it fails first: later tests need MCP answering.
    t.after(soltar);
    const chamadasAntes = meio.chamadas;
    const fluxo = cliente.sendMessageStream(texto(reservar('sala-porao', '2027-05-03', 'Doc')));
    const iterador = fluxo[Symbol.asyncIterator]();
    const primeiro = (await iterador.next()).value;
    assert.ok(primeiro?.payload?.$case === 'task');
    const id = primeiro.payload.value.id;
    await meio.chamadasRecebidas(chamadasAntes + 1);
    const assinatura = todos(cliente.resubscribeTask({ id, tenant: '' }));
    // The subscription's first event is the Task as stored; it is working until MCP answers.
    const restoDoFluxo = todos({ [Symbol.asyncIterator]: () => iterador });
    soltar();
    const [vistos, resto] = await Promise.all([assinatura, restoDoFluxo]);
    assert.deepEqual(vistos.map(resumo), ['task:TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED']);
    assert.deepEqual(resto.map(resumo), ['TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED']);

    await assert.rejects(todos(cliente.resubscribeTask({ id, tenant: '' })), (erro: Error) => erro.name === 'UnsupportedOperationError');

    await cliente.sendMessage(texto(reservar('sala-garagem', '2027-05-04', 'Marty')));
    const pausa = comoTarefa(await cliente.sendMessage(texto(reservar('sala-garagem', '2027-05-04', 'Biff'))));
    const aberta = leitor(cliente.resubscribeTask({ id: pausa.id, tenant: '' }));
    assert.deepEqual((await aberta.ate(() => true)).map(resumo), ['task:TASK_STATE_INPUT_REQUIRED']);
    // A paused Task's subscription stays open: the answer's continuation comes on it, and it ends with the Task.
    await cliente.sendMessage(texto('escolha=sala-fusca', { taskId: pausa.id }));
    assert.deepEqual((await aberta.resto()).map(resumo), ['TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED']);
  });

  it('a client gone mid-stream loses nothing: the Task finishes, GetTask shows it, the log says the client left', async (t) => {
    const soltar = meio.reter();
    t.after(soltar);
    const chamadasAntes = meio.chamadas;
    const abortar = new AbortController();
    const resposta = await fetch(`${agente.url}/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(SendMessageRequest.toJSON(texto(reservar('sala-mirante', '2027-05-05', 'Jennifer')))),
      signal: abortar.signal,
    });
    const primeiro = await eventosSse(resposta).next();
    assert.ok(!primeiro.done);
    const id = respostaDo(primeiro.value).payload;
    assert.ok(id?.$case === 'task');
    await meio.chamadasRecebidas(chamadasAntes + 1);
    abortar.abort();
    await agente.esperarLinha(/POST \/rest\/message:stream .*cliente="saiu antes do fim"/);
    soltar();
    assert.equal(await ateTerminar(agente.url, id.value.id), 'TASK_STATE_COMPLETED');
  });

  describe('HTTP+JSON binding, hostile input', () => {
    const rest = (caminho: string, init: RequestInit = {}) => fetch(`${agente.url}/rest${caminho}`, init);
    const postar = (caminho: string, corpo: string, tipo = 'application/json') =>
      rest(caminho, { method: 'POST', headers: { 'content-type': tipo }, body: corpo });
    const erroDe = async (resposta: Response) => {
      const corpo = (await resposta.json()) as { error?: { code?: number; status?: string; message?: string } };
      return { http: resposta.status, ...corpo.error };
    };

    it('every bad request gets its HTTP status and the REST error body, never a stack trace', async () => {
      const casos: [Promise<Response>, number, string, RegExp][] = [
        [postar('/message:send', '{ruim'), 400, 'INVALID_ARGUMENT', /^Parse error: o corpo nao e JSON valido$/],
        [
          postar('/message:send', JSON.stringify({ x: 'y'.repeat(70_000) })),
          413,
          'INVALID_ARGUMENT',
          /^Corpo acima do limite de 65536 bytes$/,
        ],
        [postar('/message:send', 'oi', 'text/plain'), 400, 'INVALID_ARGUMENT', /Unsupported Content-Type "text\/plain"/],
        [postar('/message:send', '{}'), 400, 'INVALID_ARGUMENT', /^message is required$/],
        [rest('/tasks/nao-existe'), 404, 'NOT_FOUND', /^Task not found: nao-existe$/],
        [rest('/tasks?pageSize=0'), 400, 'INVALID_ARGUMENT', /^pageSize must be between 1 and 100$/],
        [rest('/tasks?pageToken=nada'), 400, 'INVALID_ARGUMENT', /^pageToken invalido/],
        [rest('/tarefas'), 404, 'NOT_FOUND', /^Rota HTTP\+JSON desconhecida: GET \/rest\/tarefas$/],
        [rest('/tasks', { headers: { 'A2A-Version': '0.3' } }), 400, 'FAILED_PRECONDITION', /version '0\.3' is not supported/],
        [rest('/tasks/%E0%A4%A'), 400, 'INVALID_ARGUMENT', /^Invalid Request: Failed to decode param/],
        [rest('/tasks/a%00b'), 400, 'INVALID_ARGUMENT', /^Invalid params: a URL traz o caractere NUL \(%00\), que nao e aceito$/],
        [
          postar('/message:send', '{"message":{"messageId":"m","role":"ROLE_USER","parts":[null]}}'),
          400,
          'INVALID_ARGUMENT',
          /^Invalid params: cada item de message\.parts deve ser um objeto \(text, data, url ou raw\)$/,
        ],
        [
          postar('/message:send', `{"message":${'['.repeat(100)}${']'.repeat(100)}}`),
          400,
          'INVALID_ARGUMENT',
          /^Invalid params: JSON aninhado alem de 64 niveis$/,
        ],
        [
          postar('/message:send', JSON.stringify(SendMessageRequest.toJSON(texto('listar salas', { contextId: 'c'.repeat(37) })))),
          400,
          'INVALID_ARGUMENT',
          /^contextId com mais de 36 caracteres\.$/,
        ],
      ];
      for (const [pedido, http, status, mensagem] of casos) {
        const erro = await erroDe(await pedido);
        assert.deepEqual([erro.http, erro.code, erro.status], [http, http, status], JSON.stringify(erro));
        assert.match(erro.message ?? '', mensagem);
        assert.doesNotMatch(erro.message ?? '', /\n\s+at /);
      }
    });

    it('no A2A-Version means 1.0, no CORS header (as on /a2a), one log line per request naming the Task and its state', async () => {
      const resposta = await postar('/message:send', JSON.stringify(SendMessageRequest.toJSON(texto('listar salas'))));
      assert.equal(resposta.status, 200);
      assert.equal(resposta.headers.get('access-control-allow-origin'), null);
      const { task } = (await resposta.json()) as { task: { id: string } };
      await agente.esperarLinha(new RegExp(`POST /rest/message:send .*task=${task.id} estado=TASK_STATE_COMPLETED .*http=200`));
      const lida = await rest(`/tasks/${task.id}`);
      assert.equal(lida.status, 200);
      await agente.esperarLinha(new RegExp(`GET /rest/tasks/${task.id} .*task=${task.id} estado=TASK_STATE_COMPLETED`));
    });
  });

  describe('webhooks that fail', () => {
    it('a webhook that never answers, or refuses, neither blocks nor fails the Task; each failure is one log line', async () => {
      // Accepts the connection and never answers.
      const mudo = createServer(() => undefined);
      const porta = await escutar(mudo, 0, '127.0.0.1');
      // A port nothing listens on any more: connections to it are refused.
      const fechado = createServer();
      const portaFechada = await escutar(fechado, 0, '127.0.0.1');
      await new Promise((resolver) => fechado.close(resolver));
      const cliente = await clienteOficial(agente.url, 'JSONRPC');
      try {
        const task = comoTarefa(
          await cliente.sendMessage(
            texto('listar salas', { webhook: { url: `http://127.0.0.1:${String(porta)}/mudo`, token: 'segredo-mudo' } }),
          ),
        );
        assert.equal(nomeDoEstado(task), 'TASK_STATE_COMPLETED');
        const recusa = comoTarefa(
          await cliente.sendMessage(
            texto('listar salas', { webhook: { url: `http://127.0.0.1:${String(portaFechada)}/fechado?chave=segredo`, token: 't' } }),
          ),
        );
        assert.equal(nomeDoEstado(recusa), 'TASK_STATE_COMPLETED');
        const destino = `http://127\\.0\\.0\\.1:${String(portaFechada)}`;
        const linha = await agente.esperarLinha(new RegExp(`push task=${recusa.id} .*destino=${destino} .*falhou \\(ECONNREFUSED\\)`));
        assert.doesNotMatch(linha, /segredo/);
        assert.ok(!agente.linhas.some((l) => /segredo-mudo|chave=segredo/.test(l)), 'no token or query string in the log');
      } finally {
        mudo.closeAllConnections();
        mudo.close();
      }
    });
  });
});

describe('push configs on PostgreSQL (TASKS_DB), shared by two agents', () => {
  let postgres: Postgres;
  let mcp: Processo;
  let banco: string;
  const agentes: Processo[] = [];
  let gancho: Webhook;
  before(async () => {
    postgres = await iniciarPostgres();
    banco = await postgres.novoBanco(`push_${randomUUID().replaceAll('-', '')}`);
    mcp = await iniciarServidorMcp();
    agentes.push(await iniciarAgente(mcp.url, { TASKS_DB: banco }), await iniciarAgente(mcp.url, { TASKS_DB: banco }));
    gancho = await webhook();
  });
  after(async () => {
    await Promise.all(agentes.map((agente) => agente.parar()));
    await gancho.fechar();
    await mcp.parar();
    await postgres.parar();
  });

  it('a config made on one agent is kept in the database: the other delivers with its token, and a restart keeps it', async () => {
    const [a, b] = agentes;
    assert.ok(a && b);
    const ca = await clienteOficial(a.url, 'HTTP+JSON');
    const cb = await clienteOficial(b.url, 'JSONRPC');
    await ca.sendMessage(texto(reservar('sala-garagem', '2027-05-10', 'Marty')));
    const pausa = comoTarefa(await ca.sendMessage(texto(reservar('sala-garagem', '2027-05-10', 'Biff'))));
    // Named as clients name their configs: longer than the SDK's 36-character column, which the agent's migration widens.
    const nome = `test_create_push_config_${randomUUID()}`;
    const config = await ca.createTaskPushNotificationConfig({ ...configDePush(pausa.id, gancho.url, 'no-banco'), id: nome });
    assert.equal(config.id, nome);

    await cb.sendMessage(texto('escolha=sala-fusca', { taskId: pausa.id }));
    const chegadas = await gancho.ate(4);
    assert.deepEqual(
      chegadas.map((chegada) => resumo(StreamResponse.fromJSON(chegada.corpo))),
      ['task:TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED'],
    );
    assert.ok(chegadas.every((chegada) => chegada.headers['x-a2a-notification-token'] === 'no-banco'));
    assert.ok(
      b.linhas.some((linha) => linha.includes(`push task=${pausa.id}`)),
      'delivered by the agent that ran the step',
    );

    await a.parar();
    const novo = await iniciarAgente(mcp.url, { TASKS_DB: banco });
    agentes[0] = novo;
    const cn = await clienteOficial(novo.url, 'HTTP+JSON');
    assert.deepEqual(await cn.getTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, id: config.id }), {
      ...config,
      token: '********',
    });
    const listadas = await cn.listTasks(listagem(pausa.contextId, { pageSize: 10 }));
    assert.deepEqual(
      listadas.tasks.map((task) => [task.id, TaskState[task.status?.state ?? 0]]),
      [[pausa.id, 'TASK_STATE_COMPLETED']],
    );
  });
});
