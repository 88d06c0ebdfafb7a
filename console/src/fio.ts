/**
 * The Fio panel: every A2A request the page made and its answer, and under
 * each the MCP requests the agent made for the Task meanwhile, in order,
 * with their JSON-RPC ids and traceparents. Sealed states are never shown.
 */
import { corpoParaOFio } from './selo.js';

export interface Troca {
  readonly protocolo: 'A2A' | 'MCP';
  readonly metodo: string;
  /** The JSON-RPC id, as JSON ("3" and 3 differ). */
  readonly id: string;
  readonly traceparent?: string;
  readonly pedido: string;
  readonly resposta: string;
}

/** method, id and traceparent of a JSON-RPC request body; what cannot be read is shown as "-". */
export function cabecalhoDe(corpo: string): Pick<Troca, 'metodo' | 'id' | 'traceparent'> {
  try {
    const pedido = JSON.parse(corpo) as { method?: unknown; id?: unknown; params?: { _meta?: { traceparent?: unknown } } };
    const traceparent = pedido.params?._meta?.traceparent;
    return {
      metodo: typeof pedido.method === 'string' ? pedido.method : '-',
      id: JSON.stringify(pedido.id ?? null),
      ...(typeof traceparent === 'string' ? { traceparent } : {}),
    };
  } catch {
    return { metodo: '-', id: '-' };
  }
}

function bloco(titulo: string, texto: string): HTMLElement {
  const detalhes = document.createElement('details');
  const resumo = document.createElement('summary');
  resumo.textContent = titulo;
  const pre = document.createElement('pre');
  pre.textContent = corpoParaOFio(texto);
  detalhes.append(resumo, pre);
  return detalhes;
}

export class Fio {
  constructor(private readonly lista: HTMLOListElement) {}

  limpar(): void {
    this.lista.replaceChildren();
  }

  mostrar(troca: Troca): void {
    const item = document.createElement('li');
    item.className = `troca ${troca.protocolo.toLowerCase()}`;
    const titulo = document.createElement('p');
    titulo.textContent = `${troca.protocolo} ${troca.metodo} id=${troca.id}${troca.traceparent ? ` traceparent=${troca.traceparent}` : ''}`;
    item.append(titulo, bloco('pedido', troca.pedido), bloco('resposta', troca.resposta));
    this.lista.append(item);
  }
}
