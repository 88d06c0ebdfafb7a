/** A raw A2A JSON-RPC caller for tests, with no A2A-Version header, like the course's validator. */
import { randomUUID } from 'node:crypto';

export interface RespostaA2A {
  status: number;
  corpo: any;
  texto: string;
}

/** Every A2A body a test received, to prove no requestState ever appears in one. */
export const corposRecebidos: string[] = [];

export async function a2a(base: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<RespostaA2A> {
  const resposta = await fetch(new URL('/a2a', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  const texto = await resposta.text();
  corposRecebidos.push(texto);
  return { status: resposta.status, corpo: JSON.parse(texto), texto };
}

export const enviar = (base: string, texto: string, opcoes: { taskId?: string; traceparent?: string } = {}) =>
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
    opcoes.traceparent ? { traceparent: opcoes.traceparent } : {},
  );

export const obter = (base: string, id: string) => a2a(base, 'GetTask', { id });

/** The Task of a SendMessage (result.task) or of a GetTask (result). */
export const tarefa = (resposta: RespostaA2A) => resposta.corpo.result?.task ?? resposta.corpo.result;
export const estado = (resposta: RespostaA2A): string => tarefa(resposta).status.state;
export const mensagem = (resposta: RespostaA2A): string =>
  tarefa(resposta)
    .status.message.parts.map((parte: { text?: string }) => parte.text ?? '')
    .join(' ');
export const artefato = (resposta: RespostaA2A) => tarefa(resposta).artifacts?.[0];

export const pedido = (sala: string, dia: string, de: string, ate: string, responsavel = 'Doc') =>
  `reservar sala=${sala} inicio=${dia}T${de}:00-03:00 fim=${dia}T${ate}:00-03:00 responsavel=${responsavel}`;
