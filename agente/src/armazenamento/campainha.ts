/**
 * Wakes this agent's subscribers when a Task's event log may have grown.
 * A wake carries nothing: the subscriber re-reads the log from where it
 * stands, so a wake too many costs a read and none is ever needed twice.
 * In memory and on SQLite the wake comes from this process's own commits
 * (a SQLite file serves one agent); on PostgreSQL also from every other
 * agent's, through one LISTEN connection per agent (escutarNoPostgres).
 */
import type pg from 'pg';
import { CANAL_DE_EVENTOS } from './diario.js';

export interface Espera {
  /** Resolves at the Task's next wake (or at any wake of every Task). */
  readonly tocada: Promise<void>;
  /** Given up: nothing of it is kept. */
  desistir(): void;
}

export class Campainha {
  private readonly esperas = new Map<string, Set<() => void>>();

  /** Registered before the subscriber reads the log: a wake between its read and its wait is not lost. */
  esperar(taskId: string): Espera {
    let tocar = (): void => undefined;
    const tocada = new Promise<void>((resolver) => (tocar = resolver));
    const daTask = this.esperas.get(taskId) ?? new Set();
    this.esperas.set(taskId, daTask);
    daTask.add(tocar);
    const desistir = () => {
      daTask.delete(tocar);
      if (daTask.size === 0 && this.esperas.get(taskId) === daTask) this.esperas.delete(taskId);
    };
    return { tocada: tocada.finally(desistir), desistir };
  }

  tocar(taskId: string): void {
    const daTask = this.esperas.get(taskId);
    this.esperas.delete(taskId);
    for (const tocar of daTask ?? []) tocar();
  }

  /** Every subscriber re-reads: after wakes may have been missed (the LISTEN connection was lost). */
  tocarTodas(): void {
    for (const taskId of [...this.esperas.keys()]) this.tocar(taskId);
  }
}

const RELIGAR_MS = { primeiro: 200, maximo: 5_000 };

/**
 * One connection that LISTENs on CANAL_DE_EVENTOS and rings `campainha`
 * for each Task announced. Lost (the backend terminated, the database
 * stopped), it is opened again, retrying with a growing delay, and once
 * listening again every subscriber re-reads from its own position: what
 * was committed meanwhile is in the log, so nothing is lost. Said once in
 * the log when lost and once when back.
 */
export function escutarNoPostgres(
  novoCliente: () => pg.Client,
  campainha: Campainha,
  log: (linha: string) => void,
): { fechar(): Promise<void> } {
  let atual: pg.Client | undefined;
  let fechado = false;
  let perdida = false;
  let espera = RELIGAR_MS.primeiro;
  let relogio: NodeJS.Timeout | undefined;

  const religar = (erro: Error) => {
    if (fechado || relogio) return;
    if (!perdida) log(`banco de Tasks: escuta de eventos perdida (${erro.message}); religando`);
    perdida = true;
    void atual?.end().catch(() => undefined);
    atual = undefined;
    relogio = setTimeout(() => {
      relogio = undefined;
      void abrir();
    }, espera);
    relogio.unref();
    espera = Math.min(espera * 2, RELIGAR_MS.maximo);
  };

  const abrir = async () => {
    const cliente = novoCliente();
    atual = cliente;
    // A client given up may still report its end: only the current one's loss counts.
    const perder = (erro: Error) => {
      if (atual === cliente) religar(erro);
    };
    cliente.on('error', perder);
    cliente.on('end', () => perder(new Error('conexao encerrada')));
    cliente.on('notification', ({ payload }) => {
      if (payload) campainha.tocar(payload);
    });
    try {
      await cliente.connect();
      await cliente.query(`LISTEN ${CANAL_DE_EVENTOS}`);
    } catch (erro) {
      religar(erro instanceof Error ? erro : new Error(String(erro)));
      return;
    }
    if (fechado) {
      await cliente.end().catch(() => undefined);
      return;
    }
    espera = RELIGAR_MS.primeiro;
    if (perdida) log('banco de Tasks: escuta de eventos de volta');
    perdida = false;
    campainha.tocarTodas();
  };

  void abrir();
  return {
    fechar: async () => {
      fechado = true;
      clearTimeout(relogio);
      const cliente = atual;
      atual = undefined;
      await cliente?.end().catch(() => undefined);
    },
  };
}
