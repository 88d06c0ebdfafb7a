/**
 * Each Task's turn: whatever moves a Task from one state to the next (an
 * answer to its pause, a cancel, the sweep of an old pause) runs in the
 * Task's turn, one after another. Two answers racing for one pause then
 * behave as if they had arrived one after the other: the second sees what
 * the first did. In one process a promise chain per Task is enough; agents
 * sharing PostgreSQL also take a transaction-scoped advisory lock, so the
 * turn holds across processes, and it is released even if one dies.
 */
import { A2AError } from '@a2a-js/sdk/errors';
import type pg from 'pg';
import { noBanco } from './banco.js';

export interface Exclusao {
  /** Runs `trabalho` in the Task's turn, waiting for it. */
  com<T>(taskId: string, trabalho: () => Promise<T>): Promise<T>;
  /** Runs `trabalho` only if the turn is free now; undefined when someone holds it. */
  seLivre<T>(taskId: string, trabalho: () => Promise<T>): Promise<T | undefined>;
}

export class ExclusaoLocal implements Exclusao {
  /** The tail of each Task's queue; gone once the queue is empty, so it stays bounded. */
  private readonly filas = new Map<string, Promise<unknown>>();

  com<T>(taskId: string, trabalho: () => Promise<T>): Promise<T> {
    const vez = (this.filas.get(taskId) ?? Promise.resolve()).then(trabalho);
    // The queue forgets the Task before the caller hears the outcome, so the turn is free by then.
    const limpar = () => {
      if (this.filas.get(taskId) === fim) this.filas.delete(taskId);
    };
    const fim: Promise<void> = vez.then(limpar, limpar);
    this.filas.set(taskId, fim);
    return fim.then(() => vez);
  }

  seLivre<T>(taskId: string, trabalho: () => Promise<T>): Promise<T | undefined> {
    return this.filas.has(taskId) ? Promise.resolve(undefined) : this.com(taskId, trabalho);
  }
}

/** PostgreSQL's lock_not_available: the turn's lock_timeout ran out. */
const SEM_VEZ = '55P03';

/** The turn was not had in time: the database is fine, another step of the Task is running. */
const vezOcupada = (taskId: string, esperaMs: number) =>
  new A2AError(
    `Outro passo da Task ${taskId} esta em andamento ha mais de ${String(esperaMs / 1000)} s: consulte a Task ou tente de novo em instantes.`,
  );

export class ExclusaoNoPostgres implements Exclusao {
  private readonly local = new ExclusaoLocal();

  /**
   * `pool` is only for the locks, apart from the one the stores use, so a
   * holder never waits for a connection another holder keeps for its data.
   */
  constructor(
    private readonly pool: pg.Pool,
    /** How long a turn may be waited for across processes before the request fails instead of hanging. */
    private readonly esperaMaximaMs = 30_000,
  ) {}

  com<T>(taskId: string, trabalho: () => Promise<T>): Promise<T> {
    // Waiters of this process queue here, without holding a connection.
    return this.local.com(taskId, () => this.naTransacao(taskId, 'pg_advisory_xact_lock', trabalho) as Promise<T>);
  }

  seLivre<T>(taskId: string, trabalho: () => Promise<T>): Promise<T | undefined> {
    return this.local.seLivre(taskId, () => this.naTransacao(taskId, 'pg_try_advisory_xact_lock', trabalho));
  }

  fechar(): Promise<void> {
    return this.pool.end();
  }

  /**
   * A transaction that only holds the lock, opened in one round trip. Any
   * text maps to a 64-bit key; two Tasks sharing one only wait for each other.
   */
  private async naTransacao<T>(
    taskId: string,
    funcao: 'pg_advisory_xact_lock' | 'pg_try_advisory_xact_lock',
    trabalho: () => Promise<T>,
  ): Promise<T | undefined> {
    const cliente = await noBanco(this.pool.connect());
    // Held across the whole step, most of it idle: a connection lost meanwhile must not end the
    // process (pg emits 'error' with no query to reject). The step goes on; the COMMIT below fails
    // and the connection is discarded, and the claim, not this lock, keeps other agents off the step.
    const perdida = (): void => undefined;
    cliente.on('error', perdida);
    try {
      const abertura = `BEGIN; SET LOCAL lock_timeout = ${String(this.esperaMaximaMs)}; SELECT ${funcao}(hashtextextended(${cliente.escapeLiteral(taskId)}, 0)) AS obtida`;
      const resultados = (await noBanco(
        cliente.query(abertura).catch((erro: unknown) => {
          throw typeof erro === 'object' && erro !== null && 'code' in erro && erro.code === SEM_VEZ
            ? vezOcupada(taskId, this.esperaMaximaMs)
            : erro;
        }),
      )) as unknown as pg.QueryResult<{ obtida: boolean | '' }>[];
      // pg_advisory_xact_lock returns void (read as ''): only the try variant can say no.
      if (resultados.at(-1)?.rows[0]?.obtida === false) return undefined;
      return await trabalho();
    } finally {
      // The lock ends with the transaction; a connection that cannot commit is discarded, not reused.
      await cliente.query('COMMIT').then(
        () => cliente.release(),
        (erro: unknown) => cliente.release(erro instanceof Error ? erro : new Error(String(erro))),
      );
      cliente.off('error', perdida);
    }
  }
}
