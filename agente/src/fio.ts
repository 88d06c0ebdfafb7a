/**
 * The MCP exchanges the agent made for each Task, kept for the console's
 * Fio panel (only when the console is on). A step of a Task runs inside
 * `naTask`; every MCP request the client makes meanwhile is noted under
 * that Task as it went, and sealed when the console reads it. Memory is
 * bounded: the oldest Tasks' exchanges go first once the bodies kept pass
 * LIMITE_DE_BYTES, and a Task's go with the Task when the store forgets it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { camposDoPedidoMcp } from 'compartilhado/log';
import { lerJson } from 'compartilhado/json';
import { selarTexto } from 'compartilhado/selo';

/** One MCP request and its answer, as the console shows it. */
export interface TrocaMcp {
  readonly protocolo: 'MCP';
  readonly metodo: string;
  /** The JSON-RPC id, as JSON ("3" and 3 differ). */
  readonly id: string;
  readonly traceparent?: string;
  readonly http: number;
  readonly pedido: string;
  readonly resposta: string;
}

export const LIMITE_DE_BYTES = 4 * 1024 * 1024;
/** A body longer than this is cut: the panel is for reading, not for archiving. */
const CORPO_MAXIMO = 16 * 1024;

const cortado = (texto: string) => (texto.length > CORPO_MAXIMO ? `${texto.slice(0, CORPO_MAXIMO)}… (cortado)` : texto);

/** An exchange as it was noted: the bodies as they went, read and sealed only if the console asks. */
interface Anotada {
  readonly pedido: string;
  readonly http: number;
  readonly resposta: string;
}

function paraOConsole({ pedido, http, resposta }: Anotada): TrocaMcp {
  const campos = camposDoPedidoMcp(lerJson(pedido));
  const traceparent = typeof campos.traceparent === 'string' && campos.traceparent !== '-' ? campos.traceparent : undefined;
  return {
    protocolo: 'MCP',
    metodo: String(campos.metodo),
    id: String(campos.id),
    ...(traceparent ? { traceparent } : {}),
    http,
    pedido: cortado(selarTexto(pedido)),
    resposta: cortado(selarTexto(resposta)),
  };
}

export class FioMcp {
  /** Task id -> its exchanges; the Map's order is the order of last use, the oldest first to go. */
  private readonly porTask = new Map<string, readonly Anotada[]>();
  private readonly atual = new AsyncLocalStorage<string>();
  private bytes = 0;

  naTask<T>(taskId: string, passo: () => Promise<T>): Promise<T> {
    return this.atual.run(taskId, passo);
  }

  /** An MCP request made inside a Task's step, and the answer it got (JSON text): kept as it is, nothing parsed here. */
  anotar(pedido: string, http: number, resposta: string): void {
    const taskId = this.atual.getStore();
    if (taskId === undefined) return;
    const anteriores = this.porTask.get(taskId) ?? [];
    this.porTask.delete(taskId);
    this.porTask.set(taskId, [...anteriores, { pedido, http, resposta }]);
    this.bytes += pedido.length + resposta.length;
    for (const [antiga] of this.porTask) {
      if (this.bytes <= LIMITE_DE_BYTES || antiga === taskId) break;
      this.esquecer(antiga);
    }
  }

  /** The Task's exchanges, oldest first, sealed (none kept: empty). Whose Task it is, the caller checks against the Task store. */
  trocas(taskId: string): TrocaMcp[] {
    return (this.porTask.get(taskId) ?? []).map(paraOConsole);
  }

  esquecer(taskId: string): void {
    for (const { pedido, resposta } of this.porTask.get(taskId) ?? []) this.bytes -= pedido.length + resposta.length;
    this.porTask.delete(taskId);
  }
}
