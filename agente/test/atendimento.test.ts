/**
 * What Atendimento adds to the SDK's request handler, over the real
 * lifecycle in memory and a scripted bridge: a stream runs to its end
 * without its reader, a webhook or a name past the limits is refused before
 * anything starts, webhook secrets are never read back, a paused Task
 * canceled is told to its webhooks, and a subscription follows the log.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentCard, ListTasksRequest, SendMessageRequest, TaskState, TaskPushNotificationConfig, type StreamResponse } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { STATE_HEADERS_KEY, ServerCallContext, type User } from '@a2a-js/sdk/server';
import { somenteLeitura } from '../src/armazenamento/tarefas.js';
import { Atendimento } from '../src/a2a/atendimento.js';
import { Acompanhamento } from '../src/a2a/acompanhamento.js';
import { Conducao } from '../src/a2a/conducao.js';
import { MAXIMO_POR_TASK } from '../src/armazenamento/diario.js';
import { agentCard } from '../src/a2a/card.js';
import type { Ponte } from '../src/ponte/ponte.js';
import type { Desfecho } from '../src/ponte/tipos.js';
import { ESCOPO_ANONIMO } from '../src/armazenamento/escopo.js';
import { aberta, adiado, ateOEstado, mensagemAo, naMemoria, pausada } from './apoio.js';

const CONCLUIDA: Desfecho = { estado: 'concluida', mensagem: 'pronto', artefato: { nome: 'salas', dados: { salas: [] } } };

/** A bridge whose new Tasks complete once `liberar` is called; answers are not expected here. */
function ponteRoteirizada() {
  const { promessa: liberado, resolver: liberar } = adiado();
  const ponte: Pick<Ponte, 'atender' | 'responder' | 'escolher' | 'cancelar' | 'largar'> = {
    atender: () => liberado.then(() => CONCLUIDA),
    responder: () => Promise.reject(new Error('ponte.responder is not expected in this test')),
    escolher: () => assert.fail('ponte.escolher is not expected in this test'),
    cancelar: () => false,
    largar: () => undefined,
  };
  return { ponte, liberar };
}

function montar() {
  // What the webhooks are told: by the lifecycle after each commit, and by the SDK if it ever sent any itself.
  const avisados: StreamResponse[] = [];
  const memoria = naMemoria({ avisos: { enviar: (_taskId, respostas) => avisados.push(...respostas) } });
  const { ciclo, exclusao, varredura, webhooks: configs, diario, campainha } = memoria;
  const { ponte, liberar } = ponteRoteirizada();
  const linhas: string[] = [];
  const { promessa: logou, resolver: aoLogar } = adiado();
  const atendimento = new Atendimento(
    AgentCard.fromJSON(agentCard(new URL('http://agente.test/'))),
    somenteLeitura(memoria.tarefas),
    new Conducao(ciclo, ponte, exclusao, varredura),
    ciclo,
    exclusao,
    {
      configs,
      avisos: {
        send: (resposta) => {
          avisados.push(resposta);
          return Promise.resolve();
        },
      },
      hosts: new Set(['127.0.0.1']),
    },
    new Acompanhamento(diario, campainha, 60_000),
    (linha) => {
      linhas.push(linha);
      aoLogar();
    },
  );
  return { ...memoria, liberar, avisados, configs, atendimento, linhas, logou };
}

const contexto = () => new ServerCallContext({ requestedVersion: '1.0' });
/** A status event as its state's name; any other as what it is (task, artifactUpdate). */
const nome = (evento: StreamResponse): string =>
  (evento.payload?.$case === 'statusUpdate' ? TaskState[evento.payload.value.status?.state ?? 0] : evento.payload?.$case) ?? '?';
const pedido = (campos: object = {}) =>
  SendMessageRequest.fromJSON({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'listar salas' }] }, ...campos });

describe('Atendimento', () => {
  it('a stream whose reader gives up after the first event still runs to the end: the outcome is stored', async () => {
    const { tarefas, campainha, diario, liberar, atendimento } = montar();
    const fluxo = atendimento.sendMessageStream(pedido(), contexto());
    const primeiro = await fluxo.next();
    assert.ok(!primeiro.done && primeiro.value.payload?.$case === 'task');
    const taskId = primeiro.value.payload.value.id;
    // What a transport does when its client leaves: it stops reading.
    await fluxo.return(undefined);
    liberar();
    await ateOEstado(campainha, tarefas, taskId, TaskState.TASK_STATE_COMPLETED, contexto());
    assert.deepEqual(
      (await diario.ler(taskId, ESCOPO_ANONIMO, 0, 10)).map(({ evento }) => nome(evento)),
      ['task', 'TASK_STATE_WORKING', 'artifactUpdate', 'TASK_STATE_COMPLETED'],
      'every event recorded, read or not',
    );
  });

  it('returnImmediately answers with the new Task as first stored (SUBMITTED), its step going on; a blocking send, once the step is done', async () => {
    const { tarefas, campainha, liberar, atendimento } = montar();
    const imediata = await atendimento.sendMessage(pedido({ configuration: { returnImmediately: true } }), contexto());
    assert.ok('status' in imediata, 'a Task');
    assert.equal(imediata.status?.state, TaskState.TASK_STATE_SUBMITTED);
    assert.equal((await tarefas.load(imediata.id, contexto()))?.status?.state, TaskState.TASK_STATE_WORKING, 'its call is being made');
    const bloqueante = atendimento.sendMessage(pedido(), contexto());
    liberar();
    await ateOEstado(campainha, tarefas, imediata.id, TaskState.TASK_STATE_COMPLETED, contexto());
    const concluida = await bloqueante;
    assert.ok('status' in concluida, 'a Task');
    assert.equal(concluida.status?.state, TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses, before anything runs, a message missing what A2A requires, a webhook on a host not allowed and names too long for the database', async () => {
    const { atendimento, tarefas } = montar();
    const webhook = (url: string, id = '') => ({ configuration: { taskPushNotificationConfig: { url, id } } });
    const casos: [SendMessageRequest, ServerCallContext, RegExp][] = [
      [
        pedido(webhook('http://10.0.0.1/x')),
        contexto(),
        /^Webhook recusado: o host "10\.0\.0\.1" na porta 80 nao esta em AGENTE_PUSH_HOSTS$/,
      ],
      [pedido(webhook('http://127.0.0.1/x', 'i'.repeat(256))), contexto(), /^O id do webhook tem mais de 255 caracteres\.$/],
      [pedido({ message: { messageId: 'm', parts: [{ text: 'x' }] } }), contexto(), /^message\.role deve ser ROLE_USER ou ROLE_AGENT\.$/],
      [
        pedido({ message: { messageId: 'm', role: 'ROLE_UNSPECIFIED', parts: [{ text: 'x' }] } }),
        contexto(),
        /^message\.role deve ser ROLE_USER ou ROLE_AGENT\.$/,
      ],
      [
        pedido({ message: { messageId: 'm', role: 'user', parts: [{ text: 'x' }] } }),
        contexto(),
        /^message\.role deve ser ROLE_USER ou ROLE_AGENT\.$/,
      ],
      [pedido({ message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }), contexto(), /^message\.parts deve ter ao menos uma parte/],
      [pedido({ message: { messageId: 'm', role: 'ROLE_USER' } }), contexto(), /^message\.parts deve ter ao menos uma parte/],
      [
        pedido({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }, { metadata: {} }] } }),
        contexto(),
        /^message\.parts\[1\] nao traz conteudo/,
      ],
      [
        SendMessageRequest.fromJSON({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], contextId: 'c'.repeat(37) } }),
        contexto(),
        /^contextId com mais de 36 caracteres\.$/,
      ],
      [pedido(), new ServerCallContext({ tenant: 't'.repeat(256) }), /^tenant com mais de 255 caracteres\.$/],
      [
        SendMessageRequest.fromJSON({
          message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], referenceTaskIds: Array.from({ length: 17 }, String) },
        }),
        contexto(),
        /^referenceTaskIds com mais de 16 Tasks\.$/,
      ],
      [
        pedido({ configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1/x', token: 'a\r\nX-Injetado: 1' } } }),
        contexto(),
        /^O token ou as credenciais do webhook trazem caracteres que nao cabem num cabecalho HTTP\.$/,
      ],
    ];
    for (const [params, ctx, mensagem] of casos) {
      const recusado = (erro: Error) => erro instanceof RequestMalformedError && mensagem.test(erro.message);
      await assert.rejects(atendimento.sendMessage(params, ctx), recusado);
      // A stream refuses at its first read, before a transport writes any header.
      await assert.rejects(atendimento.sendMessageStream(params, ctx).next(), recusado);
    }
    assert.equal((await tarefas.list(ListTasksRequest.fromJSON({ pageSize: 10 }), contexto())).totalSize, 0, 'no Task was opened');
  });

  it('a Task takes at most 10 webhooks; replacing one of them is still allowed', async () => {
    const { atendimento, ciclo } = montar();
    await pausada(ciclo, 't');
    const config = (id: string) => TaskPushNotificationConfig.fromJSON({ taskId: 't', id, url: 'http://127.0.0.1/hook' });
    for (let i = 0; i < 10; i++) await atendimento.createTaskPushNotificationConfig(config(`w${String(i)}`), contexto());
    await atendimento.createTaskPushNotificationConfig(config('w3'), contexto());
    await assert.rejects(atendimento.createTaskPushNotificationConfig(config('w10'), contexto()), /ja tem 10 webhooks/);
    // Nor past the cap through a continuation that brings its own webhook.
    const continuacao = SendMessageRequest.fromJSON({
      message: { messageId: 'm2', role: 'ROLE_USER', taskId: 't', parts: [{ text: 'recusar' }] },
      configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1/outro', id: 'w11' } },
    });
    await assert.rejects(atendimento.sendMessage(continuacao, contexto()), /^RequestMalformedError: A Task t ja tem 10 webhooks/);
    await assert.rejects(atendimento.sendMessageStream(continuacao, contexto()).next(), /ja tem 10 webhooks/);
  });

  it('reads a webhook back without its token or credentials, and still delivers with them', async () => {
    const { atendimento, ciclo, configs } = montar();
    await pausada(ciclo, 't');
    const com = TaskPushNotificationConfig.fromJSON({
      taskId: 't',
      id: 'w',
      url: 'http://127.0.0.1/hook',
      token: 'tok-secreto',
      authentication: { scheme: 'Bearer', credentials: 'cred-secreta' },
    });
    const sem = TaskPushNotificationConfig.fromJSON({ taskId: 't', id: 'sem', url: 'http://127.0.0.1/hook' });
    await atendimento.createTaskPushNotificationConfig(com, contexto());
    await atendimento.createTaskPushNotificationConfig(sem, contexto());
    const lida = await atendimento.getTaskPushNotificationConfig({ tenant: '', taskId: 't', id: 'w' }, contexto());
    assert.equal(lida.token, '********');
    assert.deepEqual(lida.authentication, { scheme: 'Bearer', credentials: '********' });
    const lista = await atendimento.listTaskPushNotificationConfigs({ tenant: '', taskId: 't', pageSize: 0, pageToken: '' }, contexto());
    assert.deepEqual(
      lista.configs.map((config) => [config.id, config.token]),
      [
        ['w', '********'],
        ['sem', ''],
      ],
    );
    const guardadas = await configs.load('t', contexto());
    assert.equal(guardadas[0]?.token, 'tok-secreto', 'the store keeps the secret for the deliveries');
  });

  it('a stream whose reader left and whose producer then fails says so in the log', async () => {
    const { atendimento, tarefas, liberar, linhas, logou } = montar();
    const fluxo = atendimento.sendMessageStream(pedido(), contexto());
    await fluxo.next();
    await fluxo.return(undefined);
    tarefas.save = () => Promise.reject(new Error('banco caiu'));
    liberar();
    await logou;
    assert.deepEqual(linhas, ['stream sem leitor falhou: Banco de Tasks indisponivel: tente de novo em instantes']);
  });

  it('a paused Task canceled is told to its webhooks once, and a second cancel tells nothing', async () => {
    const { atendimento, ciclo, pausas, avisados } = montar();
    await pausada(ciclo, 't');
    const webhook = TaskPushNotificationConfig.fromJSON({ taskId: 't', id: 'w', url: 'http://127.0.0.1/hook' });
    await atendimento.createTaskPushNotificationConfig(webhook, contexto());
    const cancelada = await atendimento.cancelTask({ id: 't', tenant: '', metadata: {} }, contexto());
    const deNovo = await atendimento.cancelTask({ id: 't', tenant: '', metadata: {} }, contexto());
    assert.equal(cancelada.status?.state, TaskState.TASK_STATE_CANCELED);
    assert.deepEqual(deNovo, cancelada, 'a Task already CANCELED is answered as it is');
    assert.equal(await pausas.ler('t'), undefined, 'its pause gone with it');
    assert.deepEqual(
      avisados.map((aviso) =>
        aviso.payload?.$case === 'statusUpdate' ? [aviso.payload.value.taskId, TaskState[aviso.payload.value.status?.state ?? 0]] : [],
      ),
      [['t', 'TASK_STATE_CANCELED']],
    );
  });

  it("a cancel while a new Task's call runs waits for its turn, then finds it finished: not cancelable", async () => {
    const { atendimento, liberar } = montar();
    const fluxo = atendimento.sendMessageStream(pedido(), contexto());
    const primeiro = await fluxo.next();
    assert.ok(!primeiro.done && primeiro.value.payload?.$case === 'task');
    const cancelamento = atendimento.cancelTask({ id: primeiro.value.payload.value.id, tenant: '', metadata: {} }, contexto());
    liberar();
    // Refused as finished, not as running: it was heard only once the step's outcome was stored.
    await assert.rejects(cancelamento, (erro) => erro instanceof TaskNotCancelableError && /^Task not cancelable: /.test(erro.message));
    const resto: string[] = [];
    for await (const evento of fluxo) resto.push(nome(evento));
    assert.deepEqual(resto, ['TASK_STATE_WORKING', 'artifactUpdate', 'TASK_STATE_COMPLETED']);
  });

  it('SubscribeToTask with a Last-Event-ID older than the Task keeps: the Task as it is, then its events; never to another identity', async () => {
    const { atendimento, ciclo } = montar();
    // Events 1 and 2 (the Task, WORKING), then WORKING with a message until the first ones are no longer kept.
    const { alvo, pedido: passo } = await aberta(ciclo, 't');
    for (let i = 1; i <= MAXIMO_POR_TASK + 4; i++) await ciclo.progredir(alvo, `Progresso ${String(i)}.`);
    const comUltimo = (valor: string, user?: User) =>
      new ServerCallContext({ state: new Map([[STATE_HEADERS_KEY, { 'last-event-id': valor }]]), ...(user ? { user } : {}) });
    const assinatura = atendimento.resubscribe({ id: 't', tenant: '' }, comUltimo('1'));
    const retrato = await assinatura.next();
    assert.ok(!retrato.done && retrato.value.payload?.$case === 'task', 'event 1 was dropped: the whole Task instead');
    await ciclo.concluir(alvo, CONCLUIDA, passo);
    const resto: string[] = [];
    for await (const evento of assinatura) resto.push(nome(evento));
    assert.deepEqual(resto, ['artifactUpdate', 'TASK_STATE_COMPLETED']);
    const outra: User = { isAuthenticated: true, userName: 'outra' };
    await assert.rejects(atendimento.resubscribe({ id: 't', tenant: '' }, comUltimo('107', outra)).next(), TaskNotFoundError);
  });

  it('a Last-Event-ID replay goes past a pause answered since, to the Task as it is now, and ends only where it stops', async () => {
    const { atendimento, ciclo } = montar();
    // The Task, WORKING, INPUT_REQUIRED, then the answer claimed with WORKING.
    const { alvo } = await pausada(ciclo, 't');
    const escolha = { escolha_de_sala: { action: 'accept' as const, content: { sala: 'sala-fusca' } } };
    const { resposta } = await ciclo.receber(alvo, mensagemAo('t', 'escolha=sala-fusca', { messageId: 'm2' }), () => ({
      respostas: escolha,
    }));
    assert.ok(resposta, 'the answer was claimed');
    const comUltimo = new ServerCallContext({ state: new Map([[STATE_HEADERS_KEY, { 'last-event-id': '1' }]]) });
    const assinatura = atendimento.resubscribe({ id: 't', tenant: '' }, comUltimo);
    const lidos: string[] = [];
    for (let i = 0; i < 3; i++) {
      const lido = await assinatura.next();
      assert.ok(!lido.done);
      lidos.push(nome(lido.value));
    }
    assert.deepEqual(lidos, ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING']);
    await ciclo.concluir(alvo, CONCLUIDA, resposta.pausa, { respostas: resposta.respostas });
    const resto: string[] = [];
    for await (const evento of assinatura) resto.push(nome(evento));
    assert.deepEqual(resto, ['artifactUpdate', 'TASK_STATE_COMPLETED']);
  });
});
