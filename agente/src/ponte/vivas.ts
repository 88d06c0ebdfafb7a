/**
 * Calls to servers of the 2025 era and older, which ask during the call
 * (elicitation/create on its session) and wait for the answer: the call,
 * its session and the question live in this process only. A paused Task
 * names the process (`sessao`); an answer that reaches another process,
 * or this one after a restart, finds nothing here and is told so. A call
 * left unanswered is given up after the pause's lifetime.
 */
import type { ElicitResult } from '@modelcontextprotocol/client';
import type { OpcoesDaChamada, ResultadoDaFerramenta, TarefaMcp } from '../mcp/conexao.js';
import type { Questao } from './tipos.js';

/** What the call did next: asked a question, or ended. */
export type Ouvido =
  | { readonly resultado: ResultadoDaFerramenta }
  | { readonly questao: Questao }
  /** -32042: URLs to visit before the call can run. */
  | { readonly urls: readonly Questao[] };

type Evento =
  | { readonly questao: Questao; readonly responder: (resposta: ElicitResult) => void }
  | { readonly resultado: ResultadoDaFerramenta }
  | { readonly erro: unknown };

const CANCELAR: ElicitResult = { action: 'cancel' };

type Progresso = NonNullable<OpcoesDaChamada['aoProgredir']>;
type Seguir = NonNullable<OpcoesDaChamada['aoSeguir']>;

/**
 * One running call of a session. What it does is queued, never
 * overwritten: two questions asked at once are asked one after the other,
 * each answer reaches its own question, and a call that ends while its Task
 * is paused keeps its outcome for the answer to find.
 */
export class ChamadaViva {
  private readonly eventos: Evento[] = [];
  private acordar: () => void = () => undefined;
  /** The answer to the question handed out last, which the call is waiting on. */
  private esperando: ((resposta: ElicitResult) => void) | undefined;
  private abandonada = false;
  private readonly desistir = new AbortController();
  /** Where the call's progress goes now: the request being served changes with each answer. */
  aoProgredir: Progresso | undefined;
  /** Where the MCP task the call follows is told, likewise. */
  aoSeguir: Seguir | undefined;

  constructor(
    chamar: (
      aoPerguntar: (questao: Questao) => Promise<ElicitResult>,
      sinal: AbortSignal,
      ouvintes: { readonly aoProgredir: Progresso; readonly aoSeguir: Seguir },
    ) => Promise<ResultadoDaFerramenta>,
  ) {
    const aoPerguntar = (questao: Questao) =>
      new Promise<ElicitResult>((responder) => {
        if (this.abandonada) responder(CANCELAR);
        else this.empurrar({ questao, responder });
      });
    const ouvintes = {
      aoProgredir: (progresso: Parameters<Progresso>[0]) => this.aoProgredir?.(progresso),
      aoSeguir: (tarefa: TarefaMcp) => this.aoSeguir?.(tarefa),
    };
    chamar(aoPerguntar, this.desistir.signal, ouvintes).then(
      (resultado) => this.empurrar({ resultado }),
      (erro: unknown) => this.empurrar({ erro }),
    );
  }

  /** The call's next question (now waiting for its answer), or its end. */
  async proximo(): Promise<Ouvido> {
    let evento = this.eventos.shift();
    while (!evento) {
      await new Promise<void>((acordar) => (this.acordar = acordar));
      evento = this.eventos.shift();
    }
    if ('erro' in evento) throw evento.erro;
    if ('resultado' in evento) return { resultado: evento.resultado };
    this.esperando = evento.responder;
    return { questao: evento.questao };
  }

  /** The answer to the question handed out last; what the call does next comes from proximo(). */
  responder(resposta: ElicitResult): void {
    const responder = this.esperando;
    this.esperando = undefined;
    responder?.(resposta);
  }

  /**
   * Gives the call up (its Task ended, was cancelled, or waited too long):
   * every question, open or still to come, is answered cancel, and the
   * call is aborted (the SDK tells the server). Nothing of it is read again.
   */
  abandonar(): void {
    this.abandonada = true;
    this.responder(CANCELAR);
    for (const evento of this.eventos.splice(0)) if ('questao' in evento) evento.responder(CANCELAR);
    this.desistir.abort();
  }

  private empurrar(evento: Evento): void {
    if (this.abandonada && 'questao' in evento) {
      evento.responder(CANCELAR);
      return;
    }
    this.eventos.push(evento);
    this.acordar();
  }
}

export class ChamadasVivas {
  private readonly porTask = new Map<string, { viva: ChamadaViva; prazo: NodeJS.Timeout }>();

  constructor(
    /** This process, as a paused Task names it. */
    readonly este: string,
    /** How long a question waits for its answer (the pause's lifetime): then the call is given up. */
    private readonly validadeMs: number,
  ) {}

  /** Keeps a call paused on a question, for the answer to find. */
  guardar(taskId: string, viva: ChamadaViva): void {
    this.cancelar(taskId);
    const prazo = setTimeout(() => this.cancelar(taskId), this.validadeMs).unref();
    this.porTask.set(taskId, { viva, prazo });
  }

  /** Whether an answer for this Task's question can reach its call here. */
  tem(taskId: string, sessao: string): boolean {
    return sessao === this.este && this.porTask.has(taskId);
  }

  /** The paused call, taken by the answer that continues it. */
  tomar(taskId: string, sessao: string): ChamadaViva | undefined {
    if (!this.tem(taskId, sessao)) return undefined;
    const guardada = this.porTask.get(taskId);
    if (guardada) clearTimeout(guardada.prazo);
    this.porTask.delete(taskId);
    return guardada?.viva;
  }

  /** A Task ended while its call waited here (cancelled, expired): the call is given up. */
  cancelar(taskId: string): void {
    const guardada = this.porTask.get(taskId);
    if (!guardada) return;
    clearTimeout(guardada.prazo);
    this.porTask.delete(taskId);
    guardada.viva.abandonar();
  }
}
