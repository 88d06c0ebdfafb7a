/** A Task's outcome stored, and told to its webhooks, outside any request. */
import { ResultManager, type AgentExecutionEvent, type PushNotificationSender } from '@a2a-js/sdk/server';
import { contextoDe } from '../armazenamento/escopo.js';
import type { Dono } from '../ponte/tipos.js';
import { Eventos } from './eventos.js';
import { avisoDeEstado } from '../push/avisos.js';
import type { Junto, TarefasDaPonte } from '../armazenamento/gravacao.js';
import { terminal } from '../armazenamento/tarefas.js';

/**
 * Stores a Task's outcome outside any request (a sweep's), through the
 * SDK's ResultManager as an executor's events would be, with `junto`
 * written together with the last event's state, and tells its webhooks.
 * A Task already finished is left alone: answers false.
 */
export type PublicarForaDoPedido = (
  taskId: string,
  dono: Dono,
  eventos: (eventos: Eventos) => readonly AgentExecutionEvent[],
  junto: Junto,
) => Promise<boolean>;

export function publicadorForaDoPedido(tarefas: TarefasDaPonte, avisos: PushNotificationSender): PublicarForaDoPedido {
  return async (taskId, dono, eventos, junto) => {
    const contexto = contextoDe(dono);
    const task = await tarefas.load(taskId, contexto);
    if (!task || terminal(task)) return false;
    const todos = eventos(new Eventos(task.id, task.contextId));
    const ultimo = todos.at(-1);
    const estado = ultimo?.kind === 'statusUpdate' ? ultimo.data.status?.state : undefined;
    const resultado = new ResultManager(tarefas, contexto);
    const gravado = estado === undefined ? Promise.resolve() : tarefas.gravado(taskId, estado, junto);
    // A failed save rejects both: processEvent throws it below, and this wait must not be left unheard (it would end the process).
    gravado.catch(() => undefined);
    for (const evento of todos) await resultado.processEvent(evento);
    await gravado;
    const final = resultado.getCurrentTask();
    if (final) void avisos.send(avisoDeEstado(final), contexto, final);
    return true;
  };
}
