/**
 * Paused Tasks do not live forever: a pause older than the requestState it
 * holds can no longer be continued, and the number of pauses is capped. In
 * both cases the Task ends FAILED with a message that says what to do. This
 * is the one clock that dates pauses and decides when they expire.
 */
import { noBanco } from './banco.js';
import { DONO_ANONIMO, type Dono } from './escopo.js';
import type { Exclusao } from './exclusao.js';
import type { Pausa, Pausas } from './pausas.js';
import type { PausasDaPonte, Pergunta } from './ponte.js';

export interface Limites {
  readonly maxPausadas: number;
  readonly validadeMs: number;
}

/** Ends a Task FAILED with this message (unless it already ended), as seen by its owner. */
export type Encerrar = (taskId: string, mensagem: string, dono: Dono) => Promise<void>;

export const MENSAGEM_DE_PAUSA_EXPIRADA =
  'A pergunta expirou sem resposta (o estado pendente no servidor MCP vale por tempo limitado): envie o pedido de novo.';
export const mensagemDeExcesso = (maximo: number) =>
  `Pausa descartada: o agente ja guardava ${maximo} Tasks pausadas e esta era a mais antiga. Envie o pedido de novo.`;

const LOTE_DA_VARREDURA = 500;

export class PausasLimitadas implements PausasDaPonte {
  constructor(
    private readonly base: Pausas,
    private readonly limites: Limites,
    private readonly encerrar: Encerrar,
    private readonly exclusao: Exclusao,
    private readonly agora: () => number = Date.now,
  ) {}

  async abrir(taskId: string, pergunta: Pergunta): Promise<void> {
    await noBanco(this.base.guardar(taskId, { ...pergunta, criadaEm: this.agora() }));
    const excesso = (await noBanco(this.base.total())) - this.limites.maxPausadas;
    if (excesso <= 0) return;
    // The cap is kept on a best-effort basis: failing to end another Task must not fail this one's pause.
    await this.descartarAs(await this.base.ate(Number.MAX_SAFE_INTEGER, excesso), mensagemDeExcesso(this.limites.maxPausadas)).catch(
      () => undefined,
    );
  }

  async tomar(taskId: string): Promise<{ pausa: Pausa; expirada: boolean } | undefined> {
    const pausa = await noBanco(this.base.tomar(taskId));
    return pausa && { pausa, expirada: this.agora() - pausa.criadaEm >= this.limites.validadeMs };
  }

  devolver(taskId: string, pausa: Pausa): Promise<void> {
    return noBanco(this.base.guardar(taskId, pausa));
  }

  apagar(taskId: string): Promise<void> {
    return noBanco(this.base.apagar(taskId));
  }

  /** Ends every expired pause's Task that nobody is answering right now; returns how many. */
  async varrer(): Promise<number> {
    let encerradas = 0;
    for (;;) {
      const ids = await this.base.ate(this.agora() - this.limites.validadeMs, LOTE_DA_VARREDURA);
      const nesteLote = await this.descartarAs(ids, MENSAGEM_DE_PAUSA_EXPIRADA);
      encerradas += nesteLote;
      // A batch of Tasks all being answered now would come back unchanged: stop rather than spin.
      if (ids.length < LOTE_DA_VARREDURA || nesteLote === 0) return encerradas;
    }
  }

  /** Sweeps every `intervaloMs`; the timer never keeps the process alive. */
  varrerPeriodicamente(intervaloMs: number, aoFalhar: (erro: unknown) => void): void {
    setInterval(() => void this.varrer().catch(aoFalhar), intervaloMs).unref();
  }

  /**
   * In the Task's turn, and only if free: a Task being answered right now is
   * not abandoned, and waiting for it here (maybe inside another Task's
   * turn) could wait forever. Only the one that takes the pause ends the Task.
   */
  private async descartarAs(taskIds: readonly string[], mensagem: string): Promise<number> {
    let descartadas = 0;
    for (const taskId of taskIds) {
      const descartada = await this.exclusao.seLivre(taskId, async () => {
        const pausa = await this.base.tomar(taskId);
        if (!pausa) return false;
        await this.encerrar(taskId, mensagem, pausa.dono ?? DONO_ANONIMO);
        return true;
      });
      if (descartada) descartadas += 1;
    }
    return descartadas;
  }
}
