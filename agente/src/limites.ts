/**
 * Paused Tasks do not live forever: a pause older than the requestState it
 * holds can no longer be continued, and the number of pauses is capped. In
 * both cases the Task ends FAILED with a message that says what to do.
 */
import type { Pausa, Pausas } from './pausas.js';

export interface Limites {
  readonly maxPausadas: number;
  readonly validadeMs: number;
}

/** Ends a Task FAILED with this message (unless it already ended). */
export type Encerrar = (taskId: string, mensagem: string) => Promise<void>;

export const MENSAGEM_DE_PAUSA_EXPIRADA = 'A pergunta expirou sem resposta (o estado pendente no servidor MCP vale por tempo limitado): envie o pedido de novo.';
export const mensagemDeExcesso = (maximo: number) =>
  `Pausa descartada: o agente ja guardava ${maximo} Tasks pausadas e esta era a mais antiga. Envie o pedido de novo.`;

const LOTE_DA_VARREDURA = 500;

export class PausasLimitadas implements Pausas {
  constructor(
    private readonly base: Pausas,
    private readonly limites: Limites,
    private readonly encerrar: Encerrar,
    private readonly agora: () => number = Date.now,
  ) {}

  async guardar(taskId: string, pausa: Pausa): Promise<void> {
    await this.base.guardar(taskId, pausa);
    const excesso = (await this.base.total()) - this.limites.maxPausadas;
    if (excesso > 0) {
      for (const antiga of await this.base.maisAntigas(excesso)) await this.descartar(antiga, mensagemDeExcesso(this.limites.maxPausadas));
    }
  }

  ler(taskId: string) {
    return this.base.ler(taskId);
  }

  tomar(taskId: string) {
    return this.base.tomar(taskId);
  }

  apagar(taskId: string) {
    return this.base.apagar(taskId);
  }

  ate(instante: number, limite: number) {
    return this.base.ate(instante, limite);
  }

  maisAntigas(quantas: number) {
    return this.base.maisAntigas(quantas);
  }

  total() {
    return this.base.total();
  }

  expirada(pausa: Pausa): boolean {
    return this.agora() - pausa.criadaEm >= this.limites.validadeMs;
  }

  /** Ends every expired pause's Task; returns how many. */
  async varrer(): Promise<number> {
    let encerradas = 0;
    for (;;) {
      const ids = await this.base.ate(this.agora() - this.limites.validadeMs, LOTE_DA_VARREDURA);
      for (const taskId of ids) await this.descartar(taskId, MENSAGEM_DE_PAUSA_EXPIRADA);
      encerradas += ids.length;
      if (ids.length < LOTE_DA_VARREDURA) return encerradas;
    }
  }

  /** Sweeps every `intervaloMs`; the timer never keeps the process alive. */
  varrerPeriodicamente(intervaloMs: number, aoFalhar: (erro: unknown) => void): void {
    setInterval(() => void this.varrer().catch(aoFalhar), intervaloMs).unref();
  }

  private async descartar(taskId: string, mensagem: string): Promise<void> {
    await this.base.apagar(taskId);
    await this.encerrar(taskId, mensagem);
  }
}
