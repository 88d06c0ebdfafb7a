/**
 * A raw A2A JSON-RPC caller for tests, with no A2A-Version header, like the
 * course's validator. What comes back is read through small schemas of the
 * v1.0 JSON form: a body of another shape fails the test where it is read.
 */
import { randomUUID } from 'node:crypto';
import { conforme } from 'compartilhado/contrato';
import type * as z from 'zod';
import { Artefato, CorpoA2A, ReservaNoArtefato, reservaDaTarefa, tarefaDo, TarefaNoFio } from '../../scripts/a2a-cru.js';

export { ReservaNoArtefato, TarefaNoFio };

export interface RespostaA2A {
  status: number;
  corpo: CorpoA2A;
  texto: string;
}

export async function a2a(base: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<RespostaA2A> {
  const resposta = await fetch(new URL('/a2a', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  const texto = await resposta.text();
  return { status: resposta.status, corpo: conforme(CorpoA2A, JSON.parse(texto), `a resposta a ${method}`), texto };
}

export const enviar = (base: string, texto: string, opcoes: { taskId?: string; traceparent?: string; token?: string } = {}) =>
  a2a(
    base,
    'SendMessage',
    {
      message: {
        messageId: `msg-${randomUUID()}`,
        role: 'ROLE_USER',
        parts: [{ text: texto }],
        ...(opcoes.taskId ? { taskId: opcoes.taskId } : {}),
      },
    },
    {
      ...(opcoes.traceparent ? { traceparent: opcoes.traceparent } : {}),
      ...(opcoes.token ? { authorization: `Bearer ${opcoes.token}` } : {}),
    },
  );

export const obter = (base: string, id: string) => a2a(base, 'GetTask', { id });

/** The Task of a SendMessage (result.task) or of a GetTask (result); a reply that holds none fails here. */
export const tarefa = (resposta: RespostaA2A): TarefaNoFio => tarefaDo(resposta.corpo);

export const estado = (resposta: RespostaA2A): string => tarefa(resposta).status.state;

/** The text parts of the Task's status message, joined (its data part, if any, aside). */
export const mensagem = (resposta: RespostaA2A): string =>
  (tarefa(resposta).status.message?.parts ?? []).flatMap((parte) => (parte.text === undefined ? [] : [parte.text])).join(' ');

/** The Task's first artifact; a Task without one fails here. */
export function artefato(resposta: RespostaA2A): z.infer<typeof Artefato> {
  const [primeiro] = tarefa(resposta).artifacts ?? [];
  if (!primeiro) throw new Error(`Task sem artifact: ${resposta.texto.slice(0, 300)}`);
  return primeiro;
}

/** The booking in the Task's `reserva` artifact, parsed and typed. */
export const reservaDe = (resposta: RespostaA2A): ReservaNoArtefato => reservaDaTarefa(tarefa(resposta));

export const pedido = (sala: string, dia: string, de: string, ate: string, responsavel = 'Doc') =>
  `reservar sala=${sala} inicio=${dia}T${de}:00-03:00 fim=${dia}T${ate}:00-03:00 responsavel=${responsavel}`;
