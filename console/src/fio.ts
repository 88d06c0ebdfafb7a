/**
 * The Fio panel: every A2A request the page made and its answer, and under
 * each the MCP requests the agent made for the Task meanwhile, in order,
 * with their JSON-RPC ids and traceparents, how long each took and, with
 * the agent's telemetry on, the trace id to look up. Sealed states are
 * never shown.
 */
import { selarTexto, type Troca } from 'compartilhado/fio';

/** A body as the panel shows it: JSON indented with its states sealed; a stream, one event per block. */
export function corpoParaOFio(texto: string): string {
  const eventos = texto
    .split(/\n\n+/)
    .map((bloco) => /^data: (.*)$/m.exec(bloco)?.[1])
    .filter((dados) => dados !== undefined);
  return (eventos.length > 0 ? eventos : [texto]).map((json) => selarTexto(json, 2)).join('\n\n');
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
    const detalhes = [
      `id=${troca.id}`,
      ...(troca.traceparent ? [`traceparent=${troca.traceparent}`] : []),
      ...(troca.http ? [`http=${String(troca.http)}`] : []),
      `${troca.ms.toFixed(1)} ms`,
      ...(troca.traceId ? [`trace_id=${troca.traceId}`] : []),
    ];
    titulo.textContent = `${troca.protocolo} ${troca.metodo} ${detalhes.join(' ')}`;
    item.append(titulo, bloco('pedido', troca.pedido), bloco('resposta', troca.resposta));
    this.lista.append(item);
  }
}
