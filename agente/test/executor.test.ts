/** The executor publishes what the bridge decided, in the Task lifecycle order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SendMessageRequest, Task, TaskState, type TaskStatus } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBus,
  RequestContext,
  STATE_HEADERS_KEY,
  ServerCallContext,
  type AgentExecutionEvent,
} from '@a2a-js/sdk/server';
import { ExclusaoLocal, type Exclusao } from '../src/armazenamento/exclusao.js';
import { Executor } from '../src/a2a/executor.js';
import { Passos } from '../src/a2a/passos.js';
import { PausasEmMemoria, type Pausas } from '../src/armazenamento/pausas.js';
import { ClienteMcp } from '../src/mcp/cliente.js';
import { Ponte } from '../src/ponte/ponte.js';
import { ehPedido, type Desfecho, type Pausa, type Respostas } from '../src/ponte/tipos.js';
import { ChamadasVivas } from '../src/ponte/vivas.js';
import { perfilDeSalas } from '../src/salas/perfil.js';
import type { TarefasDaPonte } from '../src/armazenamento/gravacao.js';
import type { Trace } from '../src/ponte/trace.js';
import { perguntaDeSala } from './apoio.js';

const inesperado = (oque: string) => () => Promise.reject(new Error(`${oque} is not expected in this test`));

/** The MCP client a Ponte is built with; the steps below never reach it. */
class McpInalcancavel extends ClienteMcp {
  constructor() {
    super(new URL('http://mcp.invalid/mcp'), () => undefined);
  }
  override conectar = inesperado('mcp.conectar');
  override ferramentas = inesperado('mcp.ferramentas');
  override lerTexto = inesperado('mcp.lerTexto');
  override chamar = inesperado('mcp.chamar');
}

/** The real Ponte, with the steps the executor calls replaced by the test's; a step not given fails if called. */
function ponteCom(passos: Partial<Pick<Ponte, 'atender' | 'responder'>>): Ponte {
  class PonteDeTeste extends Ponte {
    override atender(...args: Parameters<Ponte['atender']>): Promise<Desfecho> {
      return passos.atender ? passos.atender(...args) : inesperado('ponte.atender')();
    }
    override responder(...args: Parameters<Ponte['responder']>): Promise<Desfecho> {
      return passos.responder ? passos.responder(...args) : inesperado('ponte.responder')();
    }
  }
  return new PonteDeTeste(perfilDeSalas(new McpInalcancavel()), new ChamadasVivas('teste', 60_000));
}

/** An executor over a memory step store; the store of Tasks is the test's. */
function executor(
  ponte: Ponte,
  tarefas: Pick<TarefasDaPonte, 'gravado'>,
  exclusao: Exclusao = new ExclusaoLocal(),
  base: Pausas = new PausasEmMemoria(),
): Executor {
  const passos = new Passos(base, { maxPausadas: 10, validadeMs: 60_000, prazoMs: 60_000 }, exclusao, 'teste');
  return new Executor(ponte, passos, exclusao, tarefas, () => Promise.resolve(false));
}

/** A promise and the function that resolves it (Promise.withResolvers is newer than Node 20). */
function adiado(): { promessa: Promise<void>; resolver: () => void } {
  let resolver = (): void => {
    throw new Error('unreachable: the Promise executor runs at once');
  };
  const promessa = new Promise<void>((resolve) => (resolver = resolve));
  return { promessa, resolver };
}

/** The name of a status's state; an event without a status fails here. */
function nomeDoEstado(status: TaskStatus | undefined): string {
  assert.ok(status, 'an event without a status');
  return TaskState[status.state];
}

function executar(desfecho: Desfecho, traceparent?: string) {
  const traces: Trace[] = [];
  const ponte = ponteCom({
    atender: (_t, pedido) => {
      traces.push(pedido.trace);
      return Promise.resolve(desfecho);
    },
  });
  const bus = new DefaultExecutionEventBus();
  const eventos: AgentExecutionEvent[] = [];
  let terminou = false;
  bus.on('event', (evento) => eventos.push(evento));
  bus.on('finished', () => (terminou = true));
  const pedido = SendMessageRequest.fromJSON({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'reservar ...' }] } });
  const contexto = new RequestContext(
    pedido,
    'task-1',
    'ctx-1',
    new ServerCallContext({ state: new Map([[STATE_HEADERS_KEY, { traceparent }]]) }),
  );
  return {
    eventos,
    traces,
    terminou: () => terminou,
    pronto: executor(ponte, { gravado: () => Promise.resolve() }).execute(contexto, bus),
  };
}

const estados = (eventos: AgentExecutionEvent[]) =>
  eventos.map((e) =>
    e.kind === 'task' ? `task:${nomeDoEstado(e.data.status)}` : e.kind === 'statusUpdate' ? nomeDoEstado(e.data.status) : e.kind,
  );

/** The parts of an event's artifact or status message, as text and data. */
const partes = (evento: AgentExecutionEvent | undefined) => {
  const lista =
    evento?.kind === 'artifactUpdate'
      ? evento.data.artifact?.parts
      : evento?.kind === 'statusUpdate'
        ? evento.data.status?.message?.parts
        : undefined;
  return (lista ?? []).map((parte): unknown => {
    if (parte.content?.$case === 'text') return parte.content.value;
    const valor: unknown = parte.content?.$case === 'data' ? parte.content.value : undefined;
    return { data: valor, mediaType: parte.mediaType };
  });
};

it('a completed Task: task SUBMITTED, WORKING, the artifact as JSON text and as data, COMPLETED with a message', async () => {
  const reserva = { reserva: 'res-0003', sala: 'sala-porao', inicio: 'i', fim: 'f', responsavel: 'Doc', politica: '2026-11-01' };
  const { eventos, terminou, pronto } = executar({
    estado: 'concluida',
    mensagem: 'Reserva res-0003 confirmada na sala-porao.',
    artefato: { nome: 'reserva', dados: reserva },
  });
  await pronto;
  assert.deepEqual(estados(eventos), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'artifactUpdate', 'TASK_STATE_COMPLETED']);
  const evento = eventos[2];
  assert.ok(evento?.kind === 'artifactUpdate', 'the third event is the artifact');
  assert.equal(evento.data.artifact?.name, 'reserva');
  // The text part first and byte for byte the JSON clients of the text contract read; the data part beside it.
  assert.deepEqual(partes(evento), [JSON.stringify(reserva), { data: reserva, mediaType: 'application/json' }]);
  assert.deepEqual(partes(eventos[3]), ['Reserva res-0003 confirmada na sala-porao.']);
  assert.ok(terminou());
});

it('a pause: INPUT_REQUIRED with the exact alternatives line, then the same facts as a data part', async () => {
  const dados = { alternativas: ['sala-fusca', 'sala-mirante'], pergunta: { type: 'object' } };
  const { eventos, pronto } = executar({ estado: 'pausada', mensagem: 'alternativas: sala-fusca, sala-mirante', dados });
  await pronto;
  assert.deepEqual(estados(eventos), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
  assert.deepEqual(partes(eventos.at(-1)), ['alternativas: sala-fusca, sala-mirante', { data: dados, mediaType: 'application/json' }]);
});

for (const [estado, esperado] of [
  ['cancelada', 'TASK_STATE_CANCELED'],
  ['falhou', 'TASK_STATE_FAILED'],
] as const) {
  it(`${estado} ends in ${esperado} with the bridge's text as the agent message`, async () => {
    const { eventos, pronto } = executar({ estado, mensagem: 'texto exato' });
    await pronto;
    assert.deepEqual(estados(eventos), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', esperado]);
    const ultimo = eventos.at(-1);
    assert.ok(ultimo?.kind === 'statusUpdate', 'the last event is a status update');
    const mensagem = ultimo.data.status?.message;
    assert.ok(mensagem, 'the final status carries a message');
    assert.deepEqual(partes(ultimo), ['texto exato']);
    assert.equal(mensagem.taskId, 'task-1');
    assert.equal(mensagem.contextId, 'ctx-1');
  });
}

it('hands the bridge the text parts joined and the first data part', async () => {
  const entradas: unknown[] = [];
  const ponte = ponteCom({
    atender: (_t, pedido) => {
      entradas.push(pedido.pedido);
      return Promise.resolve({ estado: 'falhou', mensagem: 'x' });
    },
  });
  const pedido = SendMessageRequest.fromJSON({
    message: {
      messageId: 'm1',
      role: 'ROLE_USER',
      parts: [{ text: 'a' }, { data: { skill: 'listar-salas' } }, { text: 'b' }, { data: 2 }],
    },
  });
  await executor(ponte, { gravado: () => Promise.resolve() }).execute(
    new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext()),
    new DefaultExecutionEventBus(),
  );
  assert.deepEqual(entradas, [{ texto: 'a b', dados: { skill: 'listar-salas' } }]);
});

it('uses the trace-id of the traceparent header, or starts its own trace', async () => {
  const com = executar({ estado: 'falhou', mensagem: 'x' }, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  const sem = executar({ estado: 'falhou', mensagem: 'x' }, 'invalido');
  await Promise.all([com.pronto, sem.pronto]);
  assert.equal(com.traces[0]?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  const [proprio] = sem.traces;
  assert.ok(proprio, 'the bridge was given a trace');
  assert.match(proprio.traceId, /^[0-9a-f]{32}$/);
  assert.notEqual(proprio.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
});

it('an answer to a Task that is not waiting for one publishes the Task as it is and changes nothing', async () => {
  const naoPausada = Task.fromJSON({ id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } });
  let retomou = false;
  const ponte = ponteCom({
    responder: () => {
      retomou = true;
      return Promise.resolve({ estado: 'falhou', mensagem: 'x' });
    },
  });
  const bus = new DefaultExecutionEventBus();
  const eventos: AgentExecutionEvent[] = [];
  bus.on('event', (evento) => eventos.push(evento));
  const pedido = SendMessageRequest.fromJSON({
    message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'escolha=sala-fusca' }], taskId: 'task-1' },
  });
  const contexto = new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext(), naoPausada);
  await executor(ponte, { gravado: () => Promise.resolve() }).execute(contexto, bus);
  assert.deepEqual(estados(eventos), ['task:TASK_STATE_WORKING']);
  assert.equal(retomou, false);
});

it('a new Task holds its turn until its outcome is stored, so a cancel or an answer waits for it', async () => {
  const exclusao = new ExclusaoLocal();
  // Replaced by the resolver of the INPUT_REQUIRED save; called before that save was asked for, it fails the test.
  let gravar = (): void => {
    throw new Error('the INPUT_REQUIRED outcome was never handed to the store');
  };
  const tarefas = {
    gravado: (_taskId: string, estado: TaskState) =>
      estado === TaskState.TASK_STATE_INPUT_REQUIRED ? new Promise<void>((resolver) => (gravar = resolver)) : Promise.resolve(),
  };
  const ponte = ponteCom({
    atender: () => Promise.resolve({ estado: 'pausada', mensagem: 'alternativas: a', dados: { alternativas: ['a'] } }),
  });
  const bus = new DefaultExecutionEventBus();
  const { promessa: final, resolver: publicouFinal } = adiado();
  bus.on(
    'event',
    (evento) => evento.kind === 'statusUpdate' && evento.data.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED && publicouFinal(),
  );
  const pedido = SendMessageRequest.fromJSON({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'reservar ...' }] } });
  const execucao = executor(ponte, tarefas, exclusao).execute(new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext()), bus);
  await final;
  assert.equal(
    await exclusao.seLivre('task-1', () => Promise.resolve('entrou')),
    undefined,
    'published but not yet stored: still its turn',
  );
  gravar();
  await execucao;
  assert.equal(await exclusao.seLivre('task-1', () => Promise.resolve('entrou')), 'entrou');
});

it('asks nothing of MCP before the new Task is on record: a Task that cannot be stored fails without a booking', async () => {
  let atendeu = false;
  const ponte = ponteCom({
    atender: () => {
      atendeu = true;
      const reserva = { reserva: 'res-0001', sala: 'sala-porao', inicio: 'i', fim: 'f', responsavel: 'Doc', politica: '2026-11-01' };
      return Promise.resolve({ estado: 'concluida', mensagem: 'x', artefato: { nome: 'reserva', dados: reserva } });
    },
  });
  const tarefas = { gravado: () => Promise.reject(new Error('banco fora')) };
  const pedido = SendMessageRequest.fromJSON({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'reservar ...' }] } });
  const execucao = executor(ponte, tarefas).execute(
    new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext()),
    new DefaultExecutionEventBus(),
  );
  await assert.rejects(execucao, /banco fora/);
  assert.equal(atendeu, false);
});

for (const [desfecho, esperado] of [
  [{ estado: 'rejeitada', mensagem: 'Skill desconhecida "x".' }, 'TASK_STATE_REJECTED'],
  [{ estado: 'incerto', mensagem: 'Sem desfecho do servidor MCP.' }, 'TASK_STATE_WORKING'],
  [{ estado: 'pausada', mensagem: 'Autorize em https://auth.test/x', dados: { inputRequests: {} }, url: true }, 'TASK_STATE_AUTH_REQUIRED'],
] as const satisfies readonly (readonly [Desfecho, string])[]) {
  it(`${desfecho.estado}${'url' in desfecho ? ' with a URL' : ''} leaves the Task ${esperado} with the bridge's text`, async () => {
    const { eventos, pronto } = executar(desfecho);
    await pronto;
    assert.deepEqual(estados(eventos), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', esperado]);
    assert.equal(partes(eventos.at(-1))[0], desfecho.mensagem);
  });
}

it("an artifact's text and file parts come first, then its data as JSON text and as a data part", async () => {
  const { eventos, pronto } = executar({
    estado: 'concluida',
    mensagem: 'pronto',
    artefato: {
      nome: 'eco',
      partes: [
        { texto: 'ola' },
        { arquivo: { bytes: 'AAEC', mediaType: 'image/png' } },
        { arquivo: { uri: 'file:///a.txt', nome: 'a.txt' } },
      ],
      dados: { n: 1 },
    },
  });
  await pronto;
  const evento = eventos[2];
  assert.ok(evento?.kind === 'artifactUpdate', 'the third event is the artifact');
  assert.equal(evento.data.artifact?.name, 'eco');
  const [texto, imagem, link, json, dados] = evento.data.artifact.parts;
  assert.deepEqual(texto?.content, { $case: 'text', value: 'ola' });
  assert.equal(imagem?.content?.$case, 'raw');
  assert.equal(imagem.mediaType, 'image/png');
  assert.deepEqual(link?.content, { $case: 'url', value: 'file:///a.txt' });
  assert.equal(link.filename, 'a.txt');
  assert.deepEqual(json?.content, { $case: 'text', value: '{"n":1}' });
  assert.deepEqual(dados?.content, { $case: 'data', value: { n: 1 } });
});

describe('an answer to a paused Task', () => {
  const PERGUNTA: Pausa = { ...perguntaDeSala('estado-opaco'), criadaEm: 0 };

  async function responderA(texto: string, desfecho: Desfecho) {
    const base = new PausasEmMemoria();
    await base.guardar('task-1', { ...PERGUNTA, criadaEm: Date.now() });
    const repassadas: Respostas[] = [];
    const gravados: string[] = [];
    const ponte = ponteCom({
      responder: (_t, _pausa, respostas) => {
        repassadas.push(respostas);
        return Promise.resolve(desfecho);
      },
    });
    /** Each state stored with its step's change, as TarefasDaPonte writes them together. */
    const tarefas: Pick<TarefasDaPonte, 'gravado'> = {
      gravado: async (_taskId, estado, junto) => {
        gravados.push(TaskState[estado]);
        await junto?.(base);
      },
    };
    const pausada = Task.fromJSON({ id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    const pedido = SendMessageRequest.fromJSON({
      message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: texto }], taskId: 'task-1' },
    });
    const bus = new DefaultExecutionEventBus();
    const eventos: AgentExecutionEvent[] = [];
    bus.on('event', (evento) => eventos.push(evento));
    await executor(ponte, tarefas, new ExclusaoLocal(), base).execute(
      new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext(), pausada),
      bus,
    );
    return { eventos, repassadas, gravados, guardado: await base.ler('task-1') };
  }

  it('is read by the profile, claimed with WORKING, relayed as inputResponses, and its outcome ends the step', async () => {
    const { eventos, repassadas, gravados, guardado } = await responderA('escolha=sala-mirante', {
      estado: 'cancelada',
      mensagem: 'Nenhuma sala reservada (recusado).',
    });
    assert.deepEqual(repassadas, [{ escolha_de_sala: { action: 'accept', content: { sala: 'sala-mirante' } } }]);
    assert.deepEqual(gravados, ['TASK_STATE_WORKING', 'TASK_STATE_CANCELED']);
    assert.deepEqual(estados(eventos), ['task:TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_CANCELED']);
    assert.equal(guardado, undefined, 'a finished Task keeps no step');
  });

  it('one the profile cannot read asks again, with the reason, sending nothing and keeping the pause as it was', async () => {
    const { eventos, repassadas, gravados, guardado } = await responderA('escolha=sala-aquario', { estado: 'falhou', mensagem: 'x' });
    assert.deepEqual(repassadas, []);
    assert.deepEqual(gravados, ['TASK_STATE_INPUT_REQUIRED']);
    assert.deepEqual(estados(eventos), ['task:TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_INPUT_REQUIRED']);
    assert.equal(partes(eventos.at(-1))[0], 'alternativas: sala-fusca, sala-mirante');
    assert.ok(guardado && !ehPedido(guardado.passo), 'the pause is still there');
    assert.deepEqual(guardado.passo.perguntas, PERGUNTA.perguntas);
    assert.equal(guardado.reivindicacao, undefined, 'released, answerable again');
  });
});
