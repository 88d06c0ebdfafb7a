/**
 * The rooms, the policy and the store of bookings, put together: the tools
 * ask this, never the store directly. It applies the pure rules of
 * dominio/regras.ts over whichever store was configured.
 */
import {
  escolherAlternativas,
  motivos,
  salasComPrefixo,
  validar,
  validarDia,
  type DadosDaReserva,
  type Intervalo,
  type Motivo,
  type Pedido,
  type Reserva,
  type Resultado,
  type Sala,
  type Validacao,
} from './dominio/regras.js';
import type { Politica } from './dominio/politica.js';
import type { Reservas } from './reservas/reservas.js';

/** What a booking attempt came to: the domain's outcomes, or the booking that already holds the key. */
export type Tentativa = Resultado | { tipo: 'chave-usada'; reserva: Reserva };

export class Agenda {
  constructor(
    readonly salas: ReadonlyMap<string, Sala>,
    readonly politica: Politica,
    private readonly reservas: Reservas,
  ) {}

  /** Where bookings live, for the start-up line. */
  get onde(): string {
    return this.reservas.descricao;
  }

  /** Readiness: the bookings store answers a query now. */
  alcancavel(): Promise<void> {
    return this.reservas.alcancavel();
  }

  validar(pedido: Pedido): Validacao {
    return validar(this.politica, this.salas, pedido);
  }

  conflitos(sala: string, intervalo: Intervalo): Promise<Reserva[]> {
    return this.reservas.conflitos(sala, intervalo);
  }

  /** Room ids starting with `prefixo`, any case: the completions of every `sala` argument. */
  readonly completarSala = (prefixo: string): string[] => salasComPrefixo(this.salas.values(), prefixo);

  /** The bookings of `sala` on the calendar day `dia` in the policy's zone, by start, read from the store now. */
  async doDia(sala: string, dia: string): Promise<{ ok: true; reservas: Reserva[] } | { ok: false; motivo: Motivo }> {
    const validacao = validarDia(this.politica, this.salas, sala, dia);
    if (!validacao.ok) return validacao;
    return { ok: true, reservas: await this.reservas.conflitos(validacao.sala.id, validacao.intervalo) };
  }

  /** The booking stored under an idempotency key, if any. */
  porChave(chave: string): Promise<Reserva | undefined> {
    return this.reservas.porChave(chave);
  }

  /**
   * Books `sala` when free; otherwise offers the alternatives to `pedida`
   * (the room first asked for), or says there are none. The store decides
   * "taken" at the moment of writing, and the alternatives are computed
   * right after, so a race lost to another server reads like any conflict.
   * With `chave`, a booking already stored under it is answered instead,
   * whatever room or interval it holds: the caller judges whether it is the
   * same request.
   */
  async reservar(
    sala: Sala,
    intervalo: Intervalo,
    dados: Omit<DadosDaReserva, 'sala'>,
    pedida: Sala = sala,
    chave?: string,
  ): Promise<Tentativa> {
    const insercao = await this.reservas.inserir({ sala: sala.id, ...dados }, intervalo, chave);
    if (insercao.tipo === 'feita') return { tipo: 'reservada', reserva: insercao.reserva };
    if (insercao.tipo === 'chave-usada') return insercao;
    const ocupadas = await this.reservas.ocupadas([...this.salas.keys()], intervalo);
    const alternativas = escolherAlternativas(this.salas.values(), pedida, (candidata) => !ocupadas.has(candidata.id));
    return alternativas.length > 0
      ? { tipo: 'ocupada', alternativas }
      : { tipo: 'recusada', motivo: motivos(this.politica).semAlternativas };
  }

  fechar(): Promise<void> {
    return this.reservas.fechar();
  }
}
