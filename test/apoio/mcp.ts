/** A raw MCP-over-HTTP caller for tests: the wire exactly as the validator writes it. */
import { pedidoMcp, type Chamada as Pedido } from '../../scripts/mcp-cru.js';

export interface Chamada extends Pedido {
  id?: string | number;
  /** A body sent as it is, instead of the one the call describes. */
  corpo?: string;
}

export interface Resposta {
  status: number;
  corpo: any;
  texto: string;
  headers: Headers;
}

let proximoId = 1;

export async function chamar(url: string, chamada: Chamada): Promise<Resposta> {
  const { headers, body } = pedidoMcp(chamada, chamada.id ?? proximoId++);
  const resposta = await fetch(url, { method: 'POST', headers, body: chamada.corpo ?? body });
  const texto = await resposta.text();
  let json: unknown;
  try {
    json = JSON.parse(texto);
  } catch {
    json = undefined;
  }
  return { status: resposta.status, corpo: json, texto, headers: resposta.headers };
}

export const chamarFerramenta = (url: string, name: string, args: Record<string, unknown>, extra: Omit<Chamada, 'metodo'> = {}) =>
  chamar(url, { ...extra, metodo: 'tools/call', params: { name, arguments: args, ...extra.params } });

/** Joined text blocks of a tool result. */
export const textoDe = (resposta: Resposta): string =>
  (resposta.corpo?.result?.content ?? []).map((bloco: { text?: string }) => bloco.text ?? '').join(' ');
