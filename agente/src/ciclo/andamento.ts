/**
 * What a step's call reports while it runs, written through the lifecycle
 * in the order reported: each progress a WORKING status with its message
 * (progredir), and the MCP task the call started (acompanhar), whose claim
 * is then renewed while the task runs, so no sweep takes over a step whose
 * follower is alive, however long the task takes. A report that cannot be
 * stored is dropped: the outcome's own transition tells the client, and a
 * lease not renewed only lets a sweep follow the same task.
 */
import type { OpcoesDoPasso } from '../ponte/ponte.js';
import type { Seguimento } from '../ponte/tipos.js';
import type { Alvo, Ciclo, Transicao } from './ciclo.js';

export class Andamento {
  private fila = Promise.resolve();
  private seguimento: Seguimento | undefined;
  private renovacao: NodeJS.Timeout | undefined;
  private terminado = false;

  constructor(
    private readonly ciclo: Pick<Ciclo, 'progredir' | 'acompanhar' | 'renovacaoMs'>,
    private readonly alvo: Alvo,
    /** Each committed progress, as the request shows it. */
    private readonly aoGravar: (transicao: Transicao) => void = () => undefined,
  ) {}

  /** For the bridge: where the call's progress and its MCP task go. */
  readonly opcoes: Pick<OpcoesDoPasso, 'aoProgredir' | 'aoSeguir'> = {
    aoProgredir: ({ progress, total, message }) => {
      const quanto = total === undefined ? String(progress) : `${String(progress)}/${String(total)}`;
      this.enfileirar(() => this.ciclo.progredir(this.alvo, message ?? `Progresso ${quanto}.`).then(this.aoGravar));
    },
    aoSeguir: (seguimento) => {
      // A call paused on a question outlives the request that paused it: the answer's request follows it from then on.
      if (this.terminado) return;
      this.seguimento = seguimento;
      this.acompanhar();
      this.renovacao ??= setInterval(() => this.acompanhar(), this.ciclo.renovacaoMs).unref();
    },
  };

  /** The call ended: no more renewals, and every report written (or dropped) before the outcome is. */
  async terminar(): Promise<void> {
    this.terminado = true;
    clearInterval(this.renovacao);
    await this.fila;
  }

  private acompanhar(): void {
    const { seguimento } = this;
    if (!seguimento) return;
    this.enfileirar(async () => {
      // Taken over by a sweep: that follower's claim stands, and this one stops renewing it.
      if (!(await this.ciclo.acompanhar(this.alvo, seguimento))) clearInterval(this.renovacao);
    });
  }

  private enfileirar(escrever: () => Promise<unknown>): void {
    this.fila = this.fila.then(escrever).then(
      () => undefined,
      () => undefined,
    );
  }
}
