/**
 * The official @a2a-js/sdk client, on either binding the card offers, and
 * a webhook that records what push notifications bring: for end-to-end
 * tests of the agent's whole A2A surface.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import {
  ListTasksRequest,
  SendMessageRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Part,
  type SendMessageResult,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { escutar } from 'compartilhado/processo';

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
/** The bindings every agent serves; gRPC only with AGENTE_GRPC_PORTA. */
export const BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const satisfies readonly Binding[];

/** A client built from the agent's card, speaking the binding asked for (gRPC through the SDK's gRPC transport, at the card's address). */
export async function clienteOficial(base: string, binding: Binding): Promise<Client> {
  const opcoes = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    preferredTransports: [binding],
    transports: binding === 'GRPC' ? [new GrpcTransportFactory()] : [],
  });
  const cliente = await new ClientFactory(opcoes).createFromUrl(base);
  assert.equal(cliente.transport.protocolName, binding, 'the card offers this binding');
  return cliente;
}

interface OpcoesDaMensagem {
  readonly taskId?: string;
  readonly contextId?: string;
  /** A push-notification config sent with the message (SendMessageConfiguration.taskPushNotificationConfig). */
  readonly webhook?: { url: string; token: string };
}

/** A user message, in the JSON form: text and data parts, optionally for an existing Task or context. */
export function mensagem(partes: ({ text: string } | { data: unknown })[], { webhook, ...opcoes }: OpcoesDaMensagem = {}) {
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: partes, ...opcoes },
    ...(webhook ? { configuration: { taskPushNotificationConfig: webhook } } : {}),
  });
}

export const texto = (valor: string, opcoes?: OpcoesDaMensagem) => mensagem([{ text: valor }], opcoes);
export const dados = (valor: unknown, opcoes?: OpcoesDaMensagem) => mensagem([{ data: valor }], opcoes);

/** A push-notification config for a Task, as CreateTaskPushNotificationConfig takes it. */
export const configDePush = (taskId: string, url: string, token = '') => TaskPushNotificationConfig.fromJSON({ taskId, url, token });

/** ListTasks of one context, any state (the official client sends an absent state as -1, which servers refuse). */
export const listagem = (contextId: string, campos: { pageSize: number; pageToken?: string; status?: TaskState }) =>
  ListTasksRequest.fromJSON({ contextId, status: TaskState.TASK_STATE_UNSPECIFIED, ...campos });

/** A SendMessage answered with a Task; an answer that is a bare Message fails here. */
export function comoTarefa(resultado: SendMessageResult): Task {
  if ('status' in resultado) return resultado;
  assert.fail('expected a Task, got a Message');
}

export const nomeDoEstado = (task: Task): string => TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED];

/** The text parts, joined with a space. */
export const textoDe = (partes: readonly Part[] = []) =>
  partes.flatMap((parte) => (parte.content?.$case === 'text' ? [parte.content.value] : [])).join(' ');

/** The value of every data part, in order. */
export const dadosDe = (partes: readonly Part[] = []): unknown[] =>
  partes.flatMap((parte): unknown[] => (parte.content?.$case === 'data' ? [parte.content.value] : []));

/** A stream's events, one word each: `task:<state>`, `<state>` for a status update, `artifact:<name>`. */
export function resumo(evento: StreamResponse): string {
  const carga = evento.payload;
  switch (carga?.$case) {
    case 'task':
      return `task:${nomeDoEstado(carga.value)}`;
    case 'statusUpdate':
      return TaskState[carga.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED];
    case 'artifactUpdate':
      return `artifact:${carga.value.artifact?.name ?? '?'}`;
    default:
      return carga?.$case ?? 'vazio';
  }
}

export async function todos<T>(fluxo: AsyncIterable<T>): Promise<T[]> {
  const lidos: T[] = [];
  for await (const item of fluxo) lidos.push(item);
  return lidos;
}

export interface Notificacao {
  readonly headers: IncomingHttpHeaders;
  readonly corpo: unknown;
  readonly caminho: string;
}

export interface Webhook {
  readonly url: string;
  readonly recebidas: Notificacao[];
  /** Resolves once `n` notifications have arrived. */
  ate(n: number): Promise<Notificacao[]>;
  fechar(): Promise<void>;
}

/** A webhook on a free loopback port (allowed by the agent's default AGENTE_PUSH_HOSTS), answering 200. */
export async function webhook(): Promise<Webhook> {
  const recebidas: Notificacao[] = [];
  const esperas: (() => void)[] = [];
  const servidor = createServer((req, res) => {
    const partes: Buffer[] = [];
    req.on('data', (parte: Buffer) => partes.push(parte));
    req.on('end', () => {
      recebidas.push({ headers: req.headers, corpo: JSON.parse(Buffer.concat(partes).toString('utf8')), caminho: req.url ?? '' });
      res.end();
      for (const esperar of esperas) esperar();
    });
  });
  const porta = await escutar(servidor, 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${String(porta)}/hook`,
    recebidas,
    ate: (n) =>
      new Promise((resolver) => {
        const conferir = () => recebidas.length >= n && (resolver(recebidas.slice(0, n)), true);
        if (!conferir()) esperas.push(conferir);
      }),
    fechar: () =>
      new Promise((resolver) => {
        servidor.closeAllConnections();
        servidor.close(() => resolver());
      }),
  };
}
