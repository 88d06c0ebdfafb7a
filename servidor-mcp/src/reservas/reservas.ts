/**
 * Where bookings live. One interface in the domain's words, two engines
 * beside it (memory, PostgreSQL), one contract test for both. The engine
 * itself keeps the no-overlap rule: `inserir` books only if, at that
 * instant, nothing of the room overlaps, so no lookup-then-write race can
 * double-book a room, whatever the number of servers.
 */
import type { DadosDaReserva, Intervalo, Reserva } from '../dominio/regras.js';

/**
 * What `inserir` did: booked, found the room taken, or found the key
 * already held by a booking (which it did not make again).
 */
export type Insercao = { tipo: 'feita'; reserva: Reserva } | { tipo: 'ocupada' } | { tipo: 'chave-usada'; reserva: Reserva };

export interface Reservas {
  /** Bookings of `sala` that overlap `intervalo`, by start. */
  conflitos(sala: string, intervalo: Intervalo): Promise<Reserva[]>;
  /** Of `salas`, those with some booking overlapping `intervalo`. */
  ocupadas(salas: readonly string[], intervalo: Intervalo): Promise<ReadonlySet<string>>;
  /**
   * Books with the next id, unless the room is taken in the interval or
   * `chave` already belongs to a booking. The key is stored with the
   * booking under the same atomicity as the no-overlap rule: of any number
   * of calls with one key, on any number of servers, at most one books.
   */
  inserir(dados: DadosDaReserva, intervalo: Intervalo, chave?: string): Promise<Insercao>;
  /** The booking stored under `chave`, if any. */
  porChave(chave: string): Promise<Reserva | undefined>;
  /** Resolves when the store answers a query now (readiness); rejects with ReservasIndisponiveis when it cannot. */
  alcancavel(): Promise<void>;
  /** What the start-up line says about where bookings are (never a password). */
  readonly descricao: string;
  fechar(): Promise<void>;
}

/**
 * The store could not answer (database down, connection lost). Its message
 * is the only text that reaches the wire; the cause stays in the log.
 */
export class ReservasIndisponiveis extends Error {
  constructor(cause: unknown) {
    super('Banco de reservas indisponivel: tente de novo em instantes', { cause });
    this.name = 'ReservasIndisponiveis';
  }
}

/**
 * A store that cannot answer is a server failure, not a tool result or an
 * unknown resource: it is reported out of band (`aoFalhar`, with its cause,
 * for the log line), and the HTTP front answers the request with a
 * JSON-RPC error instead (the SDK would turn it into a tool's isError).
 */
export function relatarIndisponibilidade<A extends unknown[], R>(aoFalhar: (erro: Error) => void, handler: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } catch (erro) {
      if (erro instanceof ReservasIndisponiveis) aoFalhar(erro);
      throw erro;
    }
  };
}
