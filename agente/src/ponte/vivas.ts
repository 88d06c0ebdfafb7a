/**
 * Calls to servers of the 2025 era and older, which ask during the call
 * (elicitation/create on its session) and wait for the answer: the call,
 * its session and the question live in this process only. A paused Task
 * names the process (`sessao`); an answer that reaches another process,
 * or this one after a restart, finds nothing here and is told so. A call
 * left unanswered is cancelled after the pause's lifetime.
 */
import type { ElicitResult } from '@modelcontextprotocol/client';
import type { ResultadoDaFerramenta } from '../mcp/conexao.js';
import type { Questao } from './tipos.js';

/** What the call did next: asked a question, or ended. */
export type Ouvido =
  | { readonly resultado: ResultadoDaFerramenta }
  | { readonly questao: Questao }
  /** -32042: URLs to visit before the call can run. */
  | { readonly urls: readonly Questao[] };

/** One running call of a session, and the question it is waiting on. */
export class ChamadaViva {
  private proximoOuvido!: Promise<Ouvido>;
  private avisar: (ouvido: Ouvido) => void = () => undefined;
  private falhar: (erro: unknown) => void = () => undefined;
  private responderAoServidor: ((resposta: ElicitResult) => void) | undefined;

  constructor(chamar: (aoPerguntar: (questao: Questao) => Promise<ElicitResult>) => Promise<ResultadoDaFerramenta>) {
    this.esperar();
    chamar((questao) => {
      const resposta = new Promise<ElicitResult>((resolver) => (this.responderAoServidor = resolver));
      this.avisar({ questao });
      return resposta;
    }).then(
      (resultado) => this.avisar({ resultado }),
      (erro: unknown) => this.falhar(erro),
    );
  }

  /** The call's next question, or its end. */
  proximo(): Promise<Ouvido> {
    return this.proximoOuvido;
  }

  /** The answer to the question the call is waiting on; what it does next comes from proximo(). */
  responder(resposta: ElicitResult): void {
    const responder = this.responderAoServidor;
    this.responderAoServidor = undefined;
    this.esperar();
    responder?.(resposta);
  }

  private esperar(): void {
    this.proximoOuvido = new Promise<Ouvido>((resolver, rejeitar) => {
      this.avisar = resolver;
      this.falhar = rejeitar;
    });
    // Heard even when nobody reads it (a call cancelled while paused).
    this.proximoOuvido.catch(() => undefined);
  }
}

export class ChamadasVivas {
  private readonly porTask = new Map<string, { viva: ChamadaViva; prazo: NodeJS.Timeout }>();

  constructor(
    /** This process, as a paused Task names it. */
    readonly este: string,
    /** How long a question waits for its answer (the pause's lifetime): then the call is cancelled. */
    private readonly validadeMs: number,
  ) {}

  /** Keeps a call paused on a question, for the answer to find. */
  guardar(taskId: string, viva: ChamadaViva): void {
    this.soltar(taskId);
    const prazo = setTimeout(() => {
      this.porTask.delete(taskId);
      viva.responder({ action: 'cancel' });
    }, this.validadeMs).unref();
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
    this.soltar(taskId);
    return guardada?.viva;
  }

  /** A Task ended while its call waited (cancelled, expired by the sweep): the call is told `cancel`. */
  cancelar(taskId: string): void {
    const guardada = this.porTask.get(taskId);
    this.soltar(taskId);
    guardada?.viva.responder({ action: 'cancel' });
  }

  private soltar(taskId: string): void {
    const guardada = this.porTask.get(taskId);
    if (guardada) clearTimeout(guardada.prazo);
    this.porTask.delete(taskId);
  }
}
