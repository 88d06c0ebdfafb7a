/**
 * A thin AgentExecutor: the bridge decides, the executor publishes, and
 * each state goes to the store with what it does to the Task's open step
 * (see passos.ts). Every Task goes SUBMITTED -> WORKING -> (INPUT_REQUIRED |
 * AUTH_REQUIRED | COMPLETED | CANCELED | FAILED | REJECTED); a call whose
 * outcome never arrived, and whose replay is safe, stays WORKING until its
 * replay gives one.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, STATE_HEADERS_KEY, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { vaoAtual } from 'compartilhado/telemetria';
import { donoDe } from '../armazenamento/escopo.js';
import type { FioMcp } from '../console/fio.js';
import { Eventos } from './eventos.js';
import type { Junto, TarefasDaPonte } from '../armazenamento/gravacao.js';
import type { PublicarForaDoPedido } from './publicador.js';
import type { Exclusao } from '../armazenamento/exclusao.js';
import { estadoDo, eventosDo, MENSAGEM_DE_PAUSA_EXPIRADA, type Passos } from './passos.js';
import { MENSAGEM_SEM_PAUSA, type OpcoesDoPasso, type Ponte } from '../ponte/ponte.js';
import { ehPedido, type Desfecho, type Entrada } from '../ponte/tipos.js';
import { lerTraceparent, novoTrace, traceparentDaOrigem, type Trace } from '../ponte/trace.js';

/** The request's trace: with telemetry on its span's (whose id an answer links to), else the caller's traceparent, if any. */
function traceDaRequisicao(contexto: RequestContext): Trace | undefined {
  const vao = vaoAtual();
  if (vao) return { traceId: vao.traceId, flags: vao.traceparent.slice(-2), spanId: vao.spanId };
  const headers = contexto.context.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
  return lerTraceparent(headers?.traceparent);
}

/** The message's text parts joined, and its first data part. */
function entradaDe(contexto: RequestContext): Entrada {
  const textos: string[] = [];
  let dados: unknown;
  for (const { content } of contexto.userMessage.parts) {
    if (content?.$case === 'text') textos.push(content.value);
    else if (content?.$case === 'data' && dados === undefined) dados = content.value;
  }
  return { texto: textos.join(' '), ...(dados === undefined ? {} : { dados }) };
}

/** States a Task waits in for the client's answer: a question, or a URL to visit. */
const ESPERANDO = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/** Progress the server reports during the call, streamed as WORKING updates with its message. */
function progresso(eventos: Eventos, bus: ExecutionEventBus): OpcoesDoPasso {
  return {
    aoProgredir: ({ progress, total, message }) => {
      const quanto = total === undefined ? String(progress) : `${String(progress)}/${String(total)}`;
      bus.publish(eventos.estado(TaskState.TASK_STATE_WORKING, message ?? `Progresso ${quanto}.`));
    },
  };
}

export class Executor implements AgentExecutor {
  /** contextId of each Task being executed right now, for a cancel that arrives meanwhile. */
  private readonly emExecucao = new Map<string, string>();

  constructor(
    private readonly ponte: Ponte,
    private readonly passos: Passos,
    private readonly exclusao: Exclusao,
    private readonly tarefas: Pick<TarefasDaPonte, 'gravado'>,
    /** For the paused Tasks over the cap, ended outside their own requests. */
    private readonly publicar: PublicarForaDoPedido,
    /** With the console on: each step's MCP exchanges noted under its Task. */
    private readonly fio?: Pick<FioMcp, 'naTask'>,
  ) {}

  async execute(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.emExecucao.set(contexto.taskId, contexto.contextId);
    try {
      // An answer arrives already in its Task's turn (Atendimento took it before
      // the SDK read the Task). A new Task takes its own, in every process: a
      // stream or returnImmediately hands its id out before the step ends, and a
      // cancel or an early answer, here or on another agent, waits until this
      // step's outcome is stored.
      const { task } = contexto;
      const passo = () =>
        task ? this.continuar(contexto, task, bus) : this.exclusao.com(contexto.taskId, () => this.abrir(contexto, bus));
      await (this.fio ? this.fio.naTask(contexto.taskId, passo) : passo());
    } finally {
      this.emExecucao.delete(contexto.taskId);
    }
  }

  private async abrir(contexto: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId } = contexto;
    const eventos = new Eventos(taskId, contexto.contextId);
    const pedido = this.passos.pedido({
      pedido: entradaDe(contexto),
      trace: traceDaRequisicao(contexto) ?? novoTrace(),
      dono: donoDe(contexto.context),
    });
    // Nothing is asked of MCP before the Task is on record, with its request
    // claimed by this agent in the same write: a step cut short anywhere is
    // replayed by a sweep, never lost, and no booking outlives a Task never stored.
    const registrada = Promise.all([
      this.tarefas.gravado(taskId, TaskState.TASK_STATE_SUBMITTED, this.passos.reivindicarPedido(taskId, pedido)),
      this.tarefas.gravado(taskId, TaskState.TASK_STATE_WORKING),
    ]);
    // Heard even if publishing throws first; awaited below.
    registrada.catch(() => undefined);
    bus.publish(eventos.tarefaNova(contexto.userMessage));
    bus.publish(eventos.estado(TaskState.TASK_STATE_WORKING));
    await registrada;
    const desfecho = await this.ponte.atender(taskId, pedido, progresso(eventos, bus));
    await this.concluir(eventos, bus, desfecho, this.passos.depoisDoReivindicado(taskId, desfecho, pedido));
  }

  private async continuar(contexto: RequestContext, task: Task, bus: ExecutionEventBus): Promise<void> {
    bus.publish(AgentEvent.task(task));
    if (!ESPERANDO.has(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
      // Not waiting for an answer (its step is running, here or elsewhere): nothing to change.
      bus.finished();
      return;
    }
    const { taskId } = contexto;
    const eventos = new Eventos(taskId, contexto.contextId);
    const guardado = await this.passos.ler(taskId);
    const semPergunta = (mensagem: string) => {
      const falhou: Desfecho = { estado: 'falhou', mensagem };
      return this.concluir(eventos, bus, falhou, this.passos.depoisDo(taskId, falhou, undefined));
    };
    if (!guardado || ehPedido(guardado.passo)) return semPergunta(MENSAGEM_SEM_PAUSA);
    if (guardado.expirada) {
      // A session's call may still wait here on the expired question: given up, its server told.
      this.ponte.cancelar(taskId);
      return semPergunta(MENSAGEM_DE_PAUSA_EXPIRADA);
    }
    const pausa = guardado.passo;
    const escolha = this.ponte.escolher(taskId, pausa, entradaDe(contexto));
    if ('estado' in escolha) return this.concluir(eventos, bus, escolha, this.passos.depoisDo(taskId, escolha, pausa));
    const { respostas } = escolha;
    // The answer is claimed with the WORKING state, in one write, before MCP hears it.
    const reivindicada = this.tarefas.gravado(taskId, TaskState.TASK_STATE_WORKING, this.passos.reivindicarResposta(taskId, respostas));
    bus.publish(eventos.estado(TaskState.TASK_STATE_WORKING));
    await reivindicada;
    const trace = traceDaRequisicao(contexto) ?? pausa.trace;
    // Two requests, two traces: the answer's span links to the span of the request that paused the Task.
    const origem = traceparentDaOrigem(pausa.trace);
    if (origem) vaoAtual()?.ligarA(origem);
    const desfecho = await this.ponte.responder(taskId, pausa, respostas, trace, progresso(eventos, bus));
    await this.concluir(eventos, bus, desfecho, this.passos.depoisDoReivindicado(taskId, desfecho, pausa, respostas));
  }

  /**
   * The outcome, stored with what it does to the step; the turn lasts until
   * it is stored, not merely published. A failed save is the SDK's to
   * report: the step stays claimed, and the sweep replays it.
   */
  private async concluir(eventos: Eventos, bus: ExecutionEventBus, desfecho: Desfecho, depois: Junto): Promise<void> {
    const { taskId } = eventos;
    const gravado = this.tarefas.gravado(taskId, estadoDo(desfecho), depois).catch(() => undefined);
    for (const evento of eventosDo(desfecho, eventos)) bus.publish(evento);
    bus.finished();
    await gravado;
    if (desfecho.estado === 'pausada' && desfecho.pergunta) await this.passos.conterExcesso(this.publicar);
  }

  /**
   * The SDK calls this only while an execution of the Task is running. Since
   * a cancel waits for the Task's turn, that is never the case here; the
   * method stays because the AgentExecutor contract requires it.
   */
  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(
      new Eventos(taskId, this.emExecucao.get(taskId) ?? '').estado(TaskState.TASK_STATE_CANCELED, 'Task cancelada a pedido do cliente.'),
    );
    bus.finished();
    return Promise.resolve();
  }
}
