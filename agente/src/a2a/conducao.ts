/**
 * A request's work on its Task, top to bottom. A new Task: opened (one
 * transaction), its call made, its outcome concluded (one transaction). An
 * answer: received (one transaction, which either decides the outcome or
 * claims the answer), its call made, its outcome concluded (one
 * transaction). The bridge decides what a call means; the lifecycle
 * (ciclo/) writes it; each committed transition is handed to `aoGravar`,
 * so a stream shows it at once.
 */
import type { Message, Task } from '@a2a-js/sdk';
import { STATE_HEADERS_KEY, type ServerCallContext } from '@a2a-js/sdk/server';
import { vaoAtual } from 'compartilhado/telemetria';
import { donoDe } from '../armazenamento/escopo.js';
import type { Exclusao } from '../armazenamento/exclusao.js';
import { Andamento } from '../ciclo/andamento.js';
import type { Alvo, Ciclo, Transicao } from '../ciclo/ciclo.js';
import type { Varredura } from '../ciclo/varredura.js';
import type { FioMcp } from '../console/fio.js';
import type { Ponte } from '../ponte/ponte.js';
import type { Desfecho, Entrada, Passo, Respostas } from '../ponte/tipos.js';
import { lerTraceparent, novoTrace, traceparentDaOrigem, type Trace } from '../ponte/trace.js';

/** A committed transition, as the request shows it; `primeira` for the first of an answer (its stream shows the Task first). */
export type AoGravar = (transicao: Transicao, primeira: boolean) => void;

/** The request's trace: with telemetry on its span's (whose id an answer links to), else the caller's traceparent, if any. */
function traceDaRequisicao(contexto: ServerCallContext): Trace | undefined {
  const vao = vaoAtual();
  if (vao) return { traceId: vao.traceId, flags: vao.traceparent.slice(-2), spanId: vao.spanId };
  const headers = contexto.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
  return lerTraceparent(headers?.traceparent);
}

/** The message's text parts joined, and its first data part. */
function entradaDe(mensagem: Message): Entrada {
  const textos: string[] = [];
  let dados: unknown;
  for (const { content } of mensagem.parts) {
    if (content?.$case === 'text') textos.push(content.value);
    else if (content?.$case === 'data' && dados === undefined) dados = content.value;
  }
  return { texto: textos.join(' '), ...(dados === undefined ? {} : { dados }) };
}

export class Conducao {
  constructor(
    private readonly ciclo: Ciclo,
    private readonly ponte: Pick<Ponte, 'atender' | 'responder' | 'escolher' | 'cancelar' | 'largar'>,
    private readonly exclusao: Exclusao,
    private readonly varredura: Pick<Varredura, 'conterExcesso'>,
    /** With the console on: each step's MCP exchanges noted under its Task. */
    private readonly fio?: Pick<FioMcp, 'naTask'>,
  ) {}

  /**
   * A new Task, in its own turn in every process: a stream or
   * returnImmediately hands its id out before the step ends, and a cancel
   * or an early answer, here or on another agent, waits until this step's
   * outcome is stored. `mensagem` carries the Task's ids.
   */
  abrir(mensagem: Message, contexto: ServerCallContext, aoGravar: AoGravar): Promise<Task> {
    const alvo = { taskId: mensagem.taskId, contexto };
    const passo = async () => {
      const pedido = this.ciclo.pedido({
        pedido: entradaDe(mensagem),
        trace: traceDaRequisicao(contexto) ?? novoTrace(),
        dono: donoDe(contexto),
      });
      aoGravar(await this.ciclo.abrir(alvo, mensagem, pedido), false);
      const andamento = this.andamento(alvo, aoGravar);
      const desfecho = await this.ponte.atender(alvo.taskId, pedido, andamento.opcoes);
      return this.concluir(alvo, desfecho, pedido, undefined, andamento, aoGravar);
    };
    return this.exclusao.com(alvo.taskId, () => (this.fio ? this.fio.naTask(alvo.taskId, passo) : passo()));
  }

  /**
   * An answer to an existing Task, already in that Task's turn (the
   * request handler took it before anything was read). A question that
   * expired is given up, its server told (a session's call may still
   * wait on it).
   */
  continuar(mensagem: Message, contexto: ServerCallContext, aoGravar: AoGravar): Promise<Task> {
    const alvo = { taskId: mensagem.taskId, contexto };
    const passo = async () => {
      const recebida = await this.ciclo.receber(alvo, mensagem, (pausa) => this.ponte.escolher(alvo.taskId, pausa, entradaDe(mensagem)));
      aoGravar(recebida, true);
      if (recebida.expirada) this.ponte.cancelar(alvo.taskId);
      if (!recebida.resposta) return recebida.task;
      const { pausa, respostas } = recebida.resposta;
      // Two requests, two traces: the answer's span links to the span of the request that paused the Task.
      const origem = traceparentDaOrigem(pausa.trace);
      if (origem) vaoAtual()?.ligarA(origem);
      const andamento = this.andamento(alvo, aoGravar);
      const trace = traceDaRequisicao(contexto) ?? pausa.trace;
      const desfecho = await this.ponte.responder(alvo.taskId, pausa, respostas, trace, andamento.opcoes);
      return this.concluir(alvo, desfecho, pausa, respostas, andamento, aoGravar);
    };
    return this.fio ? this.fio.naTask(alvo.taskId, passo) : passo();
  }

  /**
   * The outcome, stored with what it does to the step, after the
   * progress reported before it (and the last renewal of an MCP task's
   * claim). A new question past the cap of paused Tasks ends the oldest ones.
   */
  private async concluir(
    alvo: Alvo,
    desfecho: Desfecho,
    passo: Passo,
    respostas: Respostas | undefined,
    andamento: Andamento,
    aoGravar: AoGravar,
  ): Promise<Task> {
    await andamento.terminar();
    const concluida = await this.ciclo.concluir(alvo, desfecho, passo, respostas ? { respostas } : {});
    if (!concluida) throw new Error(`a Task ${alvo.taskId} terminou fora deste pedido`);
    aoGravar(concluida, false);
    if (concluida.pausadas !== undefined) await this.varredura.conterExcesso(concluida.pausadas, this.ponte);
    return concluida.task;
  }

  /** What the call reports while it runs (progress, the MCP task it started), each committed transition shown at once. */
  private andamento(alvo: Alvo, aoGravar: AoGravar): Andamento {
    return new Andamento(this.ciclo, alvo, (transicao) => aoGravar(transicao, false));
  }
}
