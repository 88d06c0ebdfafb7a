/**
 * Push notifications (A2A v1.0 §4.3.3): each StreamResponse of a Task POSTed
 * to the webhooks its client registered. Replaces the SDK's
 * DefaultPushNotificationSender, which gives one try of 5 s, follows
 * redirects (a way round any host check, into the agent's own network),
 * never re-checks the host and reports on console.error.
 */
import {
  A2A_CONTENT_TYPE,
  StreamResponse,
  TaskStatusUpdateEvent,
  taskStateToJSON,
  type Task,
  type TaskPushNotificationConfig,
  type TaskStatus,
} from '@a2a-js/sdk';
import type { PushNotificationSender, PushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server';
import { setTimeout as esperar } from 'node:timers/promises';
import { campos } from 'compartilhado/log';
import { semColchetes } from '../config.js';

export interface OpcoesDosAvisos {
  /** Hosts a webhook may name (AGENTE_PUSH_HOSTS), checked again at every delivery. */
  readonly hosts: ReadonlySet<string>;
  readonly log: (linha: string) => void;
  /** Attempts per delivery, the first included. */
  readonly tentativas?: number;
  /** Wait before the second attempt; it doubles before each one after. */
  readonly esperaInicialMs?: number;
  /** How long one attempt may take before it counts as failed. */
  readonly prazoMs?: number;
  readonly fetch?: typeof fetch;
}

/**
 * Why a webhook URL may not be called, or undefined when it may. The message
 * never repeats the URL: its query string or userinfo may hold a secret.
 */
export function destinoRecusado(url: string, hosts: ReadonlySet<string>): string | undefined {
  if (!URL.canParse(url)) return 'a URL do webhook nao e uma URL absoluta valida';
  const destino = new URL(url);
  if (destino.protocol !== 'http:' && destino.protocol !== 'https:')
    return `o esquema "${destino.protocol}" nao e aceito: apenas http e https`;
  if (destino.username || destino.password)
    return 'a URL do webhook traz usuario ou senha; credenciais vao em authentication, nunca na URL';
  const host = semColchetes(destino.hostname);
  const porta = destino.port || (destino.protocol === 'https:' ? '443' : '80');
  // The list is not repeated: it describes the agent's network to whoever asks.
  if (!hosts.has(host) && !hosts.has(`${destino.hostname}:${porta}`))
    return `o host "${host}" na porta ${porta} nao esta em AGENTE_PUSH_HOSTS`;
  return undefined;
}

/** A Task's current status as the notification a webhook receives for a status change. */
export function avisoDeEstado(task: Task): StreamResponse {
  const statusUpdate = TaskStatusUpdateEvent.fromJSON({ taskId: task.id, contextId: task.contextId });
  statusUpdate.status = task.status;
  return { payload: { $case: 'statusUpdate', value: statusUpdate } };
}

/** The webhook as a log line may show it: its origin only; the path, the query string or the userinfo may hold a secret. */
function destinoNoLog(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : '-';
}

/** The Task a StreamResponse belongs to, as the SDK finds it; a Message outside any Task has none. */
function idDaTask(resposta: StreamResponse): string | undefined {
  const payload = resposta.payload;
  if (!payload) return undefined;
  return (payload.$case === 'task' ? payload.value.id : payload.value.taskId) || undefined;
}

const estado = (status: TaskStatus | undefined) => (status ? taskStateToJSON(status.state) : '-');

/** What a notification carries, for the log: `statusUpdate:TASK_STATE_COMPLETED`, `artifactUpdate`... */
function evento(resposta: StreamResponse): string {
  const payload = resposta.payload;
  switch (payload?.$case) {
    case 'task':
      return `task:${estado(payload.value.status)}`;
    case 'statusUpdate':
      return `statusUpdate:${estado(payload.value.status)}`;
    case 'artifactUpdate':
    case 'message':
      return payload.$case;
    case undefined:
      return '-';
  }
}

/**
 * Both headers when the config has both: the spec (§4.3.3, §13.2) requires
 * `authentication` as the Authorization header, and the token is the
 * client's own check on the notification, which a receiver may read even
 * when the agent also authenticates itself. The SDK sends only one.
 */
function cabecalhos(config: TaskPushNotificationConfig): Headers {
  const resultado = new Headers({ 'Content-Type': A2A_CONTENT_TYPE });
  if (config.token) resultado.set('X-A2A-Notification-Token', config.token);
  const { scheme, credentials } = config.authentication ?? {};
  if (scheme && credentials) resultado.set('Authorization', `${scheme} ${credentials}`);
  return resultado;
}

type Tentativa = { readonly http: number } | { readonly falha: string };

/** Worth another try: the webhook may answer later. A 3xx or another 4xx will answer the same. */
const repetivel = (tentativa: Tentativa) =>
  'falha' in tentativa || tentativa.http === 408 || tentativa.http === 429 || tentativa.http >= 500;

function motivo(tentativa: Tentativa): string {
  if ('falha' in tentativa) return tentativa.falha;
  return tentativa.http >= 300 && tentativa.http < 400 ? `HTTP ${tentativa.http}, redirecionamento nao seguido` : `HTTP ${tentativa.http}`;
}

/** A network failure by its code (ECONNREFUSED...) or its cause: fetch's own message is only "fetch failed". */
function falhaDeRede(erro: unknown, prazoMs: number): string {
  if (!(erro instanceof Error)) return String(erro);
  if (erro.name === 'TimeoutError') return `sem resposta em ${prazoMs} ms`;
  const causa = erro.cause;
  if (!(causa instanceof Error)) return erro.message;
  return 'code' in causa && typeof causa.code === 'string' ? causa.code : causa.message;
}

export class Avisos implements PushNotificationSender {
  /** The last delivery queued for each Task with one pending; the next waits on it. */
  private readonly filas = new Map<string, Promise<void>>();
  private readonly hosts: ReadonlySet<string>;
  private readonly log: (linha: string) => void;
  private readonly tentativas: number;
  private readonly esperaInicialMs: number;
  private readonly prazoMs: number;
  private readonly buscar: typeof fetch;

  constructor(
    private readonly store: PushNotificationStore,
    opcoes: OpcoesDosAvisos,
  ) {
    this.hosts = opcoes.hosts;
    this.log = opcoes.log;
    this.tentativas = opcoes.tentativas ?? 4;
    this.esperaInicialMs = opcoes.esperaInicialMs ?? 250;
    this.prazoMs = opcoes.prazoMs ?? 10_000;
    this.buscar = opcoes.fetch ?? fetch;
  }

  /**
   * Resolves when this notification's deliveries end, delivered or given up;
   * never rejects. The configs are read when its turn comes: one deleted
   * meanwhile gets nothing.
   */
  send(resposta: StreamResponse, contexto: ServerCallContext): Promise<void> {
    const taskId = idDaTask(resposta);
    if (taskId === undefined) return Promise.resolve();
    return this.naFila(taskId, async () => {
      const linha = { task: taskId, evento: evento(resposta) };
      try {
        await this.entregar(resposta, await this.store.load(taskId, contexto), linha);
      } catch (erro) {
        // The store failing (a database down) must not reach the SDK, which would only print it.
        this.log(`push ${campos(linha)} falhou ao ler as configuracoes: ${erro instanceof Error ? erro.message : String(erro)}`);
      }
    });
  }

  /**
   * A committed transition's notifications, to the configs read in its
   * transaction (so telling the webhooks costs the store nothing more).
   * Queued here, synchronously, so a Task's notifications leave in the
   * order its transitions committed, whatever the webhooks' latency.
   */
  enviar(taskId: string, respostas: readonly StreamResponse[], configs: readonly TaskPushNotificationConfig[]): void {
    for (const resposta of respostas)
      void this.naFila(taskId, () => this.entregar(resposta, configs, { task: taskId, evento: evento(resposta) }));
  }

  private naFila(taskId: string, entrega: () => Promise<void>): Promise<void> {
    const anterior = this.filas.get(taskId) ?? Promise.resolve();
    const esta = anterior.then(entrega);
    this.filas.set(taskId, esta);
    return esta.then(() => {
      if (this.filas.get(taskId) === esta) this.filas.delete(taskId);
    });
  }

  /** Resolves once no delivery is pending: a stopping agent waits for it (within its deadline). */
  async ocioso(): Promise<void> {
    while (this.filas.size > 0) await Promise.all(this.filas.values());
  }

  private async entregar(
    resposta: StreamResponse,
    configs: readonly TaskPushNotificationConfig[],
    linha: Record<string, string>,
  ): Promise<void> {
    if (configs.length === 0) return;
    const corpo = JSON.stringify(StreamResponse.toJSON(resposta));
    await Promise.all(configs.map((config) => this.entregarA(config, corpo, linha)));
  }

  private async entregarA(config: TaskPushNotificationConfig, corpo: string, linha: Record<string, string>): Promise<void> {
    const prefixo = `push ${campos({ ...linha, destino: destinoNoLog(config.url) })}`;
    // Checked at delivery too: the config may predate the current AGENTE_PUSH_HOSTS.
    const recusa = destinoRecusado(config.url, this.hosts);
    if (recusa !== undefined) {
      this.log(`${prefixo} recusado: ${recusa}`);
      return;
    }
    let enviar: Headers;
    try {
      enviar = cabecalhos(config);
    } catch {
      // Headers' own error quotes the offending value, a secret; this line does not.
      this.log(`${prefixo} falhou (token ou credenciais com caracteres invalidos num cabecalho HTTP); sem nova tentativa`);
      return;
    }
    for (let numero = 1; ; numero++) {
      const comeco = performance.now();
      const tentativa = await this.tentar(config.url, enviar, corpo);
      const duracao = `${(performance.now() - comeco).toFixed(1)}ms`;
      if ('http' in tentativa && tentativa.http >= 200 && tentativa.http < 300) {
        this.log(`${prefixo} ${campos({ http: tentativa.http, tentativa: numero })} ${duracao}`);
        return;
      }
      const falhou = `${prefixo} ${campos({ tentativa: numero })} ${duracao} falhou (${motivo(tentativa)})`;
      if (!repetivel(tentativa)) {
        this.log(`${falhou}; sem nova tentativa`);
        return;
      }
      if (numero >= this.tentativas) {
        this.log(`${falhou}; desistiu apos ${numero} tentativas`);
        return;
      }
      const espera = this.esperaInicialMs * 2 ** (numero - 1);
      this.log(`${falhou}; nova tentativa em ${espera} ms`);
      // A referenced timer on purpose: the wait is short and bounded, and nothing else keeps a pending retry alive.
      await esperar(espera);
    }
  }

  private async tentar(url: string, enviar: Headers, corpo: string): Promise<Tentativa> {
    try {
      const resposta = await this.buscar(url, {
        method: 'POST',
        headers: enviar,
        body: corpo,
        // A redirect is the webhook choosing another destination, past the host check: a failure, never followed.
        redirect: 'manual',
        // AbortSignal.timeout's timer is unreferenced: the open socket, not the deadline, keeps the process up.
        signal: AbortSignal.timeout(this.prazoMs),
      });
      // Nothing in the answer matters but its status; cancelling frees the socket without reading a body of any size.
      await resposta.body?.cancel();
      return { http: resposta.status };
    } catch (erro) {
      return { falha: falhaDeRede(erro, this.prazoMs) };
    }
  }
}
