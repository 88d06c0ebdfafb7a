/** What every part of the page uses: its elements by id, the A2A message of a step, and the words of a Task. */
import { SendMessageRequest, taskStateToJSON, type Part, type Task } from '@a2a-js/sdk';

export function elemento<T extends HTMLElement>(id: string, tipo: new () => T, raiz: ParentNode = document): T {
  const achado = raiz.querySelector(`#${id}`);
  if (!(achado instanceof tipo)) throw new Error(`a pagina nao tem #${id}`);
  return achado;
}

/** A template of index.html, cloned into the page. */
export function modelo(id: string): DocumentFragment {
  return elemento(id, HTMLTemplateElement).content.cloneNode(true) as DocumentFragment;
}

export const dadosDe = (partes: readonly Part[] = []): unknown => partes.find((parte) => parte.content?.$case === 'data')?.content?.value;

export const textoDe = (partes: readonly Part[] = []) =>
  partes
    .map((parte) => (parte.content?.$case === 'text' ? parte.content.value : ''))
    .join(' ')
    .trim();

export const estadoDe = (task: Task | undefined) => (task?.status ? taskStateToJSON(task.status.state) : '');

/** A finished Task's sentence: the agent's words, or its state when it said none. */
export function frase(task: Task): HTMLParagraphElement {
  const p = document.createElement('p');
  p.textContent = textoDe(task.status?.message?.parts) || estadoDe(task);
  return p;
}

/** A request the agent did not answer with a Task (network, HTTP or JSON-RPC error), as it came. */
export const mensagemDeFalha = (erro: unknown) => `O agente nao respondeu: ${erro instanceof Error ? erro.message : String(erro)}`;

/** A step's request: one data part, on a Task when it continues one. */
export function pedido(dados: object, taskId?: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ data: dados, mediaType: 'application/json' }],
      ...(taskId ? { taskId } : {}),
    },
  });
}

export const botao = (texto: string, aoClicar: () => void): HTMLButtonElement => {
  const elemento = document.createElement('button');
  elemento.type = 'button';
  elemento.textContent = texto;
  elemento.addEventListener('click', aoClicar);
  return elemento;
};

/** The buttons of a form or group, off while its answer is on its way (on again if it never arrives). */
export function desligarBotoes(raiz: ParentNode, desligados = true): void {
  for (const um of raiz.querySelectorAll('button')) um.disabled = desligados;
}

/** The focus to the first control of what changed (a form just shown, a refused answer): its first field, or, with `botoes`, a button if it has no field. */
export function focarPrimeiro(raiz: ParentNode, botoes = true): void {
  raiz.querySelector<HTMLElement>(botoes ? 'input, select, textarea, button' : 'input, select, textarea')?.focus();
}
