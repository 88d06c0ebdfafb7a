/**
 * The SDK's request handler, with these things of ours around it:
 *  - a message is served by the Task lifecycle (ciclo/), not by the
 *    SDK's executor and event bus: each transition is one transaction,
 *    and the answer and the stream show what each one committed;
 *  - every change to an existing Task is made in that Task's turn (see
 *    exclusao.ts). The turn is taken before the SDK reads the Task, so of
 *    many answers racing for one pause the first is served and each of the
 *    others then meets the Task as the first left it: a finished Task
 *    refuses the message before it enters history;
 *  - a stream is run to its end whatever its reader does: a client gone
 *    mid-stream loses nothing, the Task finishes and is stored;
 *  - a stream follows its Task through the event log (acompanhamento.ts)
 *    wherever its steps run, every event with its SSE id, and a client
 *    back with Last-Event-ID gets what it missed (see resubscribe);
 *  - a push-notification webhook is accepted only on an allowed host, a
 *    Task keeps at most a few, and their secrets are never read back.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { ExtensionSupportRequiredError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultRequestHandler,
  STATE_HEADERS_KEY,
  type AgentExecutor,
  type ExtendedAgentCardProvider,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import { Role } from '@a2a-js/sdk';
import { escopoDe } from '../armazenamento/escopo.js';
import { fimDoPedido, idDoProximoEvento } from '../http/sse.js';
import { temControle } from '../http/estrito.js';
import { para, taskDoEvento, type Acompanhamento } from './acompanhamento.js';
import { conferirWebhook, semSegredos, type Push } from '../push/cadastro.js';
import { terminal } from '../ciclo/maquina.js';
import type { Ciclo, Transicao } from '../ciclo/ciclo.js';
import type { Exclusao } from '../armazenamento/exclusao.js';
import type { AoGravar, Conducao } from './conducao.js';
import type { Ponte } from '../ponte/ponte.js';

/**
 * Names a client chooses, cut to what the database columns hold (the SDK's
 * schema): past them a write would fail as a database error, not as the
 * client's mistake.
 */
const LIMITES = { contextId: 36, tenant: 255, referenceTaskIds: 16 };

/** A streamed event and its sequence in its Task's log (its SSE id), when it has one. */
interface Posicionado {
  readonly evento: StreamResponse;
  readonly seq: number | undefined;
}

/** Reads a snapshot at most this often while events keep arriving, then takes the last (its events may come twice). */
const TENTATIVAS_DE_RETRATO = 3;

/**
 * The Last-Event-ID header of a reconnecting SSE client: the sequence of
 * the last event it read. Anything but a plain non-negative integer (two
 * headers joined, a sign, spaces) is refused: it was never an id of ours.
 */
function ultimoVisto(context: ServerCallContext): number | undefined {
  const headers = context.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
  const valor = headers?.['last-event-id'];
  if (valor === undefined) return undefined;
  if (typeof valor !== 'string' || !/^\d{1,15}$/.test(valor))
    throw new RequestMalformedError('Last-Event-ID invalido: deve ser o id de um evento deste stream (um inteiro nao negativo).');
  return Number(valor);
}

/**
 * The SDK's constructor wants an executor; every message goes to Conducao
 * instead, so the SDK never runs one (a cancel included: see cancelTask).
 */
const SEM_EXECUTOR: AgentExecutor = {
  execute: () => Promise.reject(new Error('as mensagens sao servidas pela Conducao')),
  cancelTask: () => Promise.reject(new Error('os cancelamentos sao servidos pelo Ciclo')),
};

/**
 * A Task id with a control character names no Task of ours (they are
 * UUIDs), and the SDK prints a stream's refusal to stderr with the id as
 * it came: a line break in it would forge a log line. Refused without
 * repeating it.
 */
function semControle(taskId: string): void {
  if (temControle(taskId)) throw new RequestMalformedError('O id da Task nao pode ter caracteres de controle.');
}

/** historyLength as the SDK reads it: all, none (0 or less), or the last N messages. */
function comHistorico(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength <= 0 ? [] : task.history.slice(-historyLength) };
}

export class Atendimento extends DefaultRequestHandler {
  constructor(
    private readonly card: AgentCard,
    /** Read only: every write of a Task is a transition of the lifecycle. */
    private readonly tarefas: TaskStore,
    private readonly conducao: Conducao,
    private readonly ciclo: Pick<Ciclo, 'cancelar'>,
    private readonly exclusao: Exclusao,
    private readonly push: Push,
    private readonly acompanhamento: Acompanhamento,
    private readonly log: (linha: string) => void,
    /**
     * Cancels the Task's MCP call running in this process, when it may be
     * (Ponte.cancelar); and a 2026 MCP task waiting on the Task's question
     * (Ponte.largar).
     */
    private readonly mcp: Pick<Ponte, 'cancelar' | 'largar'> = { cancelar: () => false, largar: () => undefined },
    /** With AGENTE_TOKENS, GetExtendedAgentCard's answer (estendido.ts), signed by it: the SDK's signer would sign its message form. */
    cardEstendido?: ExtendedAgentCardProvider,
    /** The longest a blocking SendMessage waits for its step (see bloqueando); none without it. */
    private readonly esperaBloqueanteMs?: number,
  ) {
    // A paused Task needs no live event bus: its continuation is a new SendMessage.
    super(card, tarefas, SEM_EXECUTOR, undefined, push.configs, push.avisos, cardEstendido, undefined, { keepBusAliveStates: [] });
  }

  /**
   * Blocking, the Task once its step is done (bounded: see bloqueando).
   * With returnImmediately, a new Task as first stored (SUBMITTED), its
   * step going on; an answer is always answered blocking: the turn lasts
   * until its step is done.
   */
  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const { mensagem, nova } = await this.receber(params, context);
    const historyLength = params.configuration?.historyLength;
    if (!nova)
      return comHistorico(
        await this.bloqueando(mensagem.taskId, (aoGravar) =>
          this.exclusao.com(mensagem.taskId, () => this.conducao.continuar(mensagem, context, aoGravar)),
        ),
        historyLength,
      );
    if (!params.configuration?.returnImmediately)
      return comHistorico(
        await this.bloqueando(mensagem.taskId, (aoGravar) => this.conducao.abrir(mensagem, context, aoGravar)),
        historyLength,
      );
    return new Promise((resolver, rejeitar) => {
      let respondida = false;
      this.conducao
        .abrir(mensagem, context, ({ retrato }) => {
          if (respondida) return;
          respondida = true;
          resolver(comHistorico(retrato, historyLength));
        })
        .catch((erro: unknown) => {
          if (respondida)
            this.log(`Task ${mensagem.taskId} falhou depois da resposta: ${erro instanceof Error ? erro.message : String(erro)}`);
          else rejeitar(erro instanceof Error ? erro : new Error(String(erro)));
        });
    });
  }

  /**
   * A blocking request's Task: once its step is done; or, for a step still
   * running after esperaBloqueanteMs (an MCP task may run for hours), the
   * Task as its last committed transition left it (WORKING), the step going
   * on, for the client to follow as after returnImmediately.
   */
  private bloqueando(taskId: string, passo: (aoGravar: AoGravar) => Promise<Task>): Promise<Task> {
    return new Promise((resolver, rejeitar) => {
      let ultima: Task | undefined;
      let respondida = false;
      const responder = (task: Task) => {
        if (respondida) return;
        respondida = true;
        clearTimeout(relogio);
        resolver(task);
      };
      const relogio =
        this.esperaBloqueanteMs === undefined ? undefined : setTimeout(() => ultima && responder(ultima), this.esperaBloqueanteMs).unref();
      passo(({ task }) => (ultima = task)).then(responder, (erro: unknown) => {
        clearTimeout(relogio);
        if (respondida) this.log(`Task ${taskId} falhou depois da resposta: ${erro instanceof Error ? erro.message : String(erro)}`);
        else rejeitar(erro instanceof Error ? erro : new Error(String(erro)));
      });
    });
  }

  /** Each committed transition's events, each with its log sequence as id; an answer's stream shows the Task first. */
  override sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const historyLength = params.configuration?.historyLength;
    // A refusal reaches the transport at the first read, before it writes any header.
    const doCiclo = ateOFim<Posicionado>(async (emitir) => {
      if (!this.card.capabilities?.streaming) throw new UnsupportedOperationError('Streaming is not supported.');
      const { mensagem, nova } = await this.receber(params, context);
      const mostrar = (transicao: Transicao, primeira: boolean) => {
        if (primeira)
          emitir({
            evento: { payload: { $case: 'task', value: comHistorico(transicao.retrato, historyLength) } },
            seq: transicao.posicaoAntes,
          });
        for (const { seq, evento } of transicao.anotados)
          emitir({
            evento:
              evento.payload?.$case === 'task'
                ? { payload: { $case: 'task', value: comHistorico(evento.payload.value, historyLength) } }
                : evento,
            seq,
          });
      };
      await (nova
        ? this.conducao.abrir(mensagem, context, mostrar)
        : this.exclusao.com(mensagem.taskId, () => this.conducao.continuar(mensagem, context, mostrar)));
    }, this.log);
    return this.eDepois(doCiclo, context);
  }

  /**
   * SubscribeToTask from the Task's event log, never from the in-process
   * bus (the SDK's resubscribe yields the stored Task and then only the
   * events of a step running in this process). Without Last-Event-ID: the
   * Task as stored (a finished one refused, as the SDK does), then its
   * events until it stops; a paused Task's subscription stays open for the
   * answer's continuation, wherever it runs. With Last-Event-ID: the events
   * after it, replayed from the log, then live ones; a finished Task's
   * replay ends with what it keeps. An id the Task never had is refused;
   * one older than what the Task keeps gets the Task as it is, as a new
   * subscription does, so the client starts over from a whole state.
   */
  override async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const taskId = params.id;
    // The SDK's own check and words.
    if (!taskId.trim()) throw new RequestMalformedError('Task ID is required');
    semControle(taskId);
    const visto = ultimoVisto(context);
    const escopo = escopoDe(context);
    if (visto !== undefined) {
      const guardados = await this.acompanhamento.extremos(taskId, escopo);
      const task = await this.tarefaConhecida(taskId, context);
      const ultima = guardados?.ultima ?? 0;
      if (visto > ultima)
        throw new RequestMalformedError(
          `Last-Event-ID ${String(visto)} desconhecido: o ultimo evento da Task ${taskId} e ${String(ultima)}.`,
        );
      if (visto >= (guardados?.primeira ?? 1) - 1) {
        if (terminal(task)) yield* this.comIds(this.acompanhamento.guardados(taskId, escopo, visto));
        else yield* this.comIds(this.acompanhamento.seguir(taskId, escopo, visto, fimDoPedido()));
        return;
      }
    }
    const { task, seq } = await this.retrato(taskId, escopo, context);
    if (terminal(task) && visto === undefined)
      throw new UnsupportedOperationError(
        `Task ${taskId} is in a terminal state (${String(task.status?.state)}) and cannot be subscribed to.`,
      );
    idDoProximoEvento(seq);
    yield { payload: { $case: 'task', value: task } };
    if (!terminal(task)) yield* this.comIds(this.acompanhamento.seguir(taskId, escopo, seq, fimDoPedido()));
  }

  /**
   * A cancel in the Task's turn, through the lifecycle. A call running in
   * this process is told to stop first (the running step holds the turn):
   * it then ends the Task CANCELED itself, and the cancel finds it so.
   */
  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    // The SDK's own check and words.
    if (!params.id.trim()) throw new RequestMalformedError('Task ID is required');
    await this.conferirDono(params.id, context);
    this.mcp.cancelar(params.id);
    const { task } = await this.exclusao.com(params.id, () =>
      this.ciclo.cancelar({ taskId: params.id, contexto: context }, (pausa) => this.mcp.largar(pausa)),
    );
    return task;
  }

  override async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    await conferirWebhook(params.taskId, params, context, this.push);
    return super.createTaskPushNotificationConfig(params, context);
  }

  override async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return semSegredos(await super.getTaskPushNotificationConfig(params, context));
  }

  override async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const lista = await super.listTaskPushNotificationConfigs(params, context);
    return { ...lista, configs: lista.configs.map(semSegredos) };
  }

  /**
   * The SDK's events, and after them, when the step went on elsewhere (its
   * call's outcome uncertain, replayed by a sweep on any agent; a message
   * to a Task another agent is running), the Task's events from the log
   * until it stops, while the client is there.
   */
  private async *eDepois(doSdk: AsyncGenerator<Posicionado, void, undefined>, context: ServerCallContext) {
    let ultimo: Posicionado | undefined;
    for await (const posicionado of doSdk) {
      idDoProximoEvento(posicionado.seq);
      yield posicionado.evento;
      ultimo = posicionado;
    }
    const taskId = ultimo && taskDoEvento(ultimo.evento);
    if (!ultimo || ultimo.seq === undefined || taskId === undefined || para(ultimo.evento)) return;
    yield* this.comIds(this.acompanhamento.seguir(taskId, escopoDe(context), ultimo.seq, fimDoPedido()));
  }

  /** Each event of the log with its sequence as SSE id. */
  private async *comIds(anotados: AsyncGenerator<{ readonly seq: number; readonly evento: StreamResponse }, void, undefined>) {
    for await (const { seq, evento } of anotados) {
      idDoProximoEvento(seq);
      yield evento;
    }
  }

  /**
   * The Task as stored and the log position it reflects: the position read
   * before and after the Task, again if an event came between. Past the
   * tries, the position read before: an event may then come twice, never
   * be missed.
   */
  private async retrato(taskId: string, escopo: string, context: ServerCallContext): Promise<{ task: Task; seq: number }> {
    for (let tentativa = 1; ; tentativa++) {
      const antes = (await this.acompanhamento.extremos(taskId, escopo))?.ultima ?? 0;
      const task = await this.tarefaConhecida(taskId, context);
      const depois = (await this.acompanhamento.extremos(taskId, escopo))?.ultima ?? 0;
      if (antes === depois || tentativa === TENTATIVAS_DE_RETRATO) return { task, seq: antes };
    }
  }

  /**
   * A Task's turn is keyed by its id alone: an identity that waited in the
   * turn of another's Task would learn, by the wait, that it is running, and
   * could hold it. So an identified caller's Task is looked up first, and a
   * Task not theirs is refused at once, as the SDK refuses an unknown id
   * (which it checks again inside the turn). Without identities every
   * caller is the same one, and this read is skipped.
   */
  private async conferirDono(taskId: string, context: ServerCallContext): Promise<void> {
    if (!context.user?.isAuthenticated) return;
    await this.tarefaConhecida(taskId, context);
  }

  /** The Task as its caller may see it, or the SDK's own refusal of an unknown id (another identity's Task reads as one). */
  private async tarefaConhecida(taskId: string, context: ServerCallContext): Promise<Task> {
    const task = await this.tarefas.load(taskId, context);
    if (!task) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    return task;
  }

  /**
   * A message checked as the SDK checks it and then as we do, with the
   * Task's ids filled in (a new Task's are made here); a webhook it brings
   * is registered for its Task.
   */
  private async receber(params: SendMessageRequest, context: ServerCallContext): Promise<{ mensagem: Message; nova: boolean }> {
    const recebida = params.message;
    // The SDK's own checks and words.
    if (!recebida?.messageId) throw new RequestMalformedError('message.messageId is required.');
    await this.conferirPedido(params, context);
    const exigidas = (this.card.capabilities?.extensions ?? []).filter(
      (extensao) => extensao.required && !context.requestedExtensions?.includes(extensao.uri),
    );
    if (exigidas.length > 0)
      throw new ExtensionSupportRequiredError(
        `Client must declare support for required extensions: ${exigidas.map(({ uri }) => uri).join(', ')}`,
      );
    if (context.requestedExtensions) {
      // The extensions the response names as activated: only those this agent has.
      const conhecidas = new Set((this.card.capabilities?.extensions ?? []).map(({ uri }) => uri));
      context.setRequestedExtensions(context.requestedExtensions.filter((uri) => conhecidas.has(uri)));
    }
    const nova = !recebida.taskId;
    if (!nova && !recebida.taskId.trim()) throw new RequestMalformedError('Task ID is required');
    semControle(recebida.taskId);
    if (!nova) await this.conferirDono(recebida.taskId, context);
    const taskId = recebida.taskId || randomUUID();
    const webhook = params.configuration?.taskPushNotificationConfig;
    if (webhook && this.card.capabilities?.pushNotifications) await this.push.configs.save(taskId, context, { ...webhook, taskId });
    // A new Task's first message carries its ids; an answer enters history as the client sent it, as the SDK keeps it.
    return nova ? { mensagem: { ...recebida, taskId, contextId: recebida.contextId || randomUUID() }, nova } : { mensagem: recebida, nova };
  }

  private async conferirPedido(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    const incompleta = params.message && mensagemIncompleta(params.message);
    if (incompleta) throw new RequestMalformedError(incompleta);
    const contextId = params.message?.contextId ?? '';
    if (contextId.length > LIMITES.contextId) {
      throw new RequestMalformedError(`contextId com mais de ${String(LIMITES.contextId)} caracteres.`);
    }
    if ((context.tenant ?? '').length > LIMITES.tenant) {
      throw new RequestMalformedError(`tenant com mais de ${String(LIMITES.tenant)} caracteres.`);
    }
    // The SDK reads every Task a message refers to.
    if ((params.message?.referenceTaskIds.length ?? 0) > LIMITES.referenceTaskIds) {
      throw new RequestMalformedError(`referenceTaskIds com mais de ${String(LIMITES.referenceTaskIds)} Tasks.`);
    }
    const webhook = params.configuration?.taskPushNotificationConfig;
    // A new Task has no webhook yet; a continuation adds one to those its Task has.
    if (webhook) await conferirWebhook(params.message?.taskId ?? '', webhook, context, this.push);
  }
}

/**
 * What a message lacks of what A2A requires of it (§5.7: a message missing
 * a required field SHOULD be refused, and a required array has at least one
 * item). The SDK reads a missing role as ROLE_UNSPECIFIED and a part
 * without content as an empty one, and would make a Task of either; every
 * binding reaches this check, so each refuses alike, before any Task exists.
 */
function mensagemIncompleta(mensagem: Message): string | undefined {
  if (mensagem.role !== Role.ROLE_USER && mensagem.role !== Role.ROLE_AGENT) return 'message.role deve ser ROLE_USER ou ROLE_AGENT.';
  if (mensagem.parts.length === 0) return 'message.parts deve ter ao menos uma parte (text, data, url ou raw).';
  const vazia = mensagem.parts.findIndex((parte) => parte.content === undefined);
  if (vazia >= 0) return `message.parts[${String(vazia)}] nao traz conteudo: cada parte leva text, data, url ou raw.`;
  return undefined;
}

/**
 * Runs `produzir` to its end whatever the reader does: what it emits is
 * handed to whoever iterates the result, and a reader that stops early
 * stops only its own reading. Its failure reaches the reader, or the log
 * when the reader is gone.
 */
function ateOFim<T>(
  produzir: (emitir: (valor: T) => void) => Promise<void>,
  log: (linha: string) => void,
): AsyncGenerator<T, void, undefined> {
  const fila: T[] = [];
  let fim: { erro?: unknown } | undefined;
  let lendo = true;
  let acordar = (): void => undefined;
  void produzir((valor) => {
    fila.push(valor);
    acordar();
  })
    .then(
      () => (fim = {}),
      (erro: unknown) => {
        fim = { erro };
        if (!lendo) log(`stream sem leitor falhou: ${erro instanceof Error ? erro.message : String(erro)}`);
      },
    )
    .finally(() => acordar());
  return (async function* () {
    try {
      for (;;) {
        if (fila.length > 0) {
          yield* fila.splice(0);
          continue;
        }
        if (fim) {
          if ('erro' in fim) throw fim.erro;
          return;
        }
        await new Promise<void>((resolver) => (acordar = resolver));
      }
    } finally {
      lendo = false;
    }
  })();
}
