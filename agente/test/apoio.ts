/** What several of the agent's unit tests share. */
import { createServer } from 'node:net';
import { Message, type TaskState } from '@a2a-js/sdk';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { Armazenamento } from '../src/armazenamento/armazenamento.js';
import { Campainha } from '../src/armazenamento/campainha.js';
import { DiarioEmMemoria } from '../src/armazenamento/diario.js';
import { donoDe } from '../src/armazenamento/escopo.js';
import { ExclusaoLocal } from '../src/armazenamento/exclusao.js';
import { PausasEmMemoria } from '../src/armazenamento/pausas.js';
import { TarefasEmMemoria } from '../src/armazenamento/tarefas.js';
import { Ciclo, type Alvo, type Limites, type Transicao } from '../src/ciclo/ciclo.js';
import { Varredura } from '../src/ciclo/varredura.js';
import type { Avisos } from '../src/push/avisos.js';
import { WebhooksEmMemoria } from '../src/push/webhooks.js';
import type { Desfecho, Pedido, Pergunta } from '../src/ponte/tipos.js';

/** A port free now (nothing listens on it): one the system handed out, then closed. */
export function portaLivre(): Promise<number> {
  const servidor = createServer();
  return new Promise((resolver, rejeitar) => {
    servidor.once('error', rejeitar);
    servidor.listen(0, '127.0.0.1', () => {
      const endereco = servidor.address();
      servidor.close(() => (typeof endereco === 'object' && endereco ? resolver(endereco.port) : rejeitar(new Error('sem porta'))));
    });
  });
}

/** A room booking's question as the room server asks it: the choice of another room, with its state. */
export const perguntaDeSala = (requestState: string): Pergunta => ({
  skill: 'reservar-sala',
  ferramenta: 'reservar_sala',
  argumentos: { sala: 'sala-garagem' },
  perguntas: {
    escolha_de_sala: {
      mode: 'form',
      message: 'Escolha uma sala alternativa.',
      requestedSchema: {
        type: 'object',
        properties: { sala: { type: 'string', enum: ['sala-fusca', 'sala-mirante'] } },
        required: ['sala'],
      },
    },
  },
  requestState,
  rodada: 1,
  trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', flags: '01' },
});

/** A promise and the function that resolves it (Promise.withResolvers is newer than Node 20). */
export function adiado(): { promessa: Promise<void>; resolver: () => void } {
  let resolver = (): void => {
    throw new Error('unreachable: the Promise executor runs at once');
  };
  const promessa = new Promise<void>((resolve) => (resolver = resolve));
  return { promessa, resolver };
}

/** When the test clock starts (epoch ms): far from 0, so an age of 0 is never mistaken for "no date". */
export const INICIO_DO_RELOGIO = 1_000_000;

export interface OpcoesDaMemoria extends Partial<Limites> {
  /** This agent, as claims name their owner. */
  readonly por?: string;
  readonly avisos?: Pick<Avisos, 'enviar'>;
}

/**
 * The agent's stores in memory, built as abrirArmazenamento builds them,
 * with the lifecycle and the sweep over them on the test's clock (moved
 * by `avancar`).
 */
export function naMemoria({ maxPausadas = 10, validadeMs = 600_000, prazoMs = 60_000, por = 'este', avisos }: OpcoesDaMemoria = {}) {
  let agora = INICIO_DO_RELOGIO;
  const relogio = () => agora;
  const tarefas = new TarefasEmMemoria(100);
  const pausas = new PausasEmMemoria();
  const diario = new DiarioEmMemoria();
  const webhooks = new WebhooksEmMemoria();
  const campainha = new Campainha();
  const exclusao = new ExclusaoLocal();
  const juntos: Armazenamento['juntos'] = (escrita) => escrita({ tarefas, pausas, diario, webhooks });
  const ciclo = new Ciclo({ juntos, campainha }, { maxPausadas, validadeMs, prazoMs }, por, avisos, relogio);
  const varredura = new Varredura(ciclo, pausas, exclusao, maxPausadas, relogio);
  return {
    tarefas,
    pausas,
    diario,
    webhooks,
    campainha,
    exclusao,
    ciclo,
    varredura,
    agora: relogio,
    avancar: (ms: number) => (agora += ms),
  };
}

/** A client's message to Task `taskId`, as Atendimento hands it on (a new Task's carries its ids). */
export const mensagemAo = (taskId: string, texto: string, { contextId = `ctx-${taskId}`, messageId = `m-${taskId}` } = {}) =>
  Message.fromJSON({ messageId, role: 'ROLE_USER', parts: [{ text: texto }], taskId, contextId });

/** Task `taskId` opened by the lifecycle as a request opens it: WORKING, its request claimed by the Ciclo's agent. */
export async function aberta(
  ciclo: Ciclo,
  taskId: string,
  contexto: ServerCallContext = new ServerCallContext(),
): Promise<{ alvo: Alvo; pedido: Pedido; transicao: Transicao }> {
  const alvo = { taskId, contexto };
  const pedido = ciclo.pedido({
    pedido: { texto: 'reservar sala=sala-garagem' },
    trace: perguntaDeSala('').trace,
    dono: donoDe(contexto),
  });
  return { alvo, pedido, transicao: await ciclo.abrir(alvo, mensagemAo(taskId, 'reservar sala=sala-garagem'), pedido) };
}

/** A room question as the bridge's outcome: a new pause, its owner the request's. */
export const pausadaEm = ({ dono }: Pick<Pedido, 'dono'>, requestState = 'estado-0'): Desfecho => ({
  estado: 'pausada',
  mensagem: 'alternativas: sala-fusca, sala-mirante',
  dados: { alternativas: ['sala-fusca', 'sala-mirante'] },
  pergunta: { ...perguntaDeSala(requestState), dono },
});

/** Task `taskId` opened and paused on a room question, as a request leaves it: INPUT_REQUIRED, its pause dated now. */
export async function pausada(
  ciclo: Ciclo,
  taskId: string,
  contexto: ServerCallContext = new ServerCallContext(),
  requestState = `estado-${taskId}`,
): Promise<{ alvo: Alvo; transicao: Transicao & { pausadas?: number } }> {
  const { alvo, pedido } = await aberta(ciclo, taskId, contexto);
  const transicao = await ciclo.concluir(alvo, pausadaEm(pedido, requestState), pedido);
  if (!transicao) throw new Error(`a Task ${taskId} nao foi pausada`);
  return { alvo, transicao };
}

/**
 * Resolves once Task `taskId` is stored in `estado`: the wait registered
 * before each read (see Campainha), so a commit between them is not missed.
 */
export async function ateOEstado(
  campainha: Campainha,
  tarefas: TaskStore,
  taskId: string,
  estado: TaskState,
  contexto: ServerCallContext = new ServerCallContext(),
): Promise<void> {
  for (;;) {
    const espera = campainha.esperar(taskId);
    if ((await tarefas.load(taskId, contexto))?.status?.state === estado) {
      espera.desistir();
      return;
    }
    await espera.tocada;
  }
}
