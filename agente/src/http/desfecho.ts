/**
 * What the request handler did, recorded where it did it: a decorator over
 * the SDK's A2ARequestHandler, the one object its JSON-RPC, HTTP+JSON and
 * gRPC transports call. Each call writes into its request's record
 * (http.ts's Registro) the Task it answered, the state that Task reached
 * (in a stream, its latest event's), its contextId, or the error it threw;
 * the request's log line and span read them there. Nothing is parsed back
 * from the answer, and no `res` method or console is replaced for it.
 */
import { taskStateToJSON, type Message, type StreamResponse, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { anotarFalha, anotarResultado } from './http.js';

type Evento = NonNullable<StreamResponse['payload']>['value'];

/** What a Task, a message, an event or a push config says of its Task. */
function anotar(valor: Task | Message | Evento | TaskPushNotificationConfig): void {
  const task = 'taskId' in valor ? valor.taskId : 'id' in valor && 'status' in valor ? valor.id : undefined;
  const state = 'status' in valor ? valor.status?.state : undefined;
  anotarResultado({
    ...(task ? { task } : {}),
    ...(state === undefined ? {} : { estado: taskStateToJSON(state) }),
    ...('contextId' in valor && valor.contextId ? { contextId: valor.contextId } : {}),
  });
}

async function registrado<T>(chamada: Promise<T>, anotarValor: (valor: T) => void = () => undefined): Promise<T> {
  try {
    const valor = await chamada;
    anotarValor(valor);
    return valor;
  } catch (erro) {
    anotarFalha(erro);
    throw erro;
  }
}

async function* fluxoRegistrado(fluxo: AsyncGenerator<StreamResponse, void, undefined>): AsyncGenerator<StreamResponse, void, undefined> {
  try {
    for await (const evento of fluxo) {
      if (evento.payload) anotar(evento.payload.value);
      yield evento;
    }
  } catch (erro) {
    anotarFalha(erro);
    throw erro;
  }
}

/** `handler`, each call's outcome recorded for its request. */
export function comDesfechoRegistrado(handler: A2ARequestHandler): A2ARequestHandler {
  return {
    getAgentCard: () => handler.getAgentCard(),
    getAuthenticatedExtendedAgentCard: (params, context) => registrado(handler.getAuthenticatedExtendedAgentCard(params, context)),
    sendMessage: (params, context) => registrado(handler.sendMessage(params, context), anotar),
    sendMessageStream: (params, context) => fluxoRegistrado(handler.sendMessageStream(params, context)),
    getTask: (params, context) => registrado(handler.getTask(params, context), anotar),
    cancelTask: (params, context) => registrado(handler.cancelTask(params, context), anotar),
    createTaskPushNotificationConfig: (params, context) => registrado(handler.createTaskPushNotificationConfig(params, context), anotar),
    getTaskPushNotificationConfig: (params, context) => registrado(handler.getTaskPushNotificationConfig(params, context), anotar),
    listTaskPushNotificationConfigs: (params, context) => registrado(handler.listTaskPushNotificationConfigs(params, context)),
    deleteTaskPushNotificationConfig: (params, context) => registrado(handler.deleteTaskPushNotificationConfig(params, context)),
    resubscribe: (params, context) => fluxoRegistrado(handler.resubscribe(params, context)),
    listTasks: (params, context) => registrado(handler.listTasks(params, context)),
  };
}
