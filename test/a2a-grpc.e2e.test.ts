/**
 * gRPC, the third A2A v1.0 binding, on with AGENTE_GRPC_PORTA: the SDK's own
 * gRPC service in the real agent, driven by the SDK's gRPC client built
 * from the card. The same request handler as JSON-RPC and HTTP+JSON, so a
 * Task is one Task whatever the binding; identity, ownership and the limit
 * as on HTTP, errors as gRPC status codes, one log line per call.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createServer } from 'node:http';
import { SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { Client as ClienteGrpc, credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { escutar } from 'compartilhado/processo';
import * as z from 'zod';
import { EXTENSAO_CONTA } from '../agente/src/a2a/estendido.js';
import { a2a, tarefa } from './apoio/a2a.js';
import { enderecoGrpc, saudeGrpc } from './apoio/saude.js';
// In the order the tests first use them.
import {
  clienteOficial,
  mensagem,
  texto,
  comoTarefa,
  nomeDoEstado,
  textoDe,
  dadosDe,
  listagem,
  todos,
  resumo,
  webhook,
  configDePush,
} from './apoio/cliente-a2a.js';
import { leitor, rastro } from './apoio/fluxo-a2a.js';
import { ambosOsProcessos, iniciarAgente, segredoDeTeste } from './apoio/processos.js';

const GET_TASK = A2AService.getTask.path;
const NUNCA_EXISTIU = 'f0f0f0f0-0000-4000-8000-000000000000';
/** GetTask of a Task that never existed, in protobuf by the SDK's own serializer. */
const OBTER_INEXISTENTE = A2AService.getTask.requestSerialize({ tenant: '', id: NUNCA_EXISTIU });

const reserva = (sala: string, dia: string, responsavel: string) =>
  `reservar sala=${sala} inicio=${dia}T14:00:00-03:00 fim=${dia}T15:00:00-03:00 responsavel=${responsavel}`;

/** What the SDK's gRPC client makes of a failed call: the status, its text, and the A2A error it read (A2AError for a status with no A2A details). */
const ErroGrpc = z.object({
  status: z.number(),
  message: z.string(),
  name: z.string(),
  cause: z.object({ details: z.string() }).optional(),
});

/** The gRPC status of a call the client saw fail. */
async function statusDa(chamada: Promise<unknown> | AsyncIterable<unknown>): Promise<{ codigo: string; mensagem: string; nome: string }> {
  try {
    await (Symbol.asyncIterator in chamada ? todos(chamada) : chamada);
  } catch (erro) {
    const { status, message, name, cause } = ErroGrpc.parse(erro);
    return { codigo: Status[status] ?? String(status), mensagem: cause?.details ?? message, nome: name };
  }
  return assert.fail('the call succeeded');
}

/** A bare grpc-js call with the given request bytes and metadata, as a client without the SDK sends it. */
function chamarCru(endereco: string, metodo: string, bytes: Buffer, metadados: Record<string, string> = {}) {
  const cliente = new ClienteGrpc(endereco, credentials.createInsecure());
  const metadata = new Metadata();
  for (const [chave, valor] of Object.entries(metadados)) metadata.set(chave, valor);
  const mesmo = (valor: Buffer) => valor;
  return new Promise<{ codigo: string; mensagem: string }>((resolver) => {
    cliente.makeUnaryRequest(metodo, mesmo, mesmo, bytes, metadata, (erro: ServiceError | null) => {
      cliente.close();
      resolver({ codigo: Status[erro?.code ?? Status.OK], mensagem: erro?.details ?? '' });
    });
  });
}

const Card = z.object({
  supportedInterfaces: z.array(z.object({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string() })),
});

/** The agent's variables for gRPC on a free port. */
const COM_GRPC = { AGENTE_GRPC_PORTA: '0' };

describe('gRPC binding (AGENTE_GRPC_PORTA=0)', () => {
  const processos = ambosOsProcessos(segredoDeTeste(), COM_GRPC);
  let cliente: Client;
  before(async () => {
    cliente = await clienteOficial(processos.agente.url, 'GRPC');
  });

  it('the card lists GRPC last, host:port of the start line; JSON-RPC stays first', async () => {
    const card = Card.parse(await (await fetch(new URL('/.well-known/agent-card.json', processos.agente.url))).json());
    const endereco = enderecoGrpc(processos.agente.linhas);
    assert.match(endereco, /^127\.0\.0\.1:\d+$/);
    assert.deepEqual(
      card.supportedInterfaces.map(({ protocolBinding, url }) => `${protocolBinding} ${url}`),
      [`JSONRPC ${processos.agente.url}/a2a`, `HTTP+JSON ${processos.agente.url}/rest`, `GRPC ${endereco}`],
    );
    assert.ok(card.supportedInterfaces.every((interface_) => interface_.protocolVersion === '1.0'));
  });

  it('book a free room, book it again (paused with the alternatives), answer: COMPLETED; GetTask and ListTasks see both', async () => {
    const contextId = randomUUID();
    const livre = comoTarefa(await cliente.sendMessage(texto(reserva('sala-garagem', '2028-01-03', 'Marty'), { contextId })));
    assert.equal(nomeDoEstado(livre), 'TASK_STATE_COMPLETED');
    assert.equal(livre.artifacts[0]?.name, 'reserva');
    const pausa = comoTarefa(await cliente.sendMessage(texto(reserva('sala-garagem', '2028-01-03', 'Biff'), { contextId })));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(textoDe(pausa.status?.message?.parts), 'alternativas: sala-fusca, sala-mirante');
    assert.deepEqual((dadosDe(pausa.status?.message?.parts)[0] as { alternativas: unknown }).alternativas, ['sala-fusca', 'sala-mirante']);
    const fim = comoTarefa(await cliente.sendMessage(texto('escolha=sala-mirante', { taskId: pausa.id, contextId })));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED');
    const [parte] = fim.artifacts[0]?.parts ?? [];
    assert.ok(parte?.content?.$case === 'text');
    assert.equal((JSON.parse(parte.content.value) as { sala: string }).sala, 'sala-mirante');

    const lida = await cliente.getTask({ id: pausa.id, tenant: '', historyLength: 10 });
    assert.equal(nomeDoEstado(lida), 'TASK_STATE_COMPLETED');
    assert.ok(lida.history.length >= 2, 'the request and the answer');
    const pagina = await cliente.listTasks(listagem(contextId, { pageSize: 10 }));
    assert.deepEqual(
      pagina.tasks.map((task) => task.id),
      [pausa.id, livre.id],
    );
    // One handler behind every binding: the Task is there over JSON-RPC too.
    assert.equal(tarefa(await a2a(processos.agente.url, 'GetTask', { id: pausa.id })).status.state, 'TASK_STATE_COMPLETED');
  });

  it('SendStreamingMessage streams each change; SubscribeToTask follows a paused Task to its end and refuses a finished one', async () => {
    assert.deepEqual((await todos(cliente.sendMessageStream(texto(reserva('sala-porao', '2028-01-04', 'Doc'))))).map(resumo), [
      'task:TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'artifact:reserva',
      'TASK_STATE_COMPLETED',
    ]);
    const pausada = await todos(cliente.sendMessageStream(texto(reserva('sala-porao', '2028-01-04', 'Biff'))));
    assert.deepEqual(pausada.map(resumo), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
    const primeiro = pausada[0]?.payload;
    assert.ok(primeiro?.$case === 'task');
    const id = primeiro.value.id;
    // The subscription gives the paused Task as it is and stays open for the answer's continuation (the event log).
    const assinatura = leitor(cliente.resubscribeTask({ id, tenant: '' }));
    assert.deepEqual((await assinatura.ate(() => true)).map(resumo), ['task:TASK_STATE_INPUT_REQUIRED']);
    assert.deepEqual((await todos(cliente.sendMessageStream(texto('escolha=sala-fusca', { taskId: id })))).map(resumo), [
      'task:TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING',
      'artifact:reserva',
      'TASK_STATE_COMPLETED',
    ]);
    assert.deepEqual((await assinatura.resto()).map(resumo), ['TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED']);
    const terminada = await statusDa(cliente.resubscribeTask({ id, tenant: '' }));
    assert.deepEqual([terminada.codigo, terminada.nome], ['FAILED_PRECONDITION', 'UnsupportedOperationError']);
  });

  it('CancelTask: a paused Task ends CANCELED; a completed one is FAILED_PRECONDITION', async () => {
    const livre = comoTarefa(await cliente.sendMessage(texto(reserva('sala-fusca', '2028-01-05', 'Marty'))));
    const pausa = comoTarefa(await cliente.sendMessage(texto(reserva('sala-fusca', '2028-01-05', 'Biff'))));
    assert.equal(nomeDoEstado(await cliente.cancelTask({ id: pausa.id, tenant: '', metadata: {} })), 'TASK_STATE_CANCELED');
    const recusa = await statusDa(cliente.cancelTask({ id: livre.id, tenant: '', metadata: {} }));
    assert.deepEqual(recusa, {
      codigo: 'FAILED_PRECONDITION',
      nome: 'TaskNotCancelableError',
      mensagem: `Task not cancelable: ${livre.id}`,
    });
  });

  it('push configs: create, get and list (the token masked), the events POSTed, delete', async () => {
    const gancho = await webhook();
    try {
      await cliente.sendMessage(texto(reserva('sala-aquario', '2028-01-06', 'Marty')));
      const pausa = comoTarefa(await cliente.sendMessage(texto(reserva('sala-aquario', '2028-01-06', 'Biff'))));
      const segredo = `segredo-${randomUUID()}`;
      const criada = await cliente.createTaskPushNotificationConfig(configDePush(pausa.id, gancho.url, segredo));
      const mascarada = { ...criada, token: '********' };
      assert.deepEqual(await cliente.getTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, id: criada.id }), mascarada);
      const listar = () => cliente.listTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, pageSize: 0, pageToken: '' });
      assert.deepEqual((await listar()).configs, [mascarada]);
      await cliente.sendMessage(texto('escolha=sala-fusca', { taskId: pausa.id }));
      const chegadas = await gancho.ate(4);
      assert.deepEqual(
        chegadas.map(({ corpo }) => resumo(StreamResponse.fromJSON(corpo))),
        ['task:TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED'],
      );
      assert.ok(chegadas.every(({ headers }) => headers['x-a2a-notification-token'] === segredo));
      await cliente.deleteTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, id: criada.id });
      assert.deepEqual((await listar()).configs, []);
    } finally {
      await gancho.fechar();
    }
  });

  it("errors as gRPC status codes: NOT_FOUND, INVALID_ARGUMENT (the SDK's, ours, incomplete messages, bytes that are no protobuf), RESOURCE_EXHAUSTED past 64 KiB; the agent goes on", async () => {
    assert.deepEqual(await statusDa(cliente.getTask({ id: NUNCA_EXISTIU, tenant: '' })), {
      codigo: 'NOT_FOUND',
      nome: 'TaskNotFoundError',
      mensagem: `Task not found: ${NUNCA_EXISTIU}`,
    });
    const pausa = comoTarefa(await cliente.sendMessage(texto('listar salas')));
    // The SDK's own refusals, then those checked before the SDK (as over HTTP), with the SDK's error details: RequestMalformedError.
    const invalidos: [() => Promise<unknown>, string][] = [
      [() => cliente.listTasks(listagem(randomUUID(), { pageSize: 101 })), 'pageSize must be between 1 and 100'],
      [() => cliente.sendMessage(texto('listar salas', { contextId: 'c'.repeat(37) })), 'contextId com mais de 36 caracteres.'],
      [
        () => cliente.getTask({ id: pausa.id, tenant: '', historyLength: -1 }),
        'Invalid params: historyLength deve ser um inteiro nao negativo',
      ],
      [() => cliente.getTask({ id: 'a\0b', tenant: '' }), 'Invalid params: o corpo traz o caractere NUL (\\u0000), que nao e aceito'],
      [
        () => cliente.createTaskPushNotificationConfig(configDePush(pausa.id, 'http://10.0.0.7:8080/hook')),
        'Webhook recusado: o host "10.0.0.7" na porta 8080 nao esta em AGENTE_PUSH_HOSTS',
      ],
      // Messages missing what A2A requires (§5.7), as on the HTTP bindings: no Task is made.
      [() => cliente.sendMessage(mensagem([])), 'message.parts deve ter ao menos uma parte (text, data, url ou raw).'],
      [
        () => cliente.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), parts: [{ text: 'listar salas' }] } })),
        'message.role deve ser ROLE_USER ou ROLE_AGENT.',
      ],
      [
        () => cliente.createTaskPushNotificationConfig({ ...configDePush(pausa.id, 'http://127.0.0.1:9/gancho'), id: 'x'.repeat(256) }),
        'O id do webhook tem mais de 255 caracteres.',
      ],
    ];
    for (const [pedir, esperada] of invalidos) {
      const recusa = await statusDa(pedir());
      assert.deepEqual([recusa.codigo, recusa.nome], ['INVALID_ARGUMENT', 'RequestMalformedError'], esperada);
      assert.ok(recusa.mensagem.includes(esperada), recusa.mensagem);
    }
    const nomeado = `test_create_push_config_${randomUUID()}`;
    const criada = await cliente.createTaskPushNotificationConfig({ ...configDePush(pausa.id, 'http://127.0.0.1:9/gancho'), id: nomeado });
    assert.equal(criada.id, nomeado, 'a push config id may be a name longer than a UUID');
    const lixo = await chamarCru(enderecoGrpc(processos.agente.linhas), GET_TASK, Buffer.from([0xff, 0xff, 0xff]));
    assert.deepEqual(lixo, { codigo: 'INVALID_ARGUMENT', mensagem: `Invalid params: a mensagem nao e o protobuf de ${GET_TASK}` });
    // Refused by grpc-js itself, before any handler: a message over the HTTP bindings' 64 KiB body limit, a method A2A has not.
    const grande = await statusDa(cliente.sendMessage(texto('x'.repeat(70_000))));
    assert.equal(grande.codigo, 'RESOURCE_EXHAUSTED');
    assert.match(grande.mensagem, /^Received message larger than max \(\d+ vs 65536\)$/);
    assert.equal(
      (await chamarCru(enderecoGrpc(processos.agente.linhas), '/lf.a2a.v1.A2AService/Nada', OBTER_INEXISTENTE)).codigo,
      'UNIMPLEMENTED',
    );
    assert.equal(nomeDoEstado(await cliente.getTask({ id: pausa.id, tenant: '' })), 'TASK_STATE_COMPLETED', 'still serving');
    assert.ok(!processos.agente.linhas.some((linha) => /^\s+at /.test(linha)), 'no stack trace');
  });

  it('a call without a2a-version is 1.0, as on HTTP; a version the card does not declare is refused', async () => {
    assert.equal((await chamarCru(enderecoGrpc(processos.agente.linhas), GET_TASK, OBTER_INEXISTENTE)).codigo, 'NOT_FOUND');
    const antiga = await chamarCru(enderecoGrpc(processos.agente.linhas), GET_TASK, OBTER_INEXISTENTE, { 'a2a-version': '0.3' });
    assert.equal(antiga.codigo, 'FAILED_PRECONDITION');
    assert.match(antiga.mensagem, /'0\.3' is not supported/);
  });

  it('one log line per call, in the HTTP lines format: method, task, state, trace, grpc status; a refusal too', async () => {
    const { traceId, opcoes } = rastro();
    const task = comoTarefa(await cliente.sendMessage(texto('listar salas'), opcoes));
    await processos.agente.esperarLinha(
      new RegExp(
        `^POST /lf\\.a2a\\.v1\\.A2AService/SendMessage metodo=SendMessage id=- task=${task.id} estado=TASK_STATE_COMPLETED trace=${traceId} grpc=OK \\d+\\.\\dms$`,
      ),
    );
    await statusDa(cliente.getTask({ id: NUNCA_EXISTIU, tenant: '' }, opcoes));
    await processos.agente.esperarLinha(
      new RegExp(`^POST ${GET_TASK} metodo=GetTask id=- task=${NUNCA_EXISTIU} estado="erro NOT_FOUND" trace=${traceId} grpc=NOT_FOUND `),
    );
    await todos(cliente.sendMessageStream(texto('listar salas'), opcoes));
    await processos.agente.esperarLinha(
      new RegExp(`SendStreamingMessage id=- task=\\S+ estado=TASK_STATE_COMPLETED trace=${traceId} grpc=OK`),
    );
  });

  it('SIGTERM closes the gRPC listener with the HTTP one: subscriptions to a paused Task on both end cleanly, and the agent exits 0', async () => {
    const outro = await iniciarAgente(processos.mcp.url, COM_GRPC);
    const doOutro = await clienteOficial(outro.url, 'GRPC');
    await doOutro.sendMessage(texto('listar salas'));
    await doOutro.sendMessage(texto(reserva('sala-fusca', '2028-01-09', 'Marty')));
    const pausa = comoTarefa(await doOutro.sendMessage(texto(reserva('sala-fusca', '2028-01-09', 'Biff'))));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED');
    // Each follows the paused Task (it would wait for the answer); both are open before the signal.
    const porGrpc = leitor(doOutro.resubscribeTask({ id: pausa.id, tenant: '' }));
    const porSse = leitor((await clienteOficial(outro.url, 'HTTP+JSON')).resubscribeTask({ id: pausa.id, tenant: '' }));
    await Promise.all([porGrpc.ate(() => true), porSse.ate(() => true)]);
    // Ended by the agent at the signal, not cut by its forced exit: no error, nothing more.
    const [codigo, restoGrpc, restoSse] = await Promise.all([outro.parar(), porGrpc.resto(), porSse.resto()]);
    assert.deepEqual([codigo, restoGrpc, restoSse], [0, [], []]);
  });
});

describe('gRPC with AGENTE_TOKENS', () => {
  const token = () => randomBytes(24).toString('base64url');
  const ANA = token();
  const BIA = token();
  const com = (quem: string): RequestOptions => ({ serviceParameters: { authorization: `Bearer ${quem}` } });
  const processos = ambosOsProcessos(segredoDeTeste(), { ...COM_GRPC, AGENTE_TOKENS: `ana:${ANA},bia:${BIA}` });
  let cliente: Client;
  before(async () => {
    cliente = await clienteOficial(processos.agente.url, 'GRPC');
  });

  it('no token, a malformed one, an unknown one: UNAUTHENTICATED saying what is missing, never which tokens exist', async () => {
    const casos: [RequestOptions | undefined, string][] = [
      [undefined, 'falta o cabecalho Authorization: Bearer <token>'],
      [{ serviceParameters: { authorization: `Basic ${ANA}` } }, 'o cabecalho Authorization deve ser "Bearer <token>"'],
      [com(token()), 'token desconhecido'],
    ];
    for (const [opcoes, falta] of casos) {
      const recusa = await statusDa(cliente.getTask({ id: NUNCA_EXISTIU, tenant: '' }, opcoes));
      assert.equal(recusa.codigo, 'UNAUTHENTICATED');
      assert.match(recusa.mensagem, new RegExp(`Nao autenticado: ${falta.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
    const umBom = await chamarCru(enderecoGrpc(processos.agente.linhas), GET_TASK, OBTER_INEXISTENTE, { authorization: `Bearer ${ANA}` });
    assert.equal(umBom.codigo, 'NOT_FOUND', 'a good token passes, to an id that never existed');
    await processos.agente.esperarLinha(
      /metodo=GetTask id=- task=- estado="erro UNAUTHENTICATED" trace=- recusa="token desconhecido" grpc=UNAUTHENTICATED/,
    );
    assert.ok(!processos.agente.linhas.some((linha) => linha.includes(ANA) || linha.includes(BIA)), 'no token in any log line');
  });

  it('the standard health service (grpc.health.v1) answers SERVING without a token, for the server and for the A2A service', async () => {
    assert.deepEqual(await saudeGrpc(enderecoGrpc(processos.agente.linhas), ['', 'lf.a2a.v1.A2AService']), ['SERVING', 'SERVING']);
  });

  it("another identity's Task is NOT_FOUND, exactly as one that never existed; its owner finishes it over JSON-RPC", async () => {
    await cliente.sendMessage(texto(reserva('sala-garagem', '2028-02-01', 'Marty')), com(ANA));
    const pausa = comoTarefa(await cliente.sendMessage(texto(reserva('sala-garagem', '2028-02-01', 'Biff')), com(ANA)));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED');
    const pedidos: ((id: string) => Promise<unknown> | AsyncIterable<unknown>)[] = [
      (id) => cliente.getTask({ id, tenant: '' }, com(BIA)),
      (id) => cliente.sendMessage(texto('escolha=sala-fusca', { taskId: id }), com(BIA)),
      (id) => cliente.cancelTask({ id, tenant: '', metadata: {} }, com(BIA)),
      (id) => cliente.resubscribeTask({ id, tenant: '' }, com(BIA)),
      (id) => cliente.createTaskPushNotificationConfig(configDePush(id, 'http://127.0.0.1:9/gancho'), com(BIA)),
      (id) => cliente.listTaskPushNotificationConfig({ tenant: '', taskId: id, pageSize: 0, pageToken: '' }, com(BIA)),
    ];
    for (const [indice, pedir] of pedidos.entries()) {
      const visto = await statusDa(pedir(pausa.id));
      const esperado = await statusDa(pedir(NUNCA_EXISTIU));
      assert.deepEqual(
        { ...visto, mensagem: visto.mensagem.replace(pausa.id, '<id>') },
        { ...esperado, mensagem: esperado.mensagem.replace(NUNCA_EXISTIU, '<id>') },
      );
      assert.equal(visto.codigo, 'NOT_FOUND', String(indice));
    }
    assert.deepEqual((await cliente.listTasks(listagem('', { pageSize: 50 }), com(BIA))).tasks, []);
    const concluida = await a2a(
      processos.agente.url,
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: pausa.id, parts: [{ text: 'escolha=sala-fusca' }] } },
      { authorization: `Bearer ${ANA}` },
    );
    assert.equal(tarefa(concluida).status.state, 'TASK_STATE_COMPLETED');
    await processos.agente.esperarLinha(
      new RegExp(`metodo=SendMessage id=- task=${pausa.id} estado=TASK_STATE_INPUT_REQUIRED trace=\\S+ quem=ana grpc=OK`),
    );
  });
});

describe('gRPC: the extended card (AGENTE_TOKENS)', () => {
  const ANA = randomBytes(24).toString('base64url');
  const processos = ambosOsProcessos(segredoDeTeste(), { ...COM_GRPC, AGENTE_TOKENS: `ana:${ANA}` });

  it("GetExtendedAgentCard gives a token's identity its terms, as on HTTP; without a token it is UNAUTHENTICATED", async () => {
    const cliente = await clienteOficial(processos.agente.url, 'GRPC');
    const card = await cliente.getAgentCard({ serviceParameters: { authorization: `Bearer ${ANA}` } });
    const conta = card.capabilities?.extensions.find((extensao) => extensao.uri === EXTENSAO_CONTA);
    assert.equal(conta?.params?.identidade, 'ana');
    assert.ok(card.supportedInterfaces.some((interface_) => interface_.protocolBinding === 'GRPC'));
    const bruto = A2AService.getExtendedAgentCard.requestSerialize({ tenant: '' });
    const recusa = await chamarCru(enderecoGrpc(processos.agente.linhas), A2AService.getExtendedAgentCard.path, bruto);
    assert.deepEqual(recusa, { codigo: 'UNAUTHENTICATED', mensagem: 'Nao autenticado: falta o cabecalho Authorization: Bearer <token>' });
  });
});

describe('gRPC with AGENTE_LIMITE_POR_MINUTO', () => {
  const token = () => randomBytes(24).toString('base64url');
  const [ANA, BIA, CID] = [token(), token(), token()];
  const identidades = { AGENTE_TOKENS: `ana:${ANA},bia:${BIA},cid:${CID}`, AGENTE_LIMITE_POR_MINUTO: '3' };
  const processos = ambosOsProcessos(segredoDeTeste(), { ...COM_GRPC, ...identidades });
  let cliente: Client;
  before(async () => {
    cliente = await clienteOficial(processos.agente.url, 'GRPC');
  });

  it('RESOURCE_EXHAUSTED to the identity over the limit only, counted across bindings', async () => {
    const pelo = (quem: string) => ({ serviceParameters: { authorization: `Bearer ${quem}` } });
    const obter = (quem: string) => statusDa(cliente.getTask({ id: NUNCA_EXISTIU, tenant: '' }, pelo(quem)));
    // The window is the wall clock's minute: a run that straddles two is run again by an identity that has not asked yet.
    for (const quem of [ANA, CID]) {
      const minuto = Math.floor(Date.now() / 60_000);
      const porJsonRpc = await a2a(processos.agente.url, 'GetTask', { id: NUNCA_EXISTIU }, { authorization: `Bearer ${quem}` });
      const vistos = [porJsonRpc.status, (await obter(quem)).codigo, (await obter(quem)).codigo];
      const excedido = await obter(quem);
      const daBia = await obter(BIA);
      if (Math.floor(Date.now() / 60_000) !== minuto && quem === ANA) continue;
      assert.deepEqual(vistos, [200, 'NOT_FOUND', 'NOT_FOUND']);
      assert.equal(excedido.codigo, 'RESOURCE_EXHAUSTED');
      assert.match(excedido.mensagem, /^Limite de 3 pedidos por minuto excedido: tente de novo em \d+ s$/);
      assert.equal(daBia.codigo, 'NOT_FOUND', 'another identity is not affected');
      return;
    }
  });
});

describe('AGENTE_GRPC_PORTA at start', () => {
  it('an invalid value, AGENTE_PORT itself, or a port in use stops the agent with one clear line', async () => {
    await assert.rejects(
      iniciarAgente('http://localhost:1/mcp', { AGENTE_GRPC_PORTA: 'abc' }),
      /agente nao subiu: AGENTE_GRPC_PORTA=abc: esperado um inteiro entre 0 e 65535/,
    );
    await assert.rejects(
      iniciarAgente('http://localhost:1/mcp', { AGENTE_PORT: '7399', AGENTE_GRPC_PORTA: '7399' }),
      /agente nao subiu: AGENTE_GRPC_PORTA=7399: e a porta de AGENTE_PORT; o gRPC precisa de uma porta sua/,
    );
    const ocupante = createServer();
    const ocupada = await escutar(ocupante, 0, '127.0.0.1');
    try {
      await assert.rejects(
        iniciarAgente('http://localhost:1/mcp', { AGENTE_GRPC_PORTA: String(ocupada) }),
        new RegExp(`agente nao subiu: AGENTE_GRPC_PORTA: o gRPC nao pode ouvir em 127\\.0\\.0\\.1:${String(ocupada)} \\(`),
      );
    } finally {
      ocupante.close();
    }
  });

  it('unset: no gRPC, the card keeps its two interfaces and the start line is as before', async () => {
    const agente = await iniciarAgente('http://localhost:1/mcp');
    try {
      const card = Card.parse(await (await fetch(new URL('/.well-known/agent-card.json', agente.url))).json());
      assert.deepEqual(
        card.supportedInterfaces.map((interface_) => interface_.protocolBinding),
        ['JSONRPC', 'HTTP+JSON'],
      );
      assert.ok(!agente.linhas.some((linha) => linha.includes('gRPC')));
    } finally {
      await agente.parar();
    }
  });
});
