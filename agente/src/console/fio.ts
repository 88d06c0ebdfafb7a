/**
 * The MCP exchanges the agent made for each Task, kept for the console's
 * Fio panel (only when the console is on). A step of a Task runs inside
 * `naTask`; every MCP request the client makes meanwhile is noted under
 * that Task as it went, nothing parsed on the request's path, and read and
 * sealed only when the console asks. Memory is bounded: at most
 * TROCAS_POR_TASK per Task (the oldest go), and once the bodies and trace
 * ids kept pass LIMITE_DE_CARACTERES the least recently used Tasks go
 * first; a Task's exchanges also go with it when the memory store forgets
 * the Task.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { cabecalhoDaTroca, selarTexto, type Troca } from 'compartilhado/fio';
import { lerJson } from 'compartilhado/json';

/** Characters of bodies and trace ids kept, over every Task (JSON is ASCII, mostly: about as many bytes). */
export const LIMITE_DE_CARACTERES = 1024 * 1024;
export const TROCAS_POR_TASK = 50;
/** A body longer than this is cut when shown: the panel is for reading, not for archiving. */
const CORPO_MAXIMO = 16 * 1024;

const cortado = (texto: string) => (texto.length > CORPO_MAXIMO ? `${texto.slice(0, CORPO_MAXIMO)}… (cortado)` : texto);

/**
 * An exchange as it was noted: the bodies as they went, its duration, the
 * HTTP status when there was one, with telemetry on its trace id, and, for
 * a configured server (AGENTE_MCP_CONFIG), its name and whether the server
 * made the request (an elicitation/create on its session).
 */
export interface Anotada {
  readonly pedido: string;
  readonly http?: number;
  readonly resposta: string;
  readonly ms: number;
  readonly traceId?: string | undefined;
  readonly servidor?: string;
  readonly sentido?: 'recebida';
  /** Noted when its request went, still with no answer. */
  readonly pendente?: true;
  /** Places in the order of everything noted: the request's, and the answer's once it came. */
  readonly pedidoEm: number;
  readonly respostaEm?: number;
}

/** The characters an exchange keeps: its bodies and its trace id (the duration is a number, the same size for all). */
const tamanho = ({ pedido, resposta, traceId }: Anotada) => pedido.length + resposta.length + (traceId?.length ?? 0);

/** Sealed before it is cut, so no cut ever leaves part of a state behind. */
const paraOConsole = ({ pedido, http, resposta, ms, traceId, servidor, sentido, pendente, pedidoEm, respostaEm }: Anotada): Troca => ({
  protocolo: 'MCP',
  ...cabecalhoDaTroca(lerJson(pedido)),
  ...(http === undefined ? {} : { http }),
  ms,
  ...(traceId === undefined ? {} : { traceId }),
  ...(servidor === undefined ? {} : { servidor }),
  ...(sentido === undefined ? {} : { sentido }),
  ...(pendente ? { pendente } : {}),
  pedidoEm,
  ...(respostaEm === undefined ? {} : { respostaEm }),
  pedido: cortado(selarTexto(pedido)),
  resposta: cortado(selarTexto(resposta)),
});

export class FioMcp {
  /** Task id -> its exchanges; the Map's order is the order of last use, the oldest first to go. */
  private readonly porTask = new Map<string, Anotada[]>();
  private readonly atual = new AsyncLocalStorage<string>();
  private caracteres = 0;
  /** One count for every request and answer noted: the page orders arrows by it. */
  private ordem = 0;

  naTask<T>(taskId: string, passo: () => Promise<T>): Promise<T> {
    return this.atual.run(taskId, passo);
  }

  /** The Task whose step runs in this async context, if any. */
  tarefaAtual(): string | undefined {
    return this.atual.getStore();
  }

  /** An MCP exchange of the step running here, answered, as noted (the room server's client). */
  anotar(troca: Omit<Anotada, 'pedidoEm' | 'respostaEm'>): void {
    const taskId = this.atual.getStore();
    if (taskId === undefined) return;
    this.guardar(taskId, { ...troca, pedidoEm: ++this.ordem, respostaEm: ++this.ordem });
  }

  /**
   * An exchange noted as its request goes (a configured server's: on a
   * session, a call waits for the person's answer, which comes in a later
   * step); the function returned notes its answer in the same place.
   */
  anotarPedido(
    troca: Omit<Anotada, 'resposta' | 'ms' | 'pendente' | 'pedidoEm' | 'respostaEm'>,
    taskId: string,
  ): (resposta: string, ms: number) => void {
    const aberta: Anotada = { ...troca, resposta: '', ms: 0, pendente: true, pedidoEm: ++this.ordem };
    this.guardar(taskId, aberta);
    return (resposta, ms) => {
      const trocas = this.porTask.get(taskId);
      const onde = trocas?.indexOf(aberta) ?? -1;
      // Forgotten meanwhile (the Task, or the oldest of its exchanges): nothing to complete.
      if (!trocas || onde === -1) return;
      const concluida = { ...troca, resposta, ms, pedidoEm: aberta.pedidoEm, respostaEm: ++this.ordem };
      trocas[onde] = concluida;
      this.caracteres += tamanho(concluida) - tamanho(aberta);
      this.conter(taskId);
    };
  }

  /** The Task's list, moved to the end of the order of use. */
  private daTask(taskId: string): Anotada[] {
    const trocas = this.porTask.get(taskId) ?? [];
    this.porTask.delete(taskId);
    return trocas;
  }

  private guardar(taskId: string, anotada: Anotada): void {
    const trocas = this.daTask(taskId);
    this.porTask.set(taskId, trocas);
    trocas.push(anotada);
    this.caracteres += tamanho(anotada);
    if (trocas.length > TROCAS_POR_TASK) this.caracteres -= tamanho(trocas.shift() ?? anotada);
    this.conter(taskId);
  }

  /** Past the limit, the Tasks used longest ago go first (never the one being noted). */
  private conter(taskId: string): void {
    for (const [antiga] of this.porTask) {
      if (this.caracteres <= LIMITE_DE_CARACTERES || antiga === taskId) break;
      this.esquecer(antiga);
    }
  }

  /** The Task's exchanges, oldest first, sealed (none kept: empty). Whose Task it is, the caller checks against the Task store. */
  trocas(taskId: string): Troca[] {
    return (this.porTask.get(taskId) ?? []).map(paraOConsole);
  }

  esquecer(taskId: string): void {
    for (const anotada of this.porTask.get(taskId) ?? []) this.caracteres -= tamanho(anotada);
    this.porTask.delete(taskId);
  }
}
