/**
 * What Atendimento adds to the SDK's request handler, against a scripted
 * executor: a stream runs to its end without its reader, a webhook or a
 * name past the limits is refused before anything starts, webhook secrets
 * are never read back, and a paused Task canceled by the SDK is told to
 * its webhooks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AgentCard,
  ListTasksRequest,
  SendMessageRequest,
  Task,
  TaskState,
  TaskPushNotificationConfig,
  type StreamResponse,
} from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import {
  STATE_HEADERS_KEY,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type User,
} from '@a2a-js/sdk/server';
import { TarefasDaPonte } from '../src/armazenamento/gravacao.js';
import { TarefasEmMemoria } from '../src/armazenamento/tarefas.js';
import { Atendimento } from '../src/a2a/atendimento.js';
import { Acompanhamento } from '../src/a2a/acompanhamento.js';
import { Campainha } from '../src/armazenamento/campainha.js';
import { DiarioEmMemoria, MAXIMO_POR_TASK } from '../src/armazenamento/diario.js';
import { agentCard } from '../src/a2a/card.js';
import { Eventos } from '../src/a2a/eventos.js';
import { ExclusaoLocal } from '../src/armazenamento/exclusao.js';
import { PausasEmMemoria } from '../src/armazenamento/pausas.js';
import { WebhooksEmMemoria } from '../src/push/webhooks.js';

/** Publishes the new Task and WORKING, then waits for `liberar` before it completes. */
class ExecutorRoteirizado implements AgentExecutor {
  private soltar = (): void => undefined;
  private readonly liberado = new Promise<void>((resolver) => (this.soltar = resolver));

  liberar(): void {
    this.soltar();
  }

  async execute(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const eventos = new Eventos(contexto.taskId, contexto.contextId);
    bus.publish(eventos.tarefaNova(contexto.userMessage));
    bus.publish(eventos.estado(TaskState.TASK_STATE_WORKING));
    await this.liberado;
    bus.publish(eventos.estado(TaskState.TASK_STATE_COMPLETED, 'pronto'));
    bus.finished();
  }

  cancelTask(): Promise<void> {
    return Promise.resolve();
  }
}

function montar() {
  const memoria = new TarefasEmMemoria(100);
  const diario = new DiarioEmMemoria();
  const campainha = new Campainha();
  const tarefas = new TarefasDaPonte(memoria, (escrita) => escrita(memoria, new PausasEmMemoria(), diario), campainha);
  const executor = new ExecutorRoteirizado();
  const avisados: StreamResponse[] = [];
  const configs = new WebhooksEmMemoria();
  const linhas: string[] = [];
  const atendimento = new Atendimento(
    AgentCard.fromJSON(agentCard(new URL('http://agente.test/'))),
    tarefas,
    executor,
    new ExclusaoLocal(),
    { ler: () => Promise.resolve(undefined) },
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
    (linha) => linhas.push(linha),
  );
  return { tarefas, executor, avisados, configs, atendimento, linhas };
}

const contexto = () => new ServerCallContext({ requestedVersion: '1.0' });
const pedido = (campos: object = {}) =>
  SendMessageRequest.fromJSON({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'listar salas' }] }, ...campos });

describe('Atendimento', () => {
  it('a stream whose reader gives up after the first event still runs to the end: the outcome is stored', async () => {
    const { tarefas, executor, atendimento } = montar();
    const fluxo = atendimento.sendMessageStream(pedido(), contexto());
    const primeiro = await fluxo.next();
    assert.ok(!primeiro.done && primeiro.value.payload?.$case === 'task');
    const taskId = primeiro.value.payload.value.id;
    // What a transport does when its client leaves: it stops reading.
    await fluxo.return(undefined);
    const gravado = tarefas.gravado(taskId, TaskState.TASK_STATE_COMPLETED);
    executor.liberar();
    await gravado;
    assert.equal((await tarefas.load(taskId, contexto()))?.status?.state, TaskState.TASK_STATE_COMPLETED);
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
    const { atendimento, tarefas } = montar();
    await tarefas.save(Task.fromJSON({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } }), contexto());
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
    const { atendimento, tarefas, configs } = montar();
    await tarefas.save(Task.fromJSON({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } }), contexto());
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
    const { atendimento, tarefas, executor, linhas } = montar();
    const fluxo = atendimento.sendMessageStream(pedido(), contexto());
    await fluxo.next();
    await fluxo.return(undefined);
    tarefas.save = () => Promise.reject(new Error('banco caiu'));
    executor.liberar();
    await new Promise<void>((resolver) => {
      const esperar = () => (linhas.length > 0 ? resolver() : setImmediate(esperar));
      esperar();
    });
    assert.deepEqual(linhas, ['stream sem leitor falhou: banco caiu']);
  });

  it('a paused Task canceled is told to its webhooks once, and a second cancel tells nothing', async () => {
    const { atendimento, tarefas, avisados } = montar();
    await tarefas.save(Task.fromJSON({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } }), contexto());
    await atendimento.cancelTask({ id: 't', tenant: '', metadata: {} }, contexto());
    await atendimento.cancelTask({ id: 't', tenant: '', metadata: {} }, contexto());
    assert.deepEqual(
      avisados.map((aviso) =>
        aviso.payload?.$case === 'statusUpdate' ? [aviso.payload.value.taskId, TaskState[aviso.payload.value.status?.state ?? 0]] : [],
      ),
      [['t', 'TASK_STATE_CANCELED']],
    );
  });

  it('SubscribeToTask with a Last-Event-ID older than the Task keeps: the Task as it is, then its events; never to another identity', async () => {
    const { atendimento, tarefas } = montar();
    const estadoEm = (estado: string, segundo: number) =>
      Task.fromJSON({ id: 't', contextId: 'c', status: { state: estado, timestamp: new Date(segundo * 1000).toISOString() } });
    for (let segundo = 0; segundo <= MAXIMO_POR_TASK + 5; segundo++)
      await tarefas.save(estadoEm('TASK_STATE_WORKING', segundo), contexto());
    const comUltimo = (valor: string, user?: User) =>
      new ServerCallContext({ state: new Map([[STATE_HEADERS_KEY, { 'last-event-id': valor }]]), ...(user ? { user } : {}) });
    const assinatura = atendimento.resubscribe({ id: 't', tenant: '' }, comUltimo('1'));
    const retrato = await assinatura.next();
    assert.ok(!retrato.done && retrato.value.payload?.$case === 'task', 'event 1 was dropped: the whole Task instead');
    await tarefas.save(estadoEm('TASK_STATE_COMPLETED', 999), contexto());
    const resto: StreamResponse[] = [];
    for await (const evento of assinatura) resto.push(evento);
    assert.deepEqual(
      resto.map((evento) => (evento.payload?.$case === 'statusUpdate' ? TaskState[evento.payload.value.status?.state ?? 0] : '?')),
      ['TASK_STATE_COMPLETED'],
    );
    const outra: User = { isAuthenticated: true, userName: 'outra' };
    await assert.rejects(atendimento.resubscribe({ id: 't', tenant: '' }, comUltimo('107', outra)).next(), TaskNotFoundError);
  });

  it('a Last-Event-ID replay goes past a pause answered since, to the Task as it is now, and ends only where it stops', async () => {
    const { atendimento, tarefas } = montar();
    const estados = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING'];
    for (const [segundo, estado] of estados.entries())
      await tarefas.save(
        Task.fromJSON({ id: 't', contextId: 'c', status: { state: estado, timestamp: new Date(segundo * 1000).toISOString() } }),
        contexto(),
      );
    const comUltimo = new ServerCallContext({ state: new Map([[STATE_HEADERS_KEY, { 'last-event-id': '1' }]]) });
    const assinatura = atendimento.resubscribe({ id: 't', tenant: '' }, comUltimo);
    const lidos: string[] = [];
    const nome = (evento: StreamResponse): string =>
      (evento.payload?.$case === 'statusUpdate' ? TaskState[evento.payload.value.status?.state ?? 0] : evento.payload?.$case) ?? '?';
    for (let i = 0; i < 3; i++) {
      const lido = await assinatura.next();
      assert.ok(!lido.done);
      lidos.push(nome(lido.value));
    }
    assert.deepEqual(lidos, ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING']);
    await tarefas.save(Task.fromJSON({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } }), contexto());
    const resto: string[] = [];
    for await (const evento of assinatura) resto.push(nome(evento));
    assert.deepEqual(resto, ['TASK_STATE_COMPLETED']);
  });
});
