/** What every part of the page uses: its elements by id, and the A2A message of a step. */
import { SendMessageRequest, type Part } from '@a2a-js/sdk';

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
