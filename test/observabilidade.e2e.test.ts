/**
 * OpenTelemetry end to end: the real processes export to a real OTLP/HTTP
 * receiver (apoio/otlp.ts), and what it decodes is checked. A booking that
 * pauses and is answered gives, in each of its two traces, the agent's A2A
 * SERVER span, its MCP CLIENT span and the server's SERVER span under it,
 * the answer linked to the pause; the metrics arrive with the conventions'
 * buckets and no id among their attributes; the log lines name the
 * exported ids. Off (no endpoint), nothing of OpenTelemetry is even loaded;
 * a collector that is down or hangs costs the requests nothing.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';
import { agentCard } from '../agente/src/a2a/card.js';
import { CorpoA2A, tarefaDo } from '../scripts/a2a-cru.js';
import { a2a, enviar, estado, pedido, reservaDe, tarefa, type RespostaA2A } from './apoio/a2a.js';
import { clienteOficial, comoTarefa, dados, nomeDoEstado, texto } from './apoio/cliente-a2a.js';
import { leitor } from './apoio/fluxo-a2a.js';
import { chamar } from './apoio/mcp.js';
import { iniciarReceptor, type MetricaRecebida, type Receptor, type SpanRecebido } from './apoio/otlp.js';
import {
  iniciarAgenteGenerico,
  iniciarEverything,
  pastaTemporaria,
  portaLivre,
  type Pasta,
  type ServidorExterno,
} from './apoio/ponte-generica.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';

type Env = Record<string, string>;

/** Spans leave 50 ms after they end, metrics every 200 ms: the tests wait for what arrives, never for a fixed time. */
const RAPIDO: Env = { OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_METRIC_EXPORT_INTERVAL: '200' };
const MCP_2026 = '2026-07-28';
/** The MCP conventions' buckets for their duration histograms (seconds). */
const BALDES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const IDS = /trace_id=([0-9a-f]{32}) span_id=([0-9a-f]{16})/;

const traceparentNovo = () => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};

/**
 * The module URLs a process resolves, written by apoio/carregados.js
 * (preloaded through NODE_OPTIONS) to a file of its own.
 */
function carregados(): { readonly env: Env; ler(): string[]; apagar(): void } {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-carregados-'));
  const arquivo = join(pasta, 'urls.txt');
  const gancho = fileURLToPath(new URL('./apoio/carregados.js', import.meta.url));
  return {
    env: { CARREGADOS_EM: arquivo, NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${gancho}`].filter(Boolean).join(' ') },
    ler: () => readFileSync(arquivo, 'utf8').split('\n').filter(Boolean),
    apagar: () => rmSync(pasta, { recursive: true, force: true }),
  };
}

interface Iniciados {
  readonly receptor: Receptor;
  readonly mcp: Processo;
  readonly agente: Processo;
}

/**
 * A receiver and both processes exporting to it, for the tests of one
 * describe block: `env` is given the receiver and says each process's own
 * variables beyond the endpoint and RAPIDO.
 */
function comReceptor(env: (receptor: Receptor) => { readonly mcp?: Env; readonly agente?: Env } = () => ({})): Iniciados {
  const iniciados: { receptor?: Receptor; mcp?: Processo; agente?: Processo } = {};
  before(async () => {
    const receptor = (iniciados.receptor = await iniciarReceptor());
    const comum = { OTEL_EXPORTER_OTLP_ENDPOINT: receptor.url, ...RAPIDO };
    const proprios = env(receptor);
    const mcp = (iniciados.mcp = await iniciarServidorMcp({ ...comum, ...proprios.mcp }));
    iniciados.agente = await iniciarAgente(mcp.url, { ...comum, ...proprios.agente });
  });
  after(async () => {
    await iniciados.agente?.parar();
    await iniciados.mcp?.parar();
    await iniciados.receptor?.fechar();
  });
  const pronto = <T>(valor: T | undefined, nome: string): T => {
    if (valor === undefined) throw new Error(`${nome} nao subiu antes deste teste`);
    return valor;
  };
  return {
    get receptor() {
      return pronto(iniciados.receptor, 'o receptor OTLP');
    },
    get mcp() {
      return pronto(iniciados.mcp, 'servidor-mcp');
    },
    get agente() {
      return pronto(iniciados.agente, 'agente');
    },
  };
}

interface Reserva {
  readonly taskId: string;
  readonly pausa: RespostaA2A;
  readonly fim: RespostaA2A;
}

/** sala-garagem on `dia` taken by Marty, then asked by Biff (INPUT_REQUIRED), who answers sala-fusca (COMPLETED). */
async function reservaComPausa(base: string, dia: string, traceparents: { pausa?: string; resposta?: string } = {}): Promise<Reserva> {
  assert.equal(estado(await enviar(base, pedido('sala-garagem', dia, '10:00', '11:00', 'Marty'))), 'TASK_STATE_COMPLETED');
  const pausa = await enviar(base, pedido('sala-garagem', dia, '10:00', '11:00', 'Biff'), { traceparent: traceparents.pausa });
  assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED');
  const taskId = tarefa(pausa).id;
  const fim = await enviar(base, 'escolha=sala-fusca', { taskId, traceparent: traceparents.resposta });
  assert.equal(estado(fim), 'TASK_STATE_COMPLETED');
  assert.equal(reservaDe(fim).sala, 'sala-fusca');
  return { taskId, pausa, fim };
}

/** One request's spans: the agent's A2A span, its MCP tools/call CLIENT child, and the server's span under that. */
interface Arvore {
  readonly a2a: SpanRecebido;
  readonly cliente: SpanRecebido;
  readonly servidor: SpanRecebido;
}

const filhoDe = (spans: readonly SpanRecebido[], pai: SpanRecebido, nome: string) =>
  spans.find((span) => span.traceId === pai.traceId && span.pai === pai.spanId && span.nome === nome);

/** The tree of the SendMessage that left Task `taskId` in `estadoFinal`, once all of it has arrived. */
function arvoreDe(spans: readonly SpanRecebido[], taskId: string, estadoFinal: string, ferramenta = 'reservar_sala'): Arvore | undefined {
  const a2a = spans.find(
    (span) =>
      span.nome === 'SendMessage' &&
      span.tipo === 'SPAN_KIND_SERVER' &&
      span.atributos['a2a.task.id'] === taskId &&
      span.atributos['a2a.task.state'] === estadoFinal,
  );
  if (!a2a) return undefined;
  const cliente = filhoDe(spans, a2a, `tools/call ${ferramenta}`);
  const servidor = cliente && filhoDe(spans, cliente, `tools/call ${ferramenta}`);
  return cliente && servidor && { a2a, cliente, servidor };
}

async function esperarArvore(receptor: Receptor, taskId: string, estadoFinal: string, ferramenta?: string): Promise<Arvore> {
  let arvore: Arvore | undefined;
  await receptor.esperar(() => (arvore = arvoreDe(receptor.spans, taskId, estadoFinal, ferramenta)) !== undefined);
  assert.ok(arvore);
  return arvore;
}

/** The pause's tree and the answer's, as they arrived. */
const arvoresDa = async (receptor: Receptor, { taskId }: Reserva) => ({
  pausa: await esperarArvore(receptor, taskId, 'TASK_STATE_INPUT_REQUIRED'),
  resposta: await esperarArvore(receptor, taskId, 'TASK_STATE_COMPLETED'),
});

/** The id of the last message the client sent in this Task, as the agent keeps it in the history. */
function ultimaMensagemDoCliente(resposta: RespostaA2A): unknown {
  const doCliente = (tarefa(resposta).history ?? []).filter((mensagem) => mensagem.role === 'ROLE_USER');
  return doCliente.at(-1)?.messageId;
}

/**
 * A reservar_sala call's span attributes: the client's (given `mcp`, the URL
 * it called) also name the server it called; the server's do not.
 */
/** The course card's agent, as the A2A conventions name it on every A2A span (gen_ai.agent.*). */
const AGENTE_DO_CARD = {
  'gen_ai.agent.name': 'Central de Salas',
  'gen_ai.agent.description': agentCard(new URL('http://localhost'), false).description,
  'gen_ai.agent.version': '1.0.0',
};

const atributosMcp = (span: SpanRecebido, resultado: string, mcp?: string) => ({
  'mcp.method.name': 'tools/call',
  'gen_ai.tool.name': 'reservar_sala',
  'gen_ai.operation.name': 'execute_tool',
  'jsonrpc.request.id': span.atributos['jsonrpc.request.id'],
  'mcp.protocol.version': MCP_2026,
  'network.transport': 'tcp',
  'network.protocol.name': 'http',
  'ponte.mcp.result_type': resultado,
  ...(mcp === undefined ? {} : { 'server.address': new URL(mcp).hostname, 'server.port': Number(new URL(mcp).port) }),
});

/**
 * Everything one pause and its answer must show: names, kinds, services,
 * attributes, each MCP span under the one before it, two traces, the
 * answer's SendMessage linked to the pause's.
 */
function conferirReserva(
  arvores: { pausa: Arvore; resposta: Arvore },
  reserva: Reserva,
  mcp: string,
  servicos: { agente: string; mcp: string } = { agente: 'agente', mcp: 'servidor-mcp' },
): void {
  for (const [arvore, resposta, estadoA2A, resultado] of [
    [arvores.pausa, reserva.pausa, 'TASK_STATE_INPUT_REQUIRED', 'input_required'],
    [arvores.resposta, reserva.fim, 'TASK_STATE_COMPLETED', 'complete'],
  ] as const) {
    const { a2a: vaoA2A, cliente, servidor } = arvore;
    assert.deepEqual(
      [vaoA2A, cliente, servidor].map(({ servico, nome, tipo, status }) => ({ servico, nome, tipo, status })),
      [
        { servico: servicos.agente, nome: 'SendMessage', tipo: 'SPAN_KIND_SERVER', status: 'STATUS_CODE_UNSET' },
        { servico: servicos.agente, nome: 'tools/call reservar_sala', tipo: 'SPAN_KIND_CLIENT', status: 'STATUS_CODE_UNSET' },
        { servico: servicos.mcp, nome: 'tools/call reservar_sala', tipo: 'SPAN_KIND_SERVER', status: 'STATUS_CODE_UNSET' },
      ],
    );
    assert.deepEqual(vaoA2A.atributos, {
      ...AGENTE_DO_CARD,
      'a2a.protocol.version': '1.0',
      'a2a.method.name': 'SendMessage',
      'a2a.task.id': reserva.taskId,
      'a2a.task.state': estadoA2A,
      'a2a.message.id': ultimaMensagemDoCliente(resposta),
      'gen_ai.conversation.id': tarefa(resposta).contextId,
    });
    assert.equal(typeof cliente.atributos['jsonrpc.request.id'], 'string');
    assert.deepEqual(cliente.atributos, atributosMcp(cliente, resultado, mcp));
    assert.deepEqual(servidor.atributos, atributosMcp(servidor, resultado));
    // The same request seen from both ends.
    assert.equal(servidor.atributos['jsonrpc.request.id'], cliente.atributos['jsonrpc.request.id']);
  }
  const { pausa, resposta } = arvores;
  assert.notEqual(resposta.a2a.traceId, pausa.a2a.traceId, 'the answer is a trace of its own');
  assert.notEqual(pausa.a2a.atributos['a2a.message.id'], resposta.a2a.atributos['a2a.message.id']);
  assert.deepEqual(pausa.a2a.ligacoes, []);
  assert.deepEqual(resposta.a2a.ligacoes, [{ traceId: pausa.a2a.traceId, spanId: pausa.a2a.spanId }]);
}

/** The last export of a metric by a service, once one satisfies `condicao`. */
async function esperarMetrica(
  receptor: Receptor,
  servico: string,
  nome: string,
  condicao: (metrica: MetricaRecebida) => boolean = () => true,
  desde = 0,
): Promise<MetricaRecebida> {
  const achar = () =>
    receptor.metricas
      .slice(desde)
      .filter((metrica) => metrica.servico === servico && metrica.nome === nome && condicao(metrica))
      .at(-1);
  await receptor.esperar(() => achar() !== undefined);
  const metrica = achar();
  assert.ok(metrica);
  return metrica;
}

const temPonto = (esperado: Readonly<Record<string, unknown>>) => (metrica: MetricaRecebida) =>
  metrica.pontos.some((ponto) => Object.entries(esperado).every(([chave, valor]) => ponto[chave] === valor));

describe('telemetry over OTLP/HTTP protobuf (the default), both processes', () => {
  const carregadosDoAgente = carregados();
  const carregadosDoMcp = carregados();
  const processos = comReceptor(() => ({
    mcp: carregadosDoMcp.env,
    agente: { AGENTE_GRPC_PORTA: '0', ...carregadosDoAgente.env },
  }));
  // After the processes' own after hook: they have stopped writing by now.
  after(() => {
    carregadosDoAgente.apagar();
    carregadosDoMcp.apagar();
  });

  it('a booking that pauses and is answered: SendMessage (a root) -> tools/call CLIENT -> tools/call SERVER, twice, the answer linked to the pause', async () => {
    const { agente, receptor } = processos;
    const reserva = await reservaComPausa(agente.url, '2027-05-04');
    const arvores = await arvoresDa(receptor, reserva);
    conferirReserva(arvores, reserva, processos.mcp.url);
    assert.equal(arvores.pausa.a2a.pai, '', 'no traceparent sent: the request starts the trace');
    assert.equal(arvores.resposta.a2a.pai, '');
    assert.ok(
      receptor.tipos.every((tipo) => tipo === 'application/x-protobuf'),
      receptor.tipos.join(),
    );
  });

  it("with the client's traceparent, each SendMessage is a child of the client's span; the answer still links to the pause", async () => {
    const { agente, receptor } = processos;
    const [clienteDaPausa, clienteDaResposta] = [traceparentNovo(), traceparentNovo()];
    const reserva = await reservaComPausa(agente.url, '2027-05-05', {
      pausa: clienteDaPausa.traceparent,
      resposta: clienteDaResposta.traceparent,
    });
    const arvores = await arvoresDa(receptor, reserva);
    conferirReserva(arvores, reserva, processos.mcp.url);
    for (const [arvore, cliente] of [
      [arvores.pausa, clienteDaPausa],
      [arvores.resposta, clienteDaResposta],
    ] as const) {
      assert.equal(arvore.a2a.traceId, cliente.traceId);
      assert.equal(arvore.a2a.pai, cliente.spanId);
    }
  });

  it('a path express serves as /a2a (a trailing slash, another case) gets its span; a client-chosen id is cut to 1024 characters', async () => {
    const { agente, receptor } = processos;
    const messageId = `m-${'x'.repeat(5000)}`;
    const resposta = await fetch(`${agente.url}/A2A/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: { messageId, role: 'ROLE_USER', parts: [{ text: pedido('sala-fusca', '2027-05-12', '10:00', '11:00', 'Doc') }] },
        },
      }),
    });
    const taskId = tarefaDo(CorpoA2A.parse(await resposta.json())).id;
    assert.match(resposta.headers.get('traceresponse') ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const doPedido = () => receptor.spans.find((span) => span.nome === 'SendMessage' && span.atributos['a2a.task.id'] === taskId);
    await receptor.esperar(() => doPedido() !== undefined);
    const vao = doPedido();
    if (!vao) throw new Error('o span do SendMessage nao chegou');
    assert.equal(vao.atributos['a2a.message.id'], messageId.slice(0, 1024));
    assert.equal(resposta.headers.get('traceresponse')?.split('-')[1], vao.traceId);
    await receptor.esperar(() => receptor.spans.some((span) => span.nome === 'tools/call reservar_sala' && span.pai === vao.spanId));
  });

  it('metrics: three duration histograms in seconds with the conventions buckets, no id among their attributes, and the paused-Tasks gauge', async () => {
    const { agente, receptor } = processos;
    // The gauge counts the store's paused Tasks: one more while this one waits, one less once it is answered.
    assert.equal(estado(await enviar(agente.url, pedido('sala-garagem', '2027-05-06', '10:00', '11:00', 'Marty'))), 'TASK_STATE_COMPLETED');
    const pausa = await enviar(agente.url, pedido('sala-garagem', '2027-05-06', '10:00', '11:00', 'Biff'));
    assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED');
    const comPausa = await esperarMetrica(receptor, 'agente', 'ponte.a2a.tasks.paused', ({ valores }) => (valores?.[0] ?? 0) >= 1);
    const pausadas = comPausa.valores?.[0] ?? 0;
    const desde = receptor.metricas.length;
    assert.equal(estado(await enviar(agente.url, 'escolha=sala-fusca', { taskId: tarefa(pausa).id })), 'TASK_STATE_COMPLETED');
    const semEla = await esperarMetrica(
      receptor,
      'agente',
      'ponte.a2a.tasks.paused',
      ({ valores }) => valores?.[0] === pausadas - 1,
      desde,
    );
    assert.equal(semEla.unidade, '{task}');
    assert.deepEqual(semEla.pontos, [{}]);

    const chamada = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'reservar_sala', 'mcp.protocol.version': MCP_2026 };
    const histogramas = [
      await esperarMetrica(
        receptor,
        'agente',
        'mcp.client.operation.duration',
        temPonto({ ...chamada, 'ponte.mcp.result_type': 'input_required' }),
      ),
      await esperarMetrica(
        receptor,
        'servidor-mcp',
        'mcp.server.operation.duration',
        temPonto({ ...chamada, 'ponte.mcp.result_type': 'complete' }),
      ),
      await esperarMetrica(
        receptor,
        'agente',
        'ponte.a2a.server.operation.duration',
        temPonto({ 'a2a.method.name': 'SendMessage', 'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED', 'a2a.protocol.version': '1.0' }),
      ),
    ];
    for (const histograma of histogramas) {
      assert.equal(histograma.unidade, 's', histograma.nome);
      assert.deepEqual(histograma.limites, BALDES, histograma.nome);
    }
    // Ids would make one series per request or per Task, without end: in no export, on no point.
    const chaves = new Set(receptor.metricas.flatMap((metrica) => metrica.pontos.flatMap((ponto) => Object.keys(ponto))));
    for (const id of ['jsonrpc.request.id', 'a2a.task.id', 'a2a.message.id', 'gen_ai.conversation.id', 'mcp.resource.uri'])
      assert.ok(!chaves.has(id), `${id} is an attribute of a metric`);
  });

  it('the log lines name the ids of the exported spans: the A2A request line and the MCP server line', async () => {
    const { agente, mcp, receptor } = processos;
    const { taskId } = await reservaComPausa(agente.url, '2027-05-07');
    const { a2a: vaoA2A, cliente, servidor } = await esperarArvore(receptor, taskId, 'TASK_STATE_INPUT_REQUIRED');
    const linhaA2A = await agente.esperarLinha(new RegExp(`task=${taskId} estado=TASK_STATE_INPUT_REQUIRED`));
    assert.deepEqual(IDS.exec(linhaA2A)?.slice(1), [vaoA2A.traceId, vaoA2A.spanId], linhaA2A);
    // The server's line names the traceparent it was sent: the client span's.
    const linhaMcp = await mcp.esperarLinha(new RegExp(`traceparent=00-${cliente.traceId}-${cliente.spanId}-01`));
    assert.deepEqual(IDS.exec(linhaMcp)?.slice(1), [servidor.traceId, servidor.spanId], linhaMcp);
  });

  it('gRPC: SendMessage is a SERVER span with the A2A attributes, child of the metadata traceparent, with its MCP CLIENT span', async () => {
    const { agente, receptor } = processos;
    const cliente = await clienteOficial(agente.url, 'GRPC');
    const mensagem = texto(pedido('sala-porao', '2027-05-08', '10:00', '11:00', 'Doc'));
    const chamador = traceparentNovo();
    // The official client sends its service parameters as gRPC metadata.
    const task = comoTarefa(await cliente.sendMessage(mensagem, { serviceParameters: { traceparent: chamador.traceparent } }));
    assert.equal(nomeDoEstado(task), 'TASK_STATE_COMPLETED');
    const { a2a: vaoA2A, cliente: chamada } = await esperarArvore(receptor, task.id, 'TASK_STATE_COMPLETED');
    assert.deepEqual(
      [vaoA2A.servico, vaoA2A.nome, vaoA2A.tipo, vaoA2A.traceId, vaoA2A.pai],
      ['agente', 'SendMessage', 'SPAN_KIND_SERVER', chamador.traceId, chamador.spanId],
    );
    assert.deepEqual(vaoA2A.atributos, {
      ...AGENTE_DO_CARD,
      'a2a.protocol.version': '1.0',
      'a2a.method.name': 'SendMessage',
      'a2a.task.id': task.id,
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a.message.id': mensagem.message?.messageId,
      'gen_ai.conversation.id': task.contextId,
    });
    assert.deepEqual(chamada.atributos, atributosMcp(chamada, 'complete', processos.mcp.url));
  });

  it('errors: a JSON-RPC error is error.type <code> with an ERROR status; a tool isError is error.type tool_error on both MCP spans', async () => {
    const { agente, receptor } = processos;
    const inexistente = randomUUID();
    assert.equal((await a2a(agente.url, 'GetTask', { id: inexistente })).corpo.error?.code, -32001);
    const falha = await enviar(agente.url, pedido('sala-inexistente', '2027-05-09', '10:00', '11:00', 'Doc'));
    assert.equal(estado(falha), 'TASK_STATE_FAILED');

    const obter = () => receptor.spans.find((span) => span.nome === 'GetTask' && span.atributos['a2a.task.id'] === inexistente);
    await receptor.esperar(() => obter() !== undefined);
    const vaoDoGet = obter();
    assert.deepEqual(
      [vaoDoGet?.tipo, vaoDoGet?.status, vaoDoGet?.atributos['error.type']],
      ['SPAN_KIND_SERVER', 'STATUS_CODE_ERROR', '-32001'],
    );

    // HTTP+JSON names the method by its route and the Task by its path, even in a 404 that carries no Task; error.type is the status.
    const pelaRota = await fetch(`${agente.url}/rest/tasks/${inexistente}`);
    assert.equal(pelaRota.status, 404);
    await receptor.esperar(() => receptor.spans.filter((span) => span.atributos['a2a.task.id'] === inexistente).length === 2);
    const vaoRest = receptor.spans.find((span) => span.atributos['a2a.task.id'] === inexistente && span !== vaoDoGet);
    assert.deepEqual(
      [vaoRest?.nome, vaoRest?.atributos['a2a.method.name'], vaoRest?.status, vaoRest?.atributos['error.type']],
      ['GetTask', 'GetTask', 'STATUS_CODE_ERROR', '404'],
    );

    const { a2a: vaoA2A, cliente, servidor } = await esperarArvore(receptor, tarefa(falha).id, 'TASK_STATE_FAILED');
    // The Task failed, the request did not: its span has no error.
    assert.deepEqual([vaoA2A.status, vaoA2A.atributos['error.type']], ['STATUS_CODE_UNSET', undefined]);
    for (const [vao, chamado] of [
      [cliente, processos.mcp.url],
      [servidor, undefined],
    ] as const) {
      assert.equal(vao.status, 'STATUS_CODE_ERROR', vao.servico);
      assert.deepEqual(vao.atributos, { ...atributosMcp(vao, 'complete', chamado), 'error.type': 'tool_error' });
    }
  });

  it('what a client makes up (an A2A-Version; an MCP method, tool, prompt or version) is _OTHER on the spans and metrics: no name nor series of its own', async () => {
    const { agente, mcp, receptor } = processos;
    const inventado = `inventado-${randomBytes(4).toString('hex')}`;
    const taskId = randomUUID();
    assert.equal((await a2a(agente.url, 'GetTask', { id: taskId }, { 'a2a-version': inventado })).corpo.error?.code, -32009);
    const pedidos = [
      { id: randomUUID(), metodo: `${inventado}/listar` },
      { id: randomUUID(), metodo: 'tools/call', params: { name: inventado, arguments: {} } },
      { id: randomUUID(), metodo: 'prompts/get', params: { name: inventado } },
      { id: randomUUID(), metodo: 'tools/list', meta: { [PROTOCOL_VERSION_META_KEY]: inventado } },
    ];
    for (const chamada of pedidos) assert.ok((await chamar(mcp.url, chamada)).corpo?.error, chamada.metodo);

    const doGet = () => receptor.spans.find((span) => span.atributos['a2a.task.id'] === taskId);
    const doMcp = (id: string) => receptor.spans.find((span) => span.atributos['jsonrpc.request.id'] === id);
    await receptor.esperar(() => doGet() !== undefined && pedidos.every(({ id }) => doMcp(id)));
    assert.equal(doGet()?.atributos['a2a.protocol.version'], '_OTHER');
    assert.deepEqual(
      pedidos.map(({ id }) => {
        const span = doMcp(id);
        return [
          span?.nome,
          span?.atributos['mcp.method.name'],
          span?.atributos['gen_ai.tool.name'] ?? span?.atributos['gen_ai.prompt.name'],
        ];
      }),
      [
        ['_OTHER', '_OTHER', undefined],
        ['tools/call _OTHER', 'tools/call', '_OTHER'],
        ['prompts/get _OTHER', 'prompts/get', '_OTHER'],
        ['tools/list', 'tools/list', undefined],
      ],
    );
    assert.equal(doMcp(pedidos[3]?.id ?? '')?.atributos['mcp.protocol.version'], '_OTHER');
    // Each histogram has measured them by now, as _OTHER.
    await esperarMetrica(receptor, 'agente', 'ponte.a2a.server.operation.duration', temPonto({ 'a2a.protocol.version': '_OTHER' }));
    for (const ponto of [
      { 'mcp.method.name': '_OTHER' },
      { 'gen_ai.tool.name': '_OTHER' },
      { 'gen_ai.prompt.name': '_OTHER' },
      { 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '_OTHER' },
    ])
      await esperarMetrica(receptor, 'servidor-mcp', 'mcp.server.operation.duration', temPonto(ponto));
    for (const { nome, atributos } of receptor.spans) assert.ok(!`${nome} ${JSON.stringify(atributos)}`.includes(inventado), nome);
    for (const metrica of receptor.metricas) assert.ok(!JSON.stringify(metrica.pontos).includes(inventado), metrica.nome);
  });

  it('with an endpoint, both processes load the OpenTelemetry chunk (the control of the test without one)', async () => {
    // A request first: what a process loads on its first booking is loaded by now.
    assert.equal(estado(await enviar(processos.agente.url, 'listar salas')), 'TASK_STATE_COMPLETED');
    assert.ok(carregadosDoAgente.ler().some((url) => url.includes('/agente/dist/partes/otel-')));
    assert.ok(carregadosDoMcp.ler().some((url) => url.includes('/servidor-mcp/dist/partes/otel-')));
  });
});

describe('telemetry over OTLP/HTTP JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)', () => {
  const processos = comReceptor(() => {
    const json = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    return { mcp: json, agente: json };
  });

  it('the same spans, names and links as protobuf, every request sent as application/json', async () => {
    const { agente, receptor } = processos;
    const reserva = await reservaComPausa(agente.url, '2027-05-04');
    conferirReserva(await arvoresDa(receptor, reserva), reserva, processos.mcp.url);
    await esperarMetrica(receptor, 'agente', 'ponte.a2a.server.operation.duration');
    assert.ok(receptor.tipos.length > 0);
    assert.ok(
      receptor.tipos.every((tipo) => tipo === 'application/json'),
      receptor.tipos.join(),
    );
  });
});

describe('OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES', () => {
  const processos = comReceptor(() => ({
    // OTEL_SERVICE_NAME wins over a service.name in the attributes, as the SDK specification says.
    agente: { OTEL_SERVICE_NAME: 'ponte-central', OTEL_RESOURCE_ATTRIBUTES: 'service.name=nao-este,deployment.environment.name=teste' },
    mcp: { OTEL_RESOURCE_ATTRIBUTES: 'service.name=salas-hill-valley' },
  }));

  it("replace each process's own name on every span and metric", async () => {
    const { agente, receptor } = processos;
    const reserva = await reservaComPausa(agente.url, '2027-05-04');
    conferirReserva(await arvoresDa(receptor, reserva), reserva, processos.mcp.url, { agente: 'ponte-central', mcp: 'salas-hill-valley' });
    await esperarMetrica(receptor, 'ponte-central', 'ponte.a2a.server.operation.duration');
    await esperarMetrica(receptor, 'salas-hill-valley', 'mcp.server.operation.duration');
    const servicos = new Set([...receptor.spans, ...receptor.metricas].map(({ servico }) => servico));
    assert.deepEqual([...servicos].sort(), ['ponte-central', 'salas-hill-valley']);
  });
});

describe('OTEL_TRACES_SAMPLER=always_off', () => {
  const processos = comReceptor(() => {
    const desligado = { OTEL_TRACES_SAMPLER: 'always_off' };
    return { mcp: desligado, agente: desligado };
  });

  it('no span is exported, the requests work as ever, and the metrics still arrive', async () => {
    const { agente, mcp, receptor } = processos;
    await reservaComPausa(agente.url, '2027-05-04');
    // Stopped, each process has sent everything it had (the exit flushes both signals): nothing more can arrive.
    await agente.parar();
    await mcp.parar();
    assert.deepEqual(receptor.spans, []);
    const chamada = temPonto({ 'mcp.method.name': 'tools/call', 'ponte.mcp.result_type': 'input_required' });
    assert.ok(
      receptor.metricas.some(
        (metrica) => metrica.servico === 'agente' && metrica.nome === 'mcp.client.operation.duration' && chamada(metrica),
      ),
    );
    assert.ok(
      receptor.metricas.some(
        (metrica) => metrica.servico === 'servidor-mcp' && metrica.nome === 'mcp.server.operation.duration' && chamada(metrica),
      ),
    );
  });
});

describe('without an OTLP endpoint (the default)', () => {
  const carregadosDoAgente = carregados();
  const carregadosDoMcp = carregados();
  // Empty is unset to the processes (and to the SDK): the runner's own values, if it has any, stay out.
  const semEndpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
  const iniciados: { mcp?: Processo; agente?: Processo } = {};
  before(async () => {
    iniciados.mcp = await iniciarServidorMcp({ ...semEndpoint, ...carregadosDoMcp.env });
    iniciados.agente = await iniciarAgente(iniciados.mcp.url, { ...semEndpoint, ...carregadosDoAgente.env });
  });
  after(async () => {
    await iniciados.agente?.parar();
    await iniciados.mcp?.parar();
    carregadosDoAgente.apagar();
    carregadosDoMcp.apagar();
  });
  const subiu = (processo: Processo | undefined) => {
    if (!processo) throw new Error('os processos nao subiram antes deste teste');
    return processo;
  };

  it('neither process loads OpenTelemetry: not the otel chunk, no @opentelemetry module, no chunk with its code', async () => {
    await reservaComPausa(subiu(iniciados.agente).url, '2027-05-04');
    for (const [nome, lista] of [
      ['agente', carregadosDoAgente],
      ['servidor-mcp', carregadosDoMcp],
    ] as const) {
      const urls = lista.ler();
      // The hook saw the process's modules (else the rest would prove nothing).
      assert.ok(urls.includes(new URL(`../${nome}/dist/main.js`, import.meta.url).href), `${nome}: ${urls.join(' ')}`);
      assert.deepEqual(
        urls.filter((url) => url.includes('/partes/otel-') || url.includes('@opentelemetry')),
        [],
        nome,
      );
      // esbuild may move OpenTelemetry code into a shared chunk: none the process loaded holds any.
      const arquivos = new Set(urls.filter((url) => url.startsWith('file:')));
      for (const url of arquivos) assert.ok(!readFileSync(new URL(url), 'utf8').includes('node_modules/@opentelemetry/'), url);
    }
  });

  it('the log lines name no trace_id nor span_id', async () => {
    const agente = subiu(iniciados.agente);
    const mcp = subiu(iniciados.mcp);
    const cliente = traceparentNovo();
    const { taskId } = await reservaComPausa(agente.url, '2027-05-05', { pausa: cliente.traceparent });
    const linhaA2A = await agente.esperarLinha(new RegExp(`task=${taskId} estado=TASK_STATE_INPUT_REQUIRED`));
    // Off, the agent still passes the caller's trace-id on to MCP: the server's line of that call is found by it.
    const linhaMcp = await mcp.esperarLinha(new RegExp(`nome=reservar_sala traceparent=00-${cliente.traceId}-`));
    for (const linha of [linhaA2A, linhaMcp]) assert.doesNotMatch(linha, /trace_id=|span_id=/);
  });
});

describe('a collector that cannot take the data costs the requests nothing', () => {
  const iniciados: { receptor?: Receptor; mcp?: Processo; semColetor?: Processo; preso?: Processo } = {};
  before(async () => {
    // Takes every export and never answers; the exporters give up after OTEL_EXPORTER_OTLP_TIMEOUT.
    const receptor = (iniciados.receptor = await iniciarReceptor({ segurar: true }));
    const preso = { OTEL_EXPORTER_OTLP_ENDPOINT: receptor.url, OTEL_EXPORTER_OTLP_TIMEOUT: '300', ...RAPIDO };
    const mcp = (iniciados.mcp = await iniciarServidorMcp(preso));
    // A port that was free a moment ago: nothing listens there.
    const ninguem = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${String(await portaLivre())}`, ...RAPIDO };
    iniciados.semColetor = await iniciarAgente(mcp.url, ninguem);
    iniciados.preso = await iniciarAgente(mcp.url, preso);
  });
  after(async () => {
    await iniciados.semColetor?.parar();
    await iniciados.preso?.parar();
    await iniciados.mcp?.parar();
    await iniciados.receptor?.fechar();
  });

  /** The flow and 20 bookings more (one a day in `sala`), each with its result; then the agent's warning about the collector. */
  async function conferir(agente: Processo | undefined, dia: string, sala: string): Promise<void> {
    if (!agente) throw new Error('o agente nao subiu antes deste teste');
    await reservaComPausa(agente.url, dia);
    const dias = Array.from({ length: 20 }, (_, i) => `2027-06-${String(i + 1).padStart(2, '0')}`);
    const reservas = await Promise.all(dias.map((um) => enviar(agente.url, pedido(sala, um, '14:00', '15:00', 'Doc'))));
    assert.deepEqual(
      reservas.map((resposta) => [estado(resposta), reservaDe(resposta).sala, reservaDe(resposta).inicio.slice(0, 10)]),
      dias.map((um) => ['TASK_STATE_COMPLETED', sala, um]),
    );
    await agente.esperarLinha(/^telemetria: /);
  }

  it('an endpoint where nothing listens', async () => {
    await conferir(iniciados.semColetor, '2027-05-04', 'sala-porao');
  });

  it('a collector that takes the request and never answers (OTEL_EXPORTER_OTLP_TIMEOUT=300)', async () => {
    await conferir(iniciados.preso, '2027-05-05', 'sala-mirante');
    await iniciados.mcp?.esperarLinha(/^telemetria: /);
  });
});

describe('a server of the 2025 era (server-everything through AGENTE_MCP_CONFIG)', () => {
  const iniciados: { receptor?: Receptor; everything?: ServidorExterno; agente?: Processo; pasta?: Pasta } = {};
  before(async () => {
    const receptor = (iniciados.receptor = await iniciarReceptor());
    const everything = (iniciados.everything = await iniciarEverything());
    const pasta = (iniciados.pasta = pastaTemporaria());
    iniciados.agente = await iniciarAgenteGenerico(pasta.config({ everything: { url: everything.url } }), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receptor.url,
      ...RAPIDO,
    });
  });
  after(async () => {
    await iniciados.agente?.parar();
    await iniciados.everything?.parar();
    iniciados.pasta?.apagar();
    await iniciados.receptor?.fechar();
  });

  it('a call cancelled by its Task ends its CLIENT span as cancelled at once, while the session lives on', async () => {
    const { agente, receptor } = iniciados;
    if (!agente || !receptor) throw new Error('os processos nao subiram antes deste teste');
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const fluxo = leitor(
      cliente.sendMessageStream(dados({ name: 'everything.trigger-long-running-operation', arguments: { duration: 30, steps: 30 } })),
    );
    // The Task, then a progress update: the call is running on the server.
    const [primeiro] = await fluxo.ate(
      (evento) => evento.payload?.$case === 'statusUpdate' && evento.payload.value.status?.message !== undefined,
    );
    const taskId = primeiro?.payload?.$case === 'task' ? primeiro.payload.value.id : '';
    assert.equal(nomeDoEstado(await cliente.cancelTask({ id: taskId, tenant: '', metadata: {} })), 'TASK_STATE_CANCELED');
    await fluxo.resto();
    const cancelada = () =>
      receptor.spans.find((span) => span.nome === 'tools/call trigger-long-running-operation' && span.tipo === 'SPAN_KIND_CLIENT');
    // A 2025 session cancels with notifications/cancelled and gets no answer: the span ends when that is sent.
    await receptor.esperar(() => cancelada() !== undefined);
    assert.deepEqual([cancelada()?.status, cancelada()?.atributos['error.type']], ['STATUS_CODE_ERROR', 'cancelled']);
    assert.equal(cancelada()?.atributos['network.transport'], 'tcp');
    assert.match(String(cancelada()?.atributos['mcp.protocol.version']), /^2025-/);
  });
});

/** The queries on `sistema` of `raiz`'s own process under it, at any depth (the agent's SendMessage has the server's under it too). */
const consultasDoBancoSob = (receptor: Receptor, raiz: SpanRecebido, sistema: string) =>
  receptor.spans.filter((span) => {
    if (span.atributos['db.system.name'] !== sistema || span.servico !== raiz.servico || span.traceId !== raiz.traceId) return false;
    for (let pai = span.pai; pai !== ''; pai = receptor.spans.find((outro) => outro.spanId === pai)?.pai ?? '')
      if (pai === raiz.spanId) return true;
    return false;
  });

describe('SQLite (TASKS_DB a file): the queries as spans', () => {
  const pasta = mkdtempSync(join(tmpdir(), 'otel-sqlite-'));
  const processos = comReceptor(() => ({ agente: { TASKS_DB: join(pasta, 'tarefas.db') } }));
  after(() => rmSync(pasta, { recursive: true, force: true }));

  it("each statement is a CLIENT span under the agent's request that ran it, with no value", async () => {
    const { agente, receptor } = processos;
    const reserva = await reservaComPausa(agente.url, '2027-05-05');
    const arvores = await arvoresDa(receptor, reserva);
    const raizes = [arvores.pausa.a2a, arvores.resposta.a2a];
    await receptor.esperar(() => raizes.every((raiz) => consultasDoBancoSob(receptor, raiz, 'sqlite').length > 0));
    const consultas = raizes.flatMap((raiz) => consultasDoBancoSob(receptor, raiz, 'sqlite'));
    // The pause is stored under the request that paused.
    assert.ok(
      consultasDoBancoSob(receptor, arvores.pausa.a2a, 'sqlite').some((consulta) => consulta.nome === 'INSERT a2a_pausas'),
      consultas.map((consulta) => consulta.nome).join(', '),
    );
    for (const consulta of consultas) {
      assert.equal(consulta.tipo, 'SPAN_KIND_CLIENT');
      const atributos = JSON.stringify(consulta.atributos);
      for (const valor of ['Biff', reserva.taskId]) assert.ok(!atributos.includes(valor), `${valor} in ${atributos}`);
    }
  });
});

describe('PostgreSQL (TASKS_DB and RESERVAS_DB): the queries as spans', () => {
  const iniciados: { postgres?: Postgres; receptor?: Receptor; mcp?: Processo; agente?: Processo } = {};
  before(async () => {
    const postgres = (iniciados.postgres = await iniciarPostgres());
    const receptor = (iniciados.receptor = await iniciarReceptor());
    const comum = { OTEL_EXPORTER_OTLP_ENDPOINT: receptor.url, ...RAPIDO };
    const mcp = (iniciados.mcp = await iniciarServidorMcp({ ...comum, RESERVAS_DB: await postgres.novoBanco('otel_reservas') }));
    iniciados.agente = await iniciarAgente(mcp.url, { ...comum, TASKS_DB: await postgres.novoBanco('otel_tarefas') });
  });
  after(async () => {
    await iniciados.agente?.parar();
    await iniciados.mcp?.parar();
    await iniciados.receptor?.fechar();
    await iniciados.postgres?.parar();
  });

  it("each query is a CLIENT span under the request that ran it (the agent's SendMessage, the server's tools/call), with no parameter's value", async () => {
    const { agente, mcp, receptor } = iniciados;
    if (!agente || !mcp || !receptor) throw new Error('os processos nao subiram antes deste teste');
    const reserva = await reservaComPausa(agente.url, '2027-05-04');
    const arvores = await arvoresDa(receptor, reserva);
    conferirReserva(arvores, reserva, mcp.url);

    const doBanco = (span: SpanRecebido) => span.atributos['db.system.name'] === 'postgresql';
    const consultasSob = (raiz: SpanRecebido) => consultasDoBancoSob(receptor, raiz, 'postgresql');
    const raizes = [arvores.pausa.a2a, arvores.pausa.servidor, arvores.resposta.a2a, arvores.resposta.servidor];
    await receptor.esperar(() => raizes.every((raiz) => consultasSob(raiz).length > 0));
    for (const consulta of raizes.flatMap(consultasSob)) {
      assert.equal(consulta.tipo, 'SPAN_KIND_CLIENT');
      assert.match(String(consulta.atributos['db.operation.name']), /^[A-Z]+$/);
      assert.equal(typeof consulta.atributos['db.query.text'], 'string');
    }
    // The pause is stored under the request that paused; the booking the answer made, under the server's span of that call.
    assert.ok(
      consultasSob(arvores.pausa.a2a).some((consulta) =>
        String(consulta.atributos['db.query.text']).startsWith('insert into "a2a_pausas"'),
      ),
    );
    assert.ok(
      consultasSob(arvores.resposta.servidor).some((consulta) =>
        String(consulta.atributos['db.query.text']).includes('INSERT INTO reservas'),
      ),
    );
    // Biff is in the Task, the pause and the booking, and the Task's id in most queries: only ever as values, never in a span.
    const consultas = receptor.spans.filter(doBanco);
    assert.ok(consultas.length > 0);
    for (const consulta of consultas) {
      const atributos = JSON.stringify(consulta.atributos);
      for (const valor of ['Biff', reserva.taskId]) assert.ok(!atributos.includes(valor), `${valor} in ${atributos}`);
    }
  });
});
