/** The executor publishes what the bridge decided, in the Task lifecycle order. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SendMessageRequest, Task, TaskState } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBus,
  RequestContext,
  STATE_HEADERS_KEY,
  ServerCallContext,
  type AgentExecutionEvent,
} from '@a2a-js/sdk/server';
import { ExclusaoLocal } from '../src/exclusao.js';
import { Executor } from '../src/executor.js';
import type { Desfecho, Ponte } from '../src/ponte.js';
import type { Trace } from '../src/trace.js';

function executar(desfecho: Desfecho, traceparent?: string) {
  const traces: (Trace | undefined)[] = [];
  const ponte = {
    atender: async (_t: string, _texto: string, trace: Trace) => (traces.push(trace), desfecho),
  } as unknown as Ponte;
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
    pronto: new Executor(ponte, new ExclusaoLocal(), { gravado: async () => undefined }).execute(contexto, bus),
  };
}

const estados = (eventos: AgentExecutionEvent[]) =>
  eventos.map((e) =>
    e.kind === 'task' ? `task:${TaskState[e.data.status!.state]}` : e.kind === 'statusUpdate' ? TaskState[e.data.status!.state] : e.kind,
  );

it('a completed booking: task SUBMITTED, WORKING, artifact reserva, COMPLETED with a message', async () => {
  const reserva = { reserva: 'res-0003', sala: 'sala-porao', inicio: 'i', fim: 'f', responsavel: 'Doc', politica: '2026-11-01' };
  const { eventos, terminou, pronto } = executar({ estado: 'concluida', mensagem: 'Reserva res-0003 confirmada na sala-porao.', reserva });
  await pronto;
  assert.deepEqual(estados(eventos), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'artifactUpdate', 'TASK_STATE_COMPLETED']);
  const artefato = eventos[2]!.kind === 'artifactUpdate' ? eventos[2]!.data.artifact! : undefined;
  assert.equal(artefato?.name, 'reserva');
  assert.equal(artefato?.parts.length, 1);
  assert.deepEqual(JSON.parse(artefato?.parts[0]?.content?.$case === 'text' ? artefato.parts[0].content.value : ''), reserva);
  assert.ok(terminou());
});

for (const [estado, esperado] of [
  ['pausada', 'TASK_STATE_INPUT_REQUIRED'],
  ['cancelada', 'TASK_STATE_CANCELED'],
  ['falhou', 'TASK_STATE_FAILED'],
] as const) {
  it(`${estado} ends in ${esperado} with the bridge's text as the agent message`, async () => {
    const { eventos, pronto } = executar({ estado, mensagem: 'texto exato' });
    await pronto;
    assert.deepEqual(estados(eventos), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', esperado]);
    const ultimo = eventos.at(-1)!;
    const mensagem = ultimo.kind === 'statusUpdate' ? ultimo.data.status!.message! : undefined;
    assert.equal(mensagem?.parts[0]?.content?.$case === 'text' && mensagem.parts[0].content.value, 'texto exato');
    assert.equal(mensagem?.taskId, 'task-1');
    assert.equal(mensagem?.contextId, 'ctx-1');
  });
}

it('uses the trace-id of the traceparent header, or starts its own trace', async () => {
  const com = executar({ estado: 'falhou', mensagem: 'x' }, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  const sem = executar({ estado: 'falhou', mensagem: 'x' }, 'invalido');
  await Promise.all([com.pronto, sem.pronto]);
  assert.equal(com.traces[0]?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.match(sem.traces[0]!.traceId, /^[0-9a-f]{32}$/);
  assert.notEqual(sem.traces[0]!.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
});

it('an answer to a Task that is not waiting for one publishes the Task as it is and changes nothing', async () => {
  const naoPausada = Task.fromJSON({ id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } });
  let retomou = false;
  const ponte = { retomar: async () => ((retomou = true), { estado: 'falhou', mensagem: 'x' }) } as unknown as Ponte;
  const bus = new DefaultExecutionEventBus();
  const eventos: AgentExecutionEvent[] = [];
  bus.on('event', (evento) => eventos.push(evento));
  const pedido = SendMessageRequest.fromJSON({
    message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'escolha=sala-fusca' }], taskId: 'task-1' },
  });
  const contexto = new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext(), naoPausada);
  await new Executor(ponte, new ExclusaoLocal(), { gravado: async () => undefined }).execute(contexto, bus);
  assert.deepEqual(estados(eventos), ['task:TASK_STATE_WORKING']);
  assert.equal(retomou, false);
});

it('a new Task holds its turn until its outcome is stored, so a cancel or an answer waits for it', async () => {
  const exclusao = new ExclusaoLocal();
  let gravar!: () => void;
  const tarefas = {
    gravado: (_taskId: string, estado: TaskState) =>
      estado === TaskState.TASK_STATE_INPUT_REQUIRED ? new Promise<void>((resolver) => (gravar = resolver)) : Promise.resolve(),
  };
  const ponte = { atender: async () => ({ estado: 'pausada', mensagem: 'alternativas: a' }) } as unknown as Ponte;
  const bus = new DefaultExecutionEventBus();
  let publicouFinal!: () => void;
  const final = new Promise<void>((resolver) => (publicouFinal = resolver));
  bus.on(
    'event',
    (evento) => evento.kind === 'statusUpdate' && evento.data.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED && publicouFinal(),
  );
  const pedido = SendMessageRequest.fromJSON({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'reservar ...' }] } });
  const execucao = new Executor(ponte, exclusao, tarefas).execute(
    new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext()),
    bus,
  );
  await final;
  assert.equal(await exclusao.seLivre('task-1', async () => 'entrou'), undefined, 'published but not yet stored: still its turn');
  gravar();
  await execucao;
  assert.equal(await exclusao.seLivre('task-1', async () => 'entrou'), 'entrou');
});

it('asks nothing of MCP before the new Task is on record: a Task that cannot be stored fails without a booking', async () => {
  let atendeu = false;
  const ponte = { atender: async () => ((atendeu = true), { estado: 'concluida', mensagem: 'x' }) } as unknown as Ponte;
  const tarefas = { gravado: () => Promise.reject(new Error('banco fora')) };
  const pedido = SendMessageRequest.fromJSON({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'reservar ...' }] } });
  const execucao = new Executor(ponte, new ExclusaoLocal(), tarefas).execute(
    new RequestContext(pedido, 'task-1', 'ctx-1', new ServerCallContext()),
    new DefaultExecutionEventBus(),
  );
  await assert.rejects(execucao, /banco fora/);
  assert.equal(atendeu, false);
});
