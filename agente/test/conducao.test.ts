/**
 * A request's steps (Conducao) over the real lifecycle in memory: what the
 * bridge decided, stored and recorded one transition at a time, in the
 * Task lifecycle order, and what each leaves in the step store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { STATE_HEADERS_KEY, ServerCallContext } from '@a2a-js/sdk/server';
import { Conducao, type AoGravar } from '../src/a2a/conducao.js';
import type { Exclusao } from '../src/armazenamento/exclusao.js';
import type { PassoGuardado } from '../src/armazenamento/pausas.js';
import { MENSAGEM_DE_PAUSA_EXPIRADA, type Transicao } from '../src/ciclo/ciclo.js';
import { mensagemDeExcesso } from '../src/ciclo/varredura.js';
import { ClienteMcp } from '../src/mcp/cliente.js';
import { MENSAGEM_SEM_PAUSA, Ponte } from '../src/ponte/ponte.js';
import type { Desfecho, Respostas } from '../src/ponte/tipos.js';
import type { Trace } from '../src/ponte/trace.js';
import { ChamadasVivas } from '../src/ponte/vivas.js';
import { perfilDeSalas } from '../src/salas/perfil.js';
import {
  aberta,
  adiado,
  INICIO_DO_RELOGIO,
  mensagemAo,
  naMemoria,
  pausada,
  pausadaEm,
  perguntaDeSala,
  type OpcoesDaMemoria,
} from './apoio.js';

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

/**
 * The real Ponte (its profile reads the answers), with the calls replaced
 * by the test's; a call not given fails if made. Its cancels are noted.
 */
function ponteCom(passos: Partial<Pick<Ponte, 'atender' | 'responder'>>, cancelados: string[]): Ponte {
  class PonteDeTeste extends Ponte {
    override atender(...args: Parameters<Ponte['atender']>): Promise<Desfecho> {
      return passos.atender ? passos.atender(...args) : inesperado('ponte.atender')();
    }
    override responder(...args: Parameters<Ponte['responder']>): Promise<Desfecho> {
      return passos.responder ? passos.responder(...args) : inesperado('ponte.responder')();
    }
    override cancelar(taskId: string): boolean {
      cancelados.push(taskId);
      return super.cancelar(taskId);
    }
  }
  return new PonteDeTeste(perfilDeSalas(new McpInalcancavel()), new ChamadasVivas('teste', 60_000));
}

/** A Conducao over a Ciclo and its stores in memory; every transition it hands over is kept, in order. */
function montar(passos: Partial<Pick<Ponte, 'atender' | 'responder'>>, opcoes: OpcoesDaMemoria = {}) {
  const memoria = naMemoria(opcoes);
  const cancelados: string[] = [];
  const conducao = new Conducao(memoria.ciclo, ponteCom(passos, cancelados), memoria.exclusao, memoria.varredura);
  const gravadas: { transicao: Transicao; primeira: boolean }[] = [];
  const aoGravar: AoGravar = (transicao, primeira) => gravadas.push({ transicao, primeira });
  const guardada = async (taskId: string) => (await memoria.tarefas.load(taskId, new ServerCallContext()))?.status?.state;
  return { ...memoria, conducao, cancelados, gravadas, aoGravar, guardada };
}

const nome = (estado: TaskState | undefined) => (estado === undefined ? 'no state' : TaskState[estado]);

/** What each transition recorded: the Task (with its state), a status (its state) or an artifact. */
const registrados = (gravadas: readonly { transicao: Transicao }[]) =>
  gravadas.map(({ transicao }) =>
    transicao.anotados.map(({ evento: { payload } }) =>
      payload?.$case === 'task'
        ? `task:${nome(payload.value.status?.state)}`
        : payload?.$case === 'statusUpdate'
          ? nome(payload.value.status?.state)
          : (payload?.$case ?? '?'),
    ),
  );

/** Every event recorded, in order. */
const anotados = (gravadas: readonly { transicao: Transicao }[]) => gravadas.flatMap(({ transicao }) => transicao.anotados);

/** The parts of an event's artifact or status message, as text and data. */
const partes = (evento: StreamResponse | undefined) => {
  const payload = evento?.payload;
  const lista =
    payload?.$case === 'artifactUpdate'
      ? payload.value.artifact?.parts
      : payload?.$case === 'statusUpdate'
        ? payload.value.status?.message?.parts
        : undefined;
  return (lista ?? []).map((parte): unknown => {
    if (parte.content?.$case === 'text') return parte.content.value;
    const valor: unknown = parte.content?.$case === 'data' ? parte.content.value : undefined;
    return { data: valor, mediaType: parte.mediaType };
  });
};

/** Whether nobody holds the Task's turn now. */
const livre = async (exclusao: Exclusao) => (await exclusao.seLivre('task-1', () => Promise.resolve('entrou'))) === 'entrou';

/** A new Task, task-1 in ctx-1, whose call ends in `desfecho`; with the request's traceparent header, if given. */
async function executar(desfecho: Desfecho, traceparent?: string) {
  const traces: Trace[] = [];
  const montado = montar({
    atender: (_t, pedido) => {
      traces.push(pedido.trace);
      return Promise.resolve(desfecho);
    },
  });
  const contexto = new ServerCallContext({ state: new Map([[STATE_HEADERS_KEY, { traceparent }]]) });
  const task = await montado.conducao.abrir(mensagemAo('task-1', 'reservar ...', { contextId: 'ctx-1' }), contexto, montado.aoGravar);
  return { ...montado, task, traces, guardado: await montado.pausas.ler('task-1') };
}

const ABERTURA = ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

it('a completed Task: SUBMITTED and WORKING stored first, then the artifact as JSON text and as data, COMPLETED with a message', async () => {
  const reserva = { reserva: 'res-0003', sala: 'sala-porao', inicio: 'i', fim: 'f', responsavel: 'Doc', politica: '2026-11-01' };
  const { task, gravadas, guardado, guardada, exclusao } = await executar({
    estado: 'concluida',
    mensagem: 'Reserva res-0003 confirmada na sala-porao.',
    artefato: { nome: 'reserva', dados: reserva },
  });
  assert.deepEqual(registrados(gravadas), [ABERTURA, ['artifactUpdate', 'TASK_STATE_COMPLETED']]);
  assert.deepEqual(
    anotados(gravadas).map(({ seq }) => seq),
    [1, 2, 3, 4],
    "each event numbered in the Task's log",
  );
  const artefato = anotados(gravadas)[2]?.evento.payload;
  assert.ok(artefato?.$case === 'artifactUpdate', 'the third event is the artifact');
  assert.equal(artefato.value.artifact?.name, 'reserva');
  // The text part first and byte for byte the JSON clients of the text contract read; the data part beside it.
  assert.deepEqual(partes(anotados(gravadas)[2]?.evento), [JSON.stringify(reserva), { data: reserva, mediaType: 'application/json' }]);
  assert.deepEqual(partes(anotados(gravadas)[3]?.evento), ['Reserva res-0003 confirmada na sala-porao.']);
  assert.equal(nome(task.status?.state), 'TASK_STATE_COMPLETED');
  assert.equal(nome(await guardada('task-1')), 'TASK_STATE_COMPLETED');
  assert.equal(guardado, undefined, 'a finished Task keeps no step');
  assert.ok(await livre(exclusao), 'the turn is free once the request is answered');
});

it('a pause: INPUT_REQUIRED with the exact alternatives line, then the same facts as a data part; the question kept, dated, unclaimed', async () => {
  const desfecho = pausadaEm({ dono: { tenant: '', usuario: 'unknown' } }, 'estado-opaco');
  assert.ok(desfecho.estado === 'pausada' && desfecho.pergunta);
  const { gravadas, guardado, guardada } = await executar(desfecho);
  assert.deepEqual(registrados(gravadas), [ABERTURA, ['TASK_STATE_INPUT_REQUIRED']]);
  assert.deepEqual(partes(anotados(gravadas).at(-1)?.evento), [
    'alternativas: sala-fusca, sala-mirante',
    { data: desfecho.dados, mediaType: 'application/json' },
  ]);
  assert.equal(nome(await guardada('task-1')), 'TASK_STATE_INPUT_REQUIRED');
  assert.deepEqual(guardado, { passo: { ...desfecho.pergunta, criadaEm: INICIO_DO_RELOGIO } });
});

for (const [estado, esperado] of [
  ['cancelada', 'TASK_STATE_CANCELED'],
  ['falhou', 'TASK_STATE_FAILED'],
] as const) {
  it(`${estado} ends in ${esperado} with the bridge's text as the agent message, and no step`, async () => {
    const { gravadas, guardado, guardada } = await executar({ estado, mensagem: 'texto exato' });
    assert.deepEqual(registrados(gravadas), [ABERTURA, [esperado]]);
    const ultimo = anotados(gravadas).at(-1)?.evento.payload;
    assert.ok(ultimo?.$case === 'statusUpdate', 'the last event is a status update');
    const mensagem = ultimo.value.status?.message;
    assert.ok(mensagem, 'the final status carries a message');
    assert.deepEqual(partes(anotados(gravadas).at(-1)?.evento), ['texto exato']);
    assert.equal(mensagem.taskId, 'task-1');
    assert.equal(mensagem.contextId, 'ctx-1');
    assert.equal(nome(await guardada('task-1')), esperado);
    assert.equal(guardado, undefined);
  });
}

it('hands the bridge the text parts joined and the first data part', async () => {
  const entradas: unknown[] = [];
  const { conducao, aoGravar } = montar({
    atender: (_t, pedido) => {
      entradas.push(pedido.pedido);
      return Promise.resolve({ estado: 'falhou', mensagem: 'x' });
    },
  });
  const mensagem = Message.fromJSON({
    messageId: 'm1',
    role: 'ROLE_USER',
    taskId: 'task-1',
    contextId: 'ctx-1',
    parts: [{ text: 'a' }, { data: { skill: 'listar-salas' } }, { text: 'b' }, { data: 2 }],
  });
  await conducao.abrir(mensagem, new ServerCallContext(), aoGravar);
  assert.deepEqual(entradas, [{ texto: 'a b', dados: { skill: 'listar-salas' } }]);
});

it('uses the trace-id of the traceparent header, or starts its own trace', async () => {
  const [com, sem] = await Promise.all([
    executar({ estado: 'falhou', mensagem: 'x' }, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'),
    executar({ estado: 'falhou', mensagem: 'x' }, 'invalido'),
  ]);
  assert.equal(com.traces[0]?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  const [proprio] = sem.traces;
  assert.ok(proprio, 'the bridge was given a trace');
  assert.match(proprio.traceId, /^[0-9a-f]{32}$/);
  assert.notEqual(proprio.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
});

it('progress the server reports is stored as WORKING with its message, in order, before the outcome', async () => {
  const { conducao, aoGravar, gravadas } = montar({
    atender: (_t, _pedido, opcoes) => {
      opcoes?.aoProgredir?.({ progress: 1, total: 2 });
      opcoes?.aoProgredir?.({ progress: 2, message: 'quase' });
      return Promise.resolve({ estado: 'concluida', mensagem: 'pronto', artefato: { nome: 'eco', dados: { n: 1 } } });
    },
  });
  await conducao.abrir(mensagemAo('task-1', 'eco'), new ServerCallContext(), aoGravar);
  assert.deepEqual(registrados(gravadas), [
    ABERTURA,
    ['TASK_STATE_WORKING'],
    ['TASK_STATE_WORKING'],
    ['artifactUpdate', 'TASK_STATE_COMPLETED'],
  ]);
  assert.deepEqual(
    gravadas.slice(1, 3).map(({ transicao }) => partes(transicao.anotados[0]?.evento)),
    [['Progresso 1/2.'], ['quase']],
  );
});

it('a message to a Task that is not waiting for one joins its history and changes nothing else', async () => {
  let respondeu = false;
  const { ciclo, conducao, aoGravar, gravadas, tarefas, pausas } = montar({
    responder: () => {
      respondeu = true;
      return Promise.resolve({ estado: 'falhou', mensagem: 'x' });
    },
  });
  await aberta(ciclo, 'task-1');
  const task = await conducao.continuar(mensagemAo('task-1', 'escolha=sala-fusca', { messageId: 'm2' }), new ServerCallContext(), aoGravar);
  assert.deepEqual(registrados(gravadas), [[]], 'one transition, recording nothing');
  assert.equal(gravadas[0]?.primeira, true, "its stream shows the Task first: what the SDK's stream showed");
  assert.equal(nome(gravadas[0].transicao.retrato.status?.state), 'TASK_STATE_WORKING');
  assert.equal(nome(task.status?.state), 'TASK_STATE_WORKING');
  assert.deepEqual(
    (await tarefas.load('task-1', new ServerCallContext()))?.history.map((m) => m.messageId),
    ['m-task-1', 'm2'],
  );
  assert.equal(respondeu, false);
  assert.equal((await pausas.ler('task-1'))?.reivindicacao?.por, 'este', "the running step's claim is left alone");
});

it('a new Task holds its turn until its outcome is stored, so a cancel or an answer waits for it', async () => {
  const montado = montar({ atender: () => Promise.resolve(pausadaEm({ dono: { tenant: '', usuario: 'unknown' } })) });
  const { conducao, aoGravar, tarefas, exclusao, guardada } = montado;
  const { promessa: chegou, resolver: chegar } = adiado();
  const { promessa: liberado, resolver: liberar } = adiado();
  const salvar = tarefas.save.bind(tarefas);
  // The outcome's write held open: decided, not yet stored.
  tarefas.save = async (task: Task, contexto: ServerCallContext) => {
    if (task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      chegar();
      await liberado;
    }
    await salvar(task, contexto);
  };
  const execucao = conducao.abrir(mensagemAo('task-1', 'reservar ...'), new ServerCallContext(), aoGravar);
  await chegou;
  assert.equal(await livre(exclusao), false, 'decided but not yet stored: still its turn');
  assert.equal(nome(await guardada('task-1')), 'TASK_STATE_WORKING');
  liberar();
  await execucao;
  assert.ok(await livre(exclusao));
  assert.equal(nome(await guardada('task-1')), 'TASK_STATE_INPUT_REQUIRED');
});

it('asks nothing of MCP before the new Task is on record: a Task that cannot be stored fails without a booking', async () => {
  let atendeu = false;
  const { conducao, aoGravar, gravadas, tarefas, exclusao } = montar({
    atender: () => {
      atendeu = true;
      const reserva = { reserva: 'res-0001', sala: 'sala-porao', inicio: 'i', fim: 'f', responsavel: 'Doc', politica: '2026-11-01' };
      return Promise.resolve({ estado: 'concluida', mensagem: 'x', artefato: { nome: 'reserva', dados: reserva } });
    },
  });
  tarefas.save = () => Promise.reject(new Error('banco fora'));
  await assert.rejects(conducao.abrir(mensagemAo('task-1', 'reservar ...'), new ServerCallContext(), aoGravar), (erro: Error) => {
    assert.equal(erro.name, 'BancoIndisponivel');
    assert.match((erro.cause as Error).message, /banco fora/);
    return true;
  });
  assert.equal(atendeu, false);
  assert.deepEqual(gravadas, [], 'nothing was committed, so nothing shown');
  assert.ok(await livre(exclusao));
});

it("an outcome that comes after a sweep took the step over is not stored: the sweep's replay stands", async () => {
  const montado = montar({
    atender: async (taskId, pedido) => {
      // Slower than its lease: another agent's sweep claimed the request meanwhile.
      await montado.pausas.guardar(taskId, { ...pedido, criadaEm: INICIO_DO_RELOGIO }, { por: 'outro', ate: Number.MAX_SAFE_INTEGER });
      return { estado: 'falhou', mensagem: 'tarde demais' };
    },
  });
  const { conducao, aoGravar, gravadas, pausas, guardada } = montado;
  await assert.rejects(
    conducao.abrir(mensagemAo('task-1', 'reservar ...'), new ServerCallContext(), aoGravar),
    /A Task task-1 ja esta sendo respondida por outra chamada/,
  );
  assert.deepEqual(registrados(gravadas), [ABERTURA]);
  assert.equal(nome(await guardada('task-1')), 'TASK_STATE_WORKING');
  assert.equal((await pausas.ler('task-1'))?.reivindicacao?.por, 'outro');
});

it('a new question past the cap of paused Tasks ends the oldest one FAILED, its pause gone with it', async () => {
  let pedidos = 0;
  const { conducao, aoGravar, pausas, tarefas, guardada } = montar(
    { atender: (_t, pedido) => Promise.resolve(pausadaEm(pedido, `estado-${String(++pedidos)}`)) },
    { maxPausadas: 1 },
  );
  await conducao.abrir(mensagemAo('velha', 'reservar ...'), new ServerCallContext(), aoGravar);
  await conducao.abrir(mensagemAo('nova', 'reservar ...'), new ServerCallContext(), aoGravar);
  assert.equal(nome(await guardada('velha')), 'TASK_STATE_FAILED');
  const velha = await tarefas.load('velha', new ServerCallContext());
  assert.deepEqual(velha?.status?.message?.parts[0]?.content, { $case: 'text', value: mensagemDeExcesso(1) });
  assert.equal(nome(await guardada('nova')), 'TASK_STATE_INPUT_REQUIRED');
  assert.deepEqual(await pausas.ate(Number.MAX_SAFE_INTEGER, 10), ['nova']);
});

/** What each outcome leaves in the step store. */
const guardadoDepois: Record<string, (guardado: PassoGuardado | undefined) => void> = {
  rejeitada: (guardado) => assert.equal(guardado, undefined, 'a finished Task keeps no step'),
  incerto: (guardado) => {
    assert.ok(guardado && 'pedido' in guardado.passo, 'the request is kept');
    assert.deepEqual(guardado.reivindicacao, { por: 'este', ate: INICIO_DO_RELOGIO }, 'still claimed, expired at once, for the sweep');
  },
  pausada: (guardado) =>
    assert.deepEqual(guardado, { passo: { ...perguntaDeSala('estado-url'), criadaEm: INICIO_DO_RELOGIO } }, 'the question, unclaimed'),
};

for (const [desfecho, esperado] of [
  [{ estado: 'rejeitada', mensagem: 'Skill desconhecida "x".' }, 'TASK_STATE_REJECTED'],
  [{ estado: 'incerto', mensagem: 'Sem desfecho do servidor MCP.' }, 'TASK_STATE_WORKING'],
  [
    {
      estado: 'pausada',
      mensagem: 'Autorize em https://auth.test/x',
      dados: { inputRequests: {} },
      pergunta: perguntaDeSala('estado-url'),
      url: true,
    },
    'TASK_STATE_AUTH_REQUIRED',
  ],
] as const satisfies readonly (readonly [Desfecho, string])[]) {
  it(`${desfecho.estado}${'url' in desfecho ? ' with a URL' : ''} leaves the Task ${esperado} with the bridge's text`, async () => {
    const { gravadas, guardado, guardada } = await executar(desfecho);
    assert.deepEqual(registrados(gravadas), [ABERTURA, [esperado]]);
    assert.equal(partes(anotados(gravadas).at(-1)?.evento)[0], desfecho.mensagem);
    assert.equal(nome(await guardada('task-1')), esperado);
    guardadoDepois[desfecho.estado]?.(guardado);
  });
}

it("an artifact's text and file parts come first, then its data as JSON text and as a data part", async () => {
  const { gravadas } = await executar({
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
  const evento = anotados(gravadas)[2]?.evento.payload;
  assert.ok(evento?.$case === 'artifactUpdate', 'the third event is the artifact');
  assert.equal(evento.value.artifact?.name, 'eco');
  const [texto, imagem, link, json, dados] = evento.value.artifact.parts;
  assert.deepEqual(texto?.content, { $case: 'text', value: 'ola' });
  assert.equal(imagem?.content?.$case, 'raw');
  assert.equal(imagem.mediaType, 'image/png');
  assert.deepEqual(link?.content, { $case: 'url', value: 'file:///a.txt' });
  assert.equal(link.filename, 'a.txt');
  assert.deepEqual(json?.content, { $case: 'text', value: '{"n":1}' });
  assert.deepEqual(dados?.content, { $case: 'data', value: { n: 1 } });
});

describe('an answer to a paused Task', () => {
  /** task-1 paused on a room question by the lifecycle, then answered with `texto` through Conducao; the call, if made, ends in `desfecho`. */
  async function responderA(texto: string, desfecho: Desfecho, antes: (montado: ReturnType<typeof montar>) => unknown = () => undefined) {
    const repassadas: Respostas[] = [];
    const guardadosAoResponder: (PassoGuardado | undefined)[] = [];
    const montado = montar({
      responder: async (taskId, _pausa, respostas) => {
        repassadas.push(respostas);
        guardadosAoResponder.push(await montado.pausas.ler(taskId));
        return desfecho;
      },
    });
    const { ciclo, conducao, aoGravar, gravadas, pausas } = montado;
    await pausada(ciclo, 'task-1', new ServerCallContext(), 'estado-opaco');
    const pausaGuardada = await pausas.ler('task-1');
    await antes(montado);
    const task = await conducao.continuar(mensagemAo('task-1', texto, { messageId: 'm2' }), new ServerCallContext(), aoGravar);
    return { ...montado, task, repassadas, guardadosAoResponder, gravadas, pausaGuardada, guardado: await pausas.ler('task-1') };
  }

  it('is read by the profile, claimed with WORKING, relayed as inputResponses, and its outcome ends the step', async () => {
    const { task, repassadas, guardadosAoResponder, gravadas, guardado } = await responderA('escolha=sala-mirante', {
      estado: 'cancelada',
      mensagem: 'Nenhuma sala reservada (recusado).',
    });
    const resposta = { escolha_de_sala: { action: 'accept', content: { sala: 'sala-mirante' } } };
    assert.deepEqual(repassadas, [resposta]);
    assert.deepEqual(registrados(gravadas), [['TASK_STATE_WORKING'], ['TASK_STATE_CANCELED']]);
    assert.deepEqual(
      gravadas.map(({ primeira }) => primeira),
      [true, false],
    );
    const retrato = gravadas[0]?.transicao.retrato;
    assert.equal(nome(retrato?.status?.state), 'TASK_STATE_INPUT_REQUIRED', 'its stream shows the paused Task first');
    assert.equal(retrato?.history.at(-1)?.messageId, 'm2', 'with the answer in its history');
    assert.deepEqual(guardadosAoResponder[0]?.reivindicacao?.respostas, resposta, 'claimed, with its answer, before MCP heard it');
    assert.equal(guardadosAoResponder[0].reivindicacao.por, 'este');
    assert.equal(nome(task.status?.state), 'TASK_STATE_CANCELED');
    assert.equal(guardado, undefined, 'a finished Task keeps no step');
  });

  it('one the profile cannot read asks again, with the reason, sending nothing and keeping the pause as it was', async () => {
    const { repassadas, gravadas, guardado, pausaGuardada, task } = await responderA('escolha=sala-aquario', {
      estado: 'falhou',
      mensagem: 'x',
    });
    assert.deepEqual(repassadas, []);
    assert.deepEqual(registrados(gravadas), [['TASK_STATE_INPUT_REQUIRED']]);
    assert.equal(partes(anotados(gravadas).at(-1)?.evento)[0], 'alternativas: sala-fusca, sala-mirante');
    assert.equal(nome(task.status?.state), 'TASK_STATE_INPUT_REQUIRED');
    assert.deepEqual(guardado, pausaGuardada, 'the same pause, unclaimed, answerable again');
    assert.equal(guardado?.reivindicacao, undefined);
  });

  it('one that comes after the pause expired ends the Task FAILED, says why, and gives the question up', async () => {
    const { repassadas, gravadas, guardado, cancelados, task } = await responderA(
      'escolha=sala-mirante',
      { estado: 'falhou', mensagem: 'x' },
      // 600 s of requestState, less the 60 s an uncertain answer may need to be replayed.
      ({ avancar }) => avancar(540_000),
    );
    assert.deepEqual(repassadas, []);
    assert.deepEqual(registrados(gravadas), [['TASK_STATE_FAILED']]);
    assert.deepEqual(partes(anotados(gravadas).at(-1)?.evento), [MENSAGEM_DE_PAUSA_EXPIRADA]);
    assert.deepEqual(cancelados, ['task-1'], "a session's call still waiting on it is given up");
    assert.equal(nome(task.status?.state), 'TASK_STATE_FAILED');
    assert.equal(guardado, undefined);
  });

  it('one to a Task whose pause is no longer kept ends it FAILED, saying so', async () => {
    const { gravadas, guardado, cancelados } = await responderA('escolha=sala-mirante', { estado: 'falhou', mensagem: 'x' }, ({ pausas }) =>
      pausas.apagar('task-1'),
    );
    assert.deepEqual(registrados(gravadas), [['TASK_STATE_FAILED']]);
    assert.deepEqual(partes(anotados(gravadas).at(-1)?.evento), [MENSAGEM_SEM_PAUSA]);
    assert.deepEqual(cancelados, []);
    assert.equal(guardado, undefined);
  });

  it('a finished Task refuses it before it enters history', async () => {
    const { ciclo, conducao, aoGravar, gravadas, tarefas } = montar({});
    const { alvo, pedido } = await aberta(ciclo, 'task-1');
    await ciclo.concluir(alvo, { estado: 'falhou', mensagem: 'x' }, pedido);
    const antes = await tarefas.load('task-1', new ServerCallContext());
    await assert.rejects(
      conducao.continuar(mensagemAo('task-1', 'escolha=sala-fusca', { messageId: 'm2' }), new ServerCallContext(), aoGravar),
      UnsupportedOperationError,
    );
    assert.deepEqual(gravadas, []);
    assert.deepEqual(await tarefas.load('task-1', new ServerCallContext()), antes);
  });
});
