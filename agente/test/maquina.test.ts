/**
 * The lifecycle table (ciclo/maquina.ts), read against a copy of it written
 * out here: every (fact, from, to) it allows and everything else refused;
 * and aplicar, the SDK's merge of a row's events into the Task.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, Task, TaskState, type StreamResponse } from '@a2a-js/sdk';
import { Eventos } from '../src/a2a/eventos.js';
import { aplicar, estadoDo, permitida, TABELA, type Fato } from '../src/ciclo/maquina.js';
import type { Desfecho } from '../src/ponte/tipos.js';

const {
  TASK_STATE_SUBMITTED: SUBMITTED,
  TASK_STATE_WORKING: WORKING,
  TASK_STATE_INPUT_REQUIRED: INPUT_REQUIRED,
  TASK_STATE_AUTH_REQUIRED: AUTH_REQUIRED,
  TASK_STATE_COMPLETED: COMPLETED,
  TASK_STATE_CANCELED: CANCELED,
  TASK_STATE_FAILED: FAILED,
  TASK_STATE_REJECTED: REJECTED,
} = TaskState;

const ESTADOS = [SUBMITTED, WORKING, INPUT_REQUIRED, AUTH_REQUIRED, COMPLETED, CANCELED, FAILED, REJECTED];
const TERMINAIS = [COMPLETED, CANCELED, FAILED, REJECTED];
const ESPERANDO = [INPUT_REQUIRED, AUTH_REQUIRED];

/** The table as the lifecycle's header describes it: each fact, the states it applies in (undefined: no Task yet), those it may leave. */
const ESPERADA: Readonly<Record<Fato, readonly [readonly (TaskState | undefined)[], readonly TaskState[]]>> = {
  abrir: [[undefined], [WORKING]],
  progredir: [[WORKING], [WORKING]],
  concluir: [[WORKING], [WORKING, ...ESPERANDO, ...TERMINAIS]],
  responder: [ESPERANDO, [WORKING]],
  decidir: [ESPERANDO, [...ESPERANDO, ...TERMINAIS]],
  anotar: [
    [SUBMITTED, WORKING],
    [SUBMITTED, WORKING],
  ],
  cancelar: [[SUBMITTED, WORKING, ...ESPERANDO], [CANCELED]],
  descartar: [ESPERANDO, [FAILED]],
};

const FATOS = Object.keys(ESPERADA) as Fato[];
const nome = (estado: TaskState | undefined) => (estado === undefined ? '(no Task)' : TaskState[estado]);

describe('the lifecycle table', () => {
  it('has exactly the facts the header lists', () => {
    assert.deepEqual(Object.keys(TABELA).sort(), [...FATOS].sort());
  });

  for (const fato of FATOS) {
    const [de, para] = ESPERADA[fato];
    it(`${fato}: allows ${de.map(nome).join(' | ')} -> ${para.map(nome).join(' | ')}${fato === 'anotar' ? ' (the same state)' : ''}, and nothing else`, () => {
      for (const origem of [undefined, ...ESTADOS])
        for (const destino of ESTADOS)
          assert.equal(
            permitida(fato, origem, destino),
            de.includes(origem) && para.includes(destino) && (fato !== 'anotar' || origem === destino),
            `${fato}: ${nome(origem)} -> ${nome(destino)}`,
          );
    });
  }

  it('refuses, among others: concluir from COMPLETED, abrir on an existing Task, cancelar from a terminal state, a row to no state', () => {
    assert.equal(permitida('concluir', COMPLETED, COMPLETED), false);
    assert.equal(permitida('concluir', INPUT_REQUIRED, COMPLETED), false, 'a pause is answered, not concluded');
    for (const existente of ESTADOS) assert.equal(permitida('abrir', existente, WORKING), false, nome(existente));
    for (const terminal of TERMINAIS) assert.equal(permitida('cancelar', terminal, CANCELED), false, nome(terminal));
    assert.equal(permitida('responder', WORKING, WORKING), false, 'a Task not waiting takes no answer');
    assert.equal(permitida('progredir', WORKING, COMPLETED), false, 'progress changes no state');
    assert.equal(permitida('descartar', WORKING, FAILED), false, 'a running step is never discarded');
    for (const fato of FATOS) assert.equal(permitida(fato, WORKING, undefined), false, fato);
  });

  it('leaves no terminal state, by any fact', () => {
    for (const fato of FATOS)
      for (const terminal of TERMINAIS)
        for (const destino of ESTADOS) assert.equal(permitida(fato, terminal, destino), false, `${fato}: ${nome(terminal)}`);
  });

  it("an outcome's state: a question asks for input, or for authorization when it sends the user to a URL", () => {
    const casos: [Desfecho, TaskState][] = [
      [{ estado: 'concluida', mensagem: '', artefato: { nome: 'x' } }, COMPLETED],
      [{ estado: 'pausada', mensagem: '', dados: {} }, INPUT_REQUIRED],
      [{ estado: 'pausada', mensagem: '', dados: {}, url: true }, AUTH_REQUIRED],
      [{ estado: 'cancelada', mensagem: '' }, CANCELED],
      [{ estado: 'falhou', mensagem: '' }, FAILED],
      [{ estado: 'rejeitada', mensagem: '' }, REJECTED],
      [{ estado: 'incerto', mensagem: '' }, WORKING],
    ];
    for (const [desfecho, estado] of casos) assert.equal(nome(estadoDo(desfecho)), nome(estado), desfecho.estado);
  });
});

describe('aplicar', () => {
  const eventos = new Eventos('t', 'c');
  const mensagem = (messageId: string, texto: string) =>
    Message.fromJSON({ messageId, role: 'ROLE_USER', parts: [{ text: texto }], taskId: 't', contextId: 'c' });
  const tarefa = (estado: string, historico: Message[] = []) =>
    Task.fromJSON({ id: 't', contextId: 'c', status: { state: estado }, history: historico.map((m) => Message.toJSON(m)) });
  /** What each record is: the Task (with its state), a status (its state) or an artifact (its name). */
  const registrados = (registros: readonly StreamResponse[]) =>
    registros.map(({ payload }) =>
      payload?.$case === 'task'
        ? `task:${nome(payload.value.status?.state)}`
        : payload?.$case === 'statusUpdate'
          ? nome(payload.value.status?.state)
          : payload?.$case === 'artifactUpdate'
            ? `artifact:${payload.value.artifact?.name ?? ''}`
            : '?',
    );
  const ids = (task: Task) => task.history.map((m) => m.messageId);

  it('a new Task: the Task itself, then WORKING; the first event is what the Task was first stored as', () => {
    const pedido = mensagem('m1', 'reservar');
    const { task, retrato, registros } = aplicar(undefined, undefined, [eventos.tarefaNova(pedido), eventos.estado(WORKING)]);
    assert.equal(nome(task.status?.state), 'TASK_STATE_WORKING');
    assert.equal(nome(retrato.status?.state), 'TASK_STATE_SUBMITTED');
    assert.deepEqual(registrados(registros), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']);
    assert.deepEqual(ids(task), ['m1']);
  });

  it("a status's message joins the history once; a status applied again changes and records nothing", () => {
    const pergunta = eventos.estado(INPUT_REQUIRED, 'alternativas: sala-fusca');
    const primeira = aplicar(tarefa('TASK_STATE_WORKING', [mensagem('m1', 'reservar')]), undefined, [pergunta]);
    const mensagemDoEstado = primeira.task.status?.message;
    assert.ok(mensagemDoEstado, 'the status carries its message');
    assert.deepEqual(ids(primeira.task), ['m1', mensagemDoEstado.messageId]);
    assert.deepEqual(registrados(primeira.registros), ['TASK_STATE_INPUT_REQUIRED']);
    const deNovo = aplicar(primeira.task, undefined, [pergunta]);
    assert.deepEqual(ids(deNovo.task), ['m1', mensagemDoEstado.messageId]);
    assert.deepEqual(deNovo.registros, []);
    const semMensagem = aplicar(primeira.task, undefined, [eventos.estado(WORKING)]);
    assert.equal(semMensagem.task.history.length, 2, 'a status without a message adds none');
    assert.equal(nome(primeira.task.status?.state), 'TASK_STATE_INPUT_REQUIRED', 'the Task handed in is left as it was');
  });

  it("an artifact replaces the one with its id (a replayed step's), is added otherwise, and the same one again records nothing", () => {
    const primeira = aplicar(tarefa('TASK_STATE_WORKING'), undefined, [eventos.artefato({ nome: 'reserva', dados: { n: 1 } })]);
    const segunda = aplicar(primeira.task, undefined, [eventos.artefato({ nome: 'reserva', dados: { n: 2 } })]);
    assert.deepEqual(registrados(segunda.registros), ['artifact:reserva']);
    assert.equal(segunda.task.artifacts.length, 1);
    assert.deepEqual(segunda.task.artifacts[0]?.parts[0]?.content, { $case: 'text', value: '{"n":2}' });
    assert.deepEqual(
      primeira.task.artifacts[0]?.parts[0]?.content,
      { $case: 'text', value: '{"n":1}' },
      'the Task handed in is left as it was',
    );
    const igual = aplicar(segunda.task, undefined, [eventos.artefato({ nome: 'reserva', dados: { n: 2 } })]);
    assert.deepEqual(igual.registros, []);
    const outro = aplicar(segunda.task, undefined, [eventos.artefato({ nome: 'recibo', dados: { n: 3 } })]);
    assert.deepEqual(
      outro.task.artifacts.map((artefato) => artefato.name),
      ['reserva', 'recibo'],
    );
  });

  it("a continuation: the client's message joins the history first, records nothing, and the retrato is the Task before the events", () => {
    const pausada = tarefa('TASK_STATE_INPUT_REQUIRED', [mensagem('m1', 'reservar')]);
    const { task, retrato, registros } = aplicar(pausada, mensagem('m2', 'escolha=sala-fusca'), [eventos.estado(WORKING)]);
    assert.equal(nome(retrato.status?.state), 'TASK_STATE_INPUT_REQUIRED');
    assert.deepEqual(ids(retrato), ['m1', 'm2']);
    assert.equal(nome(task.status?.state), 'TASK_STATE_WORKING');
    assert.deepEqual(ids(task), ['m1', 'm2']);
    assert.deepEqual(registrados(registros), ['TASK_STATE_WORKING']);
    assert.deepEqual(ids(pausada), ['m1'], 'the Task handed in is left as it was');
  });

  it('a message alone (anotar): in the history, nothing recorded, the retrato the Task itself', () => {
    const { task, retrato, registros } = aplicar(tarefa('TASK_STATE_WORKING'), mensagem('m2', 'e agora?'), []);
    assert.deepEqual(ids(task), ['m2']);
    assert.deepEqual(retrato, task);
    assert.deepEqual(registros, []);
  });

  it('refuses a row with no Task: an event before the Task, or nothing at all', () => {
    assert.throws(() => aplicar(undefined, undefined, [eventos.estado(WORKING)]), /statusUpdate antes da Task/);
    assert.throws(() => aplicar(undefined, undefined, []), /uma transicao sem Task/);
  });
});
