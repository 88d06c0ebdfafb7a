/**
 * Each row of the lifecycle table (maquina.ts) as one call and one
 * transaction: the Task, its open step (a claim, its release, the stored
 * outcome) and its event-log entries are written together or not at all,
 * whenever a process dies. After the commit the Task's subscribers are
 * woken and its webhooks told; every delivery (streams on any agent, push,
 * the console) reads what was committed.
 *
 * A step being run is claimed, with an owner and an expiry (a lease), in
 * the transaction that starts it; its outcome is written only while the
 * claim is still this agent's. A claim that expires (its agent died, or
 * the call's outcome never arrived) is taken over by any agent's sweep
 * (varredura.ts). A step whose call became an MCP task is that task
 * (acompanhar): its follower renews the claim while it runs, and a sweep
 * that takes it over follows the same task. A pause does not live
 * forever: one older than the requestState it holds can no longer be
 * continued.
 */
import { Role, TaskState, type Message, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { A2AError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { AgentEvent, type AgentExecutionEvent, type ServerCallContext } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import type { Armazenamento } from '../armazenamento/armazenamento.js';
import { noBanco } from '../armazenamento/banco.js';
import type { Anotado } from '../armazenamento/diario.js';
import { escopoDe } from '../armazenamento/escopo.js';
import type { PassoGuardado, Pausas, Reivindicacao } from '../armazenamento/pausas.js';
import { Eventos } from '../a2a/eventos.js';
import { avisoDeEstado, type Avisos } from '../push/avisos.js';
import { MENSAGEM_SEM_PAUSA } from '../ponte/ponte.js';
import {
  ehPausa,
  ehSeguimento,
  type Desfecho,
  type Passo,
  type Pausa,
  type Pedido,
  type Respostas,
  type Seguimento,
} from '../ponte/tipos.js';
import { aplicar, ESPERANDO, estadoDo, permitida, terminal, type Fato } from './maquina.js';

export interface Limites {
  readonly maxPausadas: number;
  readonly validadeMs: number;
  /** How long a claim holds: longer than the MCP call it covers may take (AGENTE_MCP_TIMEOUT_SECONDS). */
  readonly prazoMs: number;
}

export const MENSAGEM_DE_PAUSA_EXPIRADA =
  'A pergunta expirou sem resposta (o estado pendente no servidor MCP vale por tempo limitado): envie o pedido de novo.';

/**
 * Another run of the same step holds the Task (the turn was lost with a
 * database connection, or a sweep took over a slow step): nothing is
 * changed. An A2AError, so the client hears this message, not "database
 * unavailable".
 */
const passoOcupado = (taskId: string) =>
  new A2AError(`A Task ${taskId} ja esta sendo respondida por outra chamada: consulte a Task para ver o desfecho.`);

/** The Task a transition is about, as its caller sees it. */
export interface Alvo {
  readonly taskId: string;
  readonly contexto: ServerCallContext;
}

/** A Task's open step as read inside a transition, saying whether a pause outlived its requestState. */
export type Aberto = PassoGuardado & { readonly expirada: boolean };

/** What a committed transition left. */
export interface Transicao {
  /** The Task as stored. */
  readonly task: Task;
  /** The Task once the client's message joined its history, before the events: what a continuation's stream shows first. */
  readonly retrato: Task;
  /** Where the Task's log stood before this transition's events. */
  readonly posicaoAntes: number;
  /** The events recorded, each with its log sequence (its SSE id). */
  readonly anotados: readonly Anotado[];
}

/** What a transition does, decided from the Task and its step as they stand inside the transaction. */
interface Decisao {
  /** The table's row; absent when only the step changes (the Task is finished or gone). */
  readonly fato?: Fato;
  /** The client's message, joining the Task's history before the events. */
  readonly mensagem?: Message;
  /** A new Task's contextId (an existing Task keeps its own). */
  readonly contextId?: string;
  readonly eventos?: (eventos: Eventos) => AgentExecutionEvent[];
  readonly passo?: (pausas: Pausas) => Promise<unknown>;
  /** A new question: how many Tasks are paused is read in the same transaction (the cap, see Varredura.conterExcesso). */
  readonly contarPausadas?: boolean;
}

/** What a decision is taken on: the Task and its open step as they stand inside the transaction. */
interface Atual {
  readonly task?: Task;
  readonly aberto?: Aberto;
}

/** How the webhooks hear a transition: every event, as a request's stream shows them; or the Task's new status alone. */
type Aviso = 'eventos' | 'estado';

/** The events that tell a step's outcome: an artifact first when there is one, then the Task's new status. */
export function eventosDo(desfecho: Desfecho, eventos: Eventos): AgentExecutionEvent[] {
  const estado = estadoDo(desfecho);
  switch (desfecho.estado) {
    case 'concluida':
      return [eventos.artefato(desfecho.artefato), eventos.estado(estado, desfecho.mensagem)];
    case 'pausada':
      return [eventos.estado(estado, desfecho.mensagem, desfecho.dados)];
    default:
      return [eventos.estado(estado, desfecho.mensagem)];
  }
}

export class Ciclo {
  constructor(
    private readonly armazenamento: Pick<Armazenamento, 'juntos' | 'campainha'>,
    private readonly limites: Limites,
    /** This agent, as claims name their owner. */
    readonly por: string,
    private readonly avisos?: Pick<Avisos, 'enviar'>,
    private readonly agora: () => number = Date.now,
  ) {}

  /** A new Task's request, dated now. */
  pedido(pedido: Omit<Pedido, 'criadaEm'>): Pedido {
    return { ...pedido, criadaEm: this.agora() };
  }

  /**
   * abrir: the Task is stored SUBMITTED then WORKING, with its request
   * claimed by this agent, before MCP is asked anything: a step cut short
   * anywhere is replayed by a sweep, never lost, and no booking outlives a
   * Task never stored.
   */
  async abrir(alvo: Alvo, mensagem: Message, pedido: Pedido): Promise<Transicao> {
    const decidir = ({ task }: Atual): Decisao => {
      if (task) throw new RequestMalformedError(`A Task ${alvo.taskId} ja existe.`);
      return {
        fato: 'abrir',
        contextId: mensagem.contextId,
        eventos: (eventos) => [eventos.tarefaNova(mensagem), eventos.estado(TaskState.TASK_STATE_WORKING)],
        passo: (pausas) => pausas.guardar(alvo.taskId, pedido, this.reivindicacao()),
      };
    };
    // A new Task has no step to read: the request's claim replaces whatever the id could hold.
    return mudou(await this.transitar(alvo, decidir, { lerPasso: false }));
  }

  /** progredir: the server reported progress during the call, told as a WORKING status with its message. */
  async progredir(alvo: Alvo, texto: string): Promise<Transicao> {
    const decidir = (): Decisao => ({ fato: 'progredir', eventos: (eventos) => [eventos.estado(TaskState.TASK_STATE_WORKING, texto)] });
    // Progress leaves the claimed step as it is: nothing of it is read.
    return mudou(await this.transitar(alvo, decidir, { lerPasso: false }));
  }

  /**
   * concluir: a step's outcome, written only if the claim is still this
   * agent's (a step slower than its lease may have been taken over by a
   * sweep; that replay's outcome stands). What it does to the step: a
   * finished Task has none; a new question is kept, dated now; the same
   * question is released as it was; an uncertain call stays claimed,
   * expired at once, for the sweep to replay. Outside a request (a
   * sweep's replay), a Task already finished only loses its step.
   */
  concluir(
    alvo: Alvo,
    desfecho: Desfecho,
    passo: Passo,
    { respostas, foraDoPedido = false }: { respostas?: Respostas; foraDoPedido?: boolean } = {},
  ): Promise<(Transicao & { pausadas?: number }) | undefined> {
    return this.transitar(
      alvo,
      ({ task, aberto }) => {
        if (aberto?.reivindicacao?.por !== this.por) throw passoOcupado(alvo.taskId);
        // An uncertain outcome leaves for the sweep the MCP task the step follows by now, if another agent can follow it
        // (not a stdio child's, which ended with its process), rather than the call that started it.
        const seguivel = ehSeguimento(aberto.passo) && aberto.passo.tarefaMcp.local !== true;
        const depois = this.depoisDo(alvo.taskId, desfecho, desfecho.estado === 'incerto' && seguivel ? aberto.passo : passo, respostas);
        if (foraDoPedido && (!task || terminal(task))) return { passo: (pausas) => pausas.apagar(alvo.taskId) };
        // A sweep's replay of a step whose Task waits (a pause claimed with no answer, written before answers were kept): the step alone.
        if (foraDoPedido && !permitida('concluir', task?.status?.state, estadoDo(desfecho))) return { passo: depois };
        return {
          fato: 'concluir',
          eventos: (eventos) => eventosDo(desfecho, eventos),
          passo: depois,
          contarPausadas: desfecho.estado === 'pausada' && desfecho.pergunta !== undefined,
        };
      },
      { aviso: foraDoPedido ? 'estado' : 'eventos' },
    );
  }

  /**
   * An answer to the Task: refused as the SDK refuses a message to a
   * finished Task, before it enters history; to a Task not waiting (its
   * step runs, here or elsewhere) it joins the history and changes
   * nothing. To a waiting Task, `escolher` reads it against the question:
   * either it decides the outcome by itself (decidir), or the answer is
   * claimed with the WORKING state before MCP hears it (responder).
   */
  async receber(
    alvo: Alvo,
    mensagem: Message,
    escolher: (pausa: Pausa) => { respostas: Respostas } | Desfecho,
  ): Promise<Transicao & { readonly resposta?: { pausa: Pausa; respostas: Respostas }; readonly expirada: boolean }> {
    let resposta: { pausa: Pausa; respostas: Respostas } | undefined;
    let expirada = false;
    const transicao = await this.transitar(alvo, ({ task, aberto }): Decisao => {
      if (!task) throw new TaskNotFoundError(`Task not found: ${alvo.taskId}`);
      const estado = task.status?.state;
      // The SDK's own checks and words for a message to an existing Task.
      if (terminal(task))
        throw new UnsupportedOperationError(`Task ${task.id} is in a terminal state (${String(estado)}) and cannot be modified.`);
      if (mensagem.contextId && task.contextId && mensagem.contextId !== task.contextId)
        throw new RequestMalformedError(
          `contextId mismatch: message contextId '${mensagem.contextId}' does not match task '${task.id}' contextId '${task.contextId}'`,
        );
      if (estado === undefined || !ESPERANDO.has(estado)) return { fato: 'anotar', mensagem };
      const decidido = (desfecho: Desfecho, passo: Passo | undefined): Decisao => ({
        fato: 'decidir',
        mensagem,
        eventos: (eventos) => eventosDo(desfecho, eventos),
        passo: this.depoisDo(alvo.taskId, desfecho, passo),
      });
      const falhou = (texto: string): Desfecho => ({ estado: 'falhou', mensagem: texto });
      if (!aberto || !ehPausa(aberto.passo)) return decidido(falhou(MENSAGEM_SEM_PAUSA), undefined);
      if (aberto.expirada) {
        expirada = true;
        return decidido(falhou(MENSAGEM_DE_PAUSA_EXPIRADA), undefined);
      }
      const pausa = aberto.passo;
      const escolha = escolher(pausa);
      if ('estado' in escolha) return decidido(escolha, pausa);
      resposta = { pausa, respostas: escolha.respostas };
      return {
        fato: 'responder',
        mensagem,
        eventos: (eventos) => [eventos.estado(TaskState.TASK_STATE_WORKING)],
        passo: async (pausas) => {
          if (!(await pausas.reivindicar(alvo.taskId, this.reivindicacao(escolha.respostas), this.agora())))
            throw passoOcupado(alvo.taskId);
        },
      };
    });
    return { ...mudou(transicao), resposta, expirada };
  }

  /**
   * cancelar, at a client's request: a Task already CANCELED is answered as
   * it is; a finished one, or one whose call is being run (it may be
   * booking: canceled now, its booking would outlive a CANCELED Task), is
   * not cancelable. The SDK's words, but for the running call. A 2026
   * MCP task waiting on the removed question goes to `aoLargar`, once
   * committed.
   */
  async cancelar(alvo: Alvo, aoLargar: (pausa: Pausa) => void = () => undefined): Promise<{ task: Task; cancelada: boolean }> {
    let jaCancelada: Task | undefined;
    let largada: Pausa | undefined;
    const transicao = await this.transitar(
      alvo,
      ({ task, aberto }): Decisao => {
        if (!task) throw new TaskNotFoundError(`Task not found: ${alvo.taskId}`);
        if (task.status?.state === TaskState.TASK_STATE_CANCELED) {
          jaCancelada = task;
          return {};
        }
        if (terminal(task)) throw new TaskNotCancelableError(`Task not cancelable: ${alvo.taskId}`);
        if (aberto?.reivindicacao)
          throw new TaskNotCancelableError(
            `A Task ${alvo.taskId} tem uma chamada em andamento no servidor MCP, que pode ter efeito: aguarde o desfecho dela.`,
          );
        largada = aguardaTarefa(aberto);
        return { fato: 'cancelar', eventos: (eventos) => [cancelamento(eventos)], passo: (pausas) => pausas.apagar(alvo.taskId) };
      },
      { aviso: 'estado' },
    );
    if (largada) aoLargar(largada);
    return jaCancelada ? { task: jaCancelada, cancelada: false } : { task: mudou(transicao).task, cancelada: true };
  }

  /**
   * descartar: a pause nobody is answering ends FAILED with `mensagem`
   * (expired, or over the cap). Answers whether it did: a claimed step is
   * left alone, and a Task already finished only loses its step. A 2026
   * MCP task waiting on the removed question goes to `aoLargar`, once committed.
   */
  async descartar(alvo: Alvo, mensagem: string, aoLargar: (pausa: Pausa) => void = () => undefined): Promise<boolean> {
    let descartada = false;
    let largada: Pausa | undefined;
    await this.transitar(
      alvo,
      ({ task, aberto }): Decisao => {
        if (!aberto || aberto.reivindicacao) return {};
        descartada = true;
        largada = aguardaTarefa(aberto);
        const apagar = (pausas: Pausas) => pausas.apagar(alvo.taskId);
        if (!task || terminal(task)) return { passo: apagar };
        return { fato: 'descartar', eventos: (eventos) => [eventos.estado(TaskState.TASK_STATE_FAILED, mensagem)], passo: apagar };
      },
      { aviso: 'estado' },
    );
    if (largada) aoLargar(largada);
    return descartada;
  }

  /**
   * The step's call became an MCP task, which this agent follows: the step
   * is now that task (whoever takes it over follows the same task, and
   * never calls the tool again), claimed for one more lease. Called again
   * while the task runs, it renews the lease. False when the claim is no
   * longer this agent's (a sweep took the step over): nothing is written.
   */
  async acompanhar(alvo: Alvo, seguimento: Seguimento): Promise<boolean> {
    let nosso = false;
    await this.transitar(
      alvo,
      ({ aberto }): Decisao => {
        if (aberto?.reivindicacao?.por !== this.por) return {};
        nosso = true;
        return { passo: (pausas) => pausas.guardar(alvo.taskId, seguimento, this.reivindicacao()) };
      },
      { aviso: 'estado' },
    );
    return nosso;
  }

  /** How often a follower renews its claim: three times a lease, so one renewal lost to a busy database costs nothing. */
  get renovacaoMs(): number {
    return this.limites.prazoMs / 3;
  }

  /**
   * A step whose claim ran out, claimed anew by this agent (of two sweeps,
   * one gets it): the step and the answer it carried, to be run again.
   */
  async retomar(alvo: Alvo): Promise<{ passo: Passo; respostas?: Respostas } | undefined> {
    let retomado: { passo: Passo; respostas?: Respostas } | undefined;
    await this.transitar(
      alvo,
      ({ aberto }): Decisao => {
        const anterior = aberto?.reivindicacao;
        if (!aberto || !anterior || anterior.ate >= this.agora()) return {};
        return {
          passo: async (pausas) => {
            const passo = await pausas.reivindicar(alvo.taskId, this.reivindicacao(anterior.respostas), this.agora());
            if (passo) retomado = { passo, ...(anterior.respostas ? { respostas: anterior.respostas } : {}) };
          },
        };
      },
      { aviso: 'estado' },
    );
    return retomado;
  }

  /**
   * The one write path: in one transaction, the Task's log held (two
   * transitions of one Task, even on two agents, number their events one
   * after the other), the Task and (unless the row needs none) its step
   * read, the decision taken and checked against the table, then the
   * step, the Task and the log written. Nothing is written before every check passed: in memory, a
   * refusal leaves all as it was, as a rollback does in SQL.
   */
  private async transitar(
    alvo: Alvo,
    decidir: (atual: Atual) => Decisao,
    { aviso = 'eventos', lerPasso = true }: { aviso?: Aviso; lerPasso?: boolean } = {},
  ): Promise<(Transicao & { pausadas?: number }) | undefined> {
    const { taskId, contexto } = alvo;
    let feita: (Transicao & { pausadas?: number; configs: TaskPushNotificationConfig[]; comMensagem: boolean }) | undefined;
    await noBanco(
      this.armazenamento.juntos(async ({ tarefas, pausas, diario, webhooks }) => {
        await diario.ocupar(taskId);
        const task = await tarefas.load(taskId, contexto);
        const guardado = lerPasso ? await pausas.ler(taskId) : undefined;
        const aberto = guardado && { ...guardado, expirada: ehPausa(guardado.passo) && this.expirou(guardado.passo.criadaEm) };
        const decisao = decidir({ task, aberto });
        if (decisao.fato === undefined) {
          await decisao.passo?.(pausas);
          return;
        }
        const eventos = decisao.eventos?.(new Eventos(taskId, task?.contextId ?? decisao.contextId ?? '')) ?? [];
        const aplicado = aplicar(task, decisao.mensagem, eventos);
        if (!permitida(decisao.fato, task?.status?.state, aplicado.task.status?.state))
          throw new A2AError(
            `Transicao recusada: ${decisao.fato} de ${String(task?.status?.state)} para ${String(aplicado.task.status?.state)} (Task ${taskId}).`,
          );
        await decisao.passo?.(pausas);
        await tarefas.save(aplicado.task, contexto);
        const ultima = await diario.anotar(taskId, escopoDe(contexto), aplicado.registros);
        const posicaoAntes = ultima - aplicado.registros.length;
        feita = {
          task: aplicado.task,
          retrato: aplicado.retrato,
          posicaoAntes,
          anotados: aplicado.registros.map((evento, i) => ({ seq: posicaoAntes + 1 + i, evento })),
          // Read only when there is something to tell, and someone to tell it.
          configs: this.avisos && aplicado.registros.length > 0 ? await webhooks.load(taskId, contexto) : [],
          comMensagem: task !== undefined && decisao.mensagem !== undefined,
          ...(decisao.contarPausadas ? { pausadas: await pausas.total() } : {}),
        };
      }),
    );
    if (!feita) return undefined;
    this.armazenamento.campainha.tocar(taskId);
    const { configs, comMensagem, ...transicao } = feita;
    if (configs.length > 0) {
      const respostas =
        aviso === 'estado'
          ? [avisoDeEstado(transicao.task)]
          : [
              // A continuation's stream shows the Task first: so do its webhooks.
              ...(comMensagem ? [{ payload: { $case: 'task' as const, value: transicao.retrato } }] : []),
              ...transicao.anotados.map(({ evento }) => evento),
            ];
      this.avisos?.enviar(taskId, respostas, configs);
    }
    return transicao;
  }

  /**
   * What a step's outcome does to the step: a finished Task has none; a
   * new question is kept, dated now; the same question is released as it
   * was; an uncertain call stays claimed, expired at once, for the sweep.
   */
  private depoisDo(taskId: string, desfecho: Desfecho, passo: Passo | undefined, respostas?: Respostas) {
    const { pergunta } = desfecho.estado === 'pausada' ? desfecho : {};
    if (pergunta) return (pausas: Pausas) => pausas.guardar(taskId, { ...pergunta, criadaEm: this.agora() });
    if (passo && desfecho.estado === 'pausada') return (pausas: Pausas) => pausas.guardar(taskId, passo);
    if (passo && desfecho.estado === 'incerto')
      return (pausas: Pausas) => pausas.guardar(taskId, passo, { ...this.reivindicacao(respostas), ate: this.agora() });
    return (pausas: Pausas) => pausas.apagar(taskId);
  }

  private reivindicacao(respostas?: Respostas): Reivindicacao {
    return { por: this.por, ate: this.agora() + this.limites.prazoMs, ...(respostas ? { respostas } : {}) };
  }

  /** Whether a pause created at `criadaEm` can no longer be answered. */
  expirou(criadaEm: number): boolean {
    return this.agora() - criadaEm >= this.validade;
  }

  /**
   * How long a pause is answerable: its requestState's lifetime less one
   * claim (at most half of it). An answer whose call goes uncertain must
   * still be replayable before the server stops accepting the state.
   */
  get validade(): number {
    return this.limites.validadeMs - Math.min(this.limites.prazoMs, this.limites.validadeMs / 2);
  }
}

/** The pause a 2026 MCP task waits on, if the step is one: told after the commit that ends it, for its server to hear. */
const aguardaTarefa = (aberto: Aberto | undefined): Pausa | undefined =>
  aberto && ehPausa(aberto.passo) && aberto.passo.tarefaMcp ? aberto.passo : undefined;

/** A transition whose row always changes the Task. */
function mudou<T>(transicao: T | undefined): T {
  if (transicao === undefined) throw new Error('uma transicao da tabela que nao mudou a Task');
  return transicao;
}

/** The SDK's own cancel status (its words and message shape), as it writes it for a Task with no execution running. */
function cancelamento({ taskId, contextId }: Eventos): AgentExecutionEvent {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: {
      state: TaskState.TASK_STATE_CANCELED,
      message: {
        role: Role.ROLE_AGENT,
        messageId: randomUUID(),
        taskId,
        contextId,
        parts: [
          {
            content: { $case: 'text', value: 'Task cancellation requested by user.' },
            mediaType: 'text/plain',
            filename: '',
            metadata: {},
          },
        ],
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      },
      timestamp: new Date().toISOString(),
    },
    metadata: {},
  });
}
