/**
 * Room rules: validation against the policy, half-open overlap, alternatives
 * and booking. No protocol types here; the MCP adapter maps these values to
 * the wire. Errors are values (`{ ok: false, erro }`), never exceptions.
 */
import { lerInstante, msDoDiaLocal } from './horario.js';
import type { Politica } from './politica.js';

export interface Sala {
  readonly id: string;
  readonly nome: string;
  readonly capacidade: number;
  readonly recursos: readonly string[];
}

export interface Reserva {
  readonly id: string;
  readonly sala: string;
  readonly inicio: string;
  readonly fim: string;
  readonly responsavel: string;
}

export interface Pedido {
  readonly sala: string;
  readonly inicio: string;
  readonly fim: string;
}

/** Half-open [inicio, fim) in epoch milliseconds: touching intervals do not overlap. */
export interface Intervalo {
  readonly inicio: number;
  readonly fim: number;
}

export type Validacao = { ok: true; sala: Sala; intervalo: Intervalo } | { ok: false; erro: string };

export type Resultado =
  | { tipo: 'reservada'; reserva: Reserva }
  | { tipo: 'ocupada'; alternativas: string[] }
  | { tipo: 'erro'; erro: string };

const MAXIMO_DE_ALTERNATIVAS = 3;
const MS_POR_DIA = 86_400_000;

function hhmm(minutos: number): string {
  return `${String(Math.floor(minutos / 60)).padStart(2, '0')}:${String(minutos % 60).padStart(2, '0')}`;
}

/** The exact texts of the spec, with the policy's numbers filled in. */
export function mensagens(politica: Politica) {
  return {
    salaInexistente: (id: string) => `Sala inexistente: ${id}`,
    instanteInvalido: (campo: string) =>
      `Data/hora invalida em ${campo}: use ISO 8601 com fuso explicito, por exemplo 2026-11-03T14:00:00-03:00`,
    intervaloInvalido: 'Intervalo invalido: fim deve ser posterior a inicio',
    foraDaJanela: `Fora da janela de uso: a politica permite reservas entre ${hhmm(politica.abertura)} e ${hhmm(politica.fechamento)}`,
    duracaoAcimaDoLimite: `Duracao acima do limite: a politica permite no maximo ${politica.duracaoMaximaHoras} horas`,
    semAlternativas: 'Sem alternativas disponiveis no intervalo',
  } as const;
}

export function sobrepoe(a: Intervalo, b: Intervalo): boolean {
  return a.inicio < b.fim && b.inicio < a.fim;
}

/** Validation order: room, timestamps, interval, window, duration. */
export function validar(politica: Politica, salas: ReadonlyMap<string, Sala>, pedido: Pedido): Validacao {
  const texto = mensagens(politica);
  const sala = salas.get(pedido.sala);
  if (!sala) return { ok: false, erro: texto.salaInexistente(pedido.sala) };
  const inicio = lerInstante(pedido.inicio);
  if (inicio === undefined) return { ok: false, erro: texto.instanteInvalido('inicio') };
  const fim = lerInstante(pedido.fim);
  if (fim === undefined) return { ok: false, erro: texto.instanteInvalido('fim') };
  if (fim <= inicio) return { ok: false, erro: texto.intervaloInvalido };
  const abre = politica.abertura * 60_000;
  const fecha = politica.fechamento * 60_000;
  const local = (instante: number) => instante + politica.deslocamentoMin * 60_000;
  const dentro = (instante: number) => {
    const ms = msDoDiaLocal(instante, politica.deslocamentoMin);
    return ms >= abre && ms <= fecha;
  };
  // Both ends inside the window and on the same local day: an interval
  // through the night would cross the hours the policy closes.
  const mesmoDia = Math.floor(local(inicio) / MS_POR_DIA) === Math.floor(local(fim) / MS_POR_DIA);
  if (!dentro(inicio) || !dentro(fim) || !mesmoDia) return { ok: false, erro: texto.foraDaJanela };
  if (fim - inicio > politica.duracaoMaximaHoras * 3_600_000) return { ok: false, erro: texto.duracaoAcimaDoLimite };
  return { ok: true, sala, intervalo: { inicio, fim } };
}

/**
 * Rooms other than the requested one, free in the interval, with at least
 * its capacity; by capacity, then id; at most three.
 */
export function escolherAlternativas(salas: Iterable<Sala>, pedida: Sala, livre: (sala: Sala) => boolean): string[] {
  return [...salas]
    .filter((sala) => sala.id !== pedida.id && sala.capacidade >= pedida.capacidade && livre(sala))
    .sort((a, b) => a.capacidade - b.capacidade || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, MAXIMO_DE_ALTERNATIVAS)
    .map((sala) => sala.id);
}

interface Ocupacao extends Intervalo {
  readonly reserva: Reserva;
}

/**
 * The in-memory agenda: rooms, bookings indexed per room and sorted by start,
 * so a lookup costs a binary search plus the conflicts it returns.
 */
export class Agenda {
  readonly salas: ReadonlyMap<string, Sala>;
  private readonly ocupacoes = new Map<string, Ocupacao[]>();
  private ultimoNumero = 0;

  constructor(
    salas: readonly Sala[],
    reservas: readonly Reserva[],
    readonly politica: Politica,
  ) {
    this.salas = new Map(salas.map((sala) => [sala.id, sala]));
    for (const sala of salas) this.ocupacoes.set(sala.id, []);
    for (const reserva of reservas) {
      const inicio = lerInstante(reserva.inicio);
      const fim = lerInstante(reserva.fim);
      if (inicio === undefined || fim === undefined || fim <= inicio || !this.ocupacoes.has(reserva.sala)) {
        throw new Error(`reservas.json: reserva invalida ${reserva.id}`);
      }
      // The lookups rely on the bookings of a room never overlapping.
      const conflito = this.conflitos(reserva.sala, { inicio, fim })[0];
      if (conflito) throw new Error(`reservas.json: ${reserva.id} se sobrepoe a ${conflito.id} na ${reserva.sala}`);
      this.inserir({ inicio, fim, reserva });
      this.ultimoNumero = Math.max(this.ultimoNumero, Number(/(\d+)$/.exec(reserva.id)?.[1] ?? 0));
    }
  }

  validar(pedido: Pedido): Validacao {
    return validar(this.politica, this.salas, pedido);
  }

  conflitos(sala: string, intervalo: Intervalo): Reserva[] {
    const lista = this.ocupacoes.get(sala) ?? [];
    const encontrados: Reserva[] = [];
    for (let i = this.primeiraQueTerminaDepois(lista, intervalo.inicio); i < lista.length; i++) {
      const ocupacao = lista[i]!;
      if (ocupacao.inicio >= intervalo.fim) break;
      if (sobrepoe(ocupacao, intervalo)) encontrados.push(ocupacao.reserva);
    }
    return encontrados;
  }

  alternativas(pedida: Sala, intervalo: Intervalo): string[] {
    return escolherAlternativas(this.salas.values(), pedida, (sala) => this.conflitos(sala.id, intervalo).length === 0);
  }

  /**
   * Books `sala` when free; otherwise offers the alternatives to `pedida`
   * (the room first asked for), or says there are none.
   */
  reservar(sala: Sala, intervalo: Intervalo, dados: Omit<Reserva, 'id' | 'sala'>, pedida: Sala = sala): Resultado {
    if (this.conflitos(sala.id, intervalo).length > 0) {
      const alternativas = this.alternativas(pedida, intervalo);
      return alternativas.length > 0
        ? { tipo: 'ocupada', alternativas }
        : { tipo: 'erro', erro: mensagens(this.politica).semAlternativas };
    }
    this.ultimoNumero += 1;
    const reserva: Reserva = { id: `res-${String(this.ultimoNumero).padStart(4, '0')}`, sala: sala.id, ...dados };
    this.inserir({ ...intervalo, reserva });
    return { tipo: 'reservada', reserva };
  }

  private inserir(ocupacao: Ocupacao): void {
    const lista = this.ocupacoes.get(ocupacao.reserva.sala)!;
    let baixo = 0;
    let alto = lista.length;
    while (baixo < alto) {
      const meio = (baixo + alto) >>> 1;
      if (lista[meio]!.inicio <= ocupacao.inicio) baixo = meio + 1;
      else alto = meio;
    }
    lista.splice(baixo, 0, ocupacao);
  }

  /** Bookings of one room never overlap, so sorted by start they are sorted by end too. */
  private primeiraQueTerminaDepois(lista: readonly Ocupacao[], instante: number): number {
    let baixo = 0;
    let alto = lista.length;
    while (baixo < alto) {
      const meio = (baixo + alto) >>> 1;
      if (lista[meio]!.fim <= instante) baixo = meio + 1;
      else alto = meio;
    }
    return baixo;
  }
}
