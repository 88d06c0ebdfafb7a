/**
 * Room rules: validation against the policy, half-open overlap, the
 * alternatives to a taken room, and what a valid initial booking is. Pure
 * functions: no storage, no protocol. Errors are values, never exceptions.
 */
import type { PedidoDeReserva, Sala } from 'compartilhado/contrato';
import { citado } from 'compartilhado/entrada';
import { fusoEmTexto, hhmm, lerDia, lerInstante, msDoDiaLocal } from './horario.js';
import type { Politica } from './politica.js';

export type { Sala };

/** What a booking records besides its id: the request as the client wrote it. */
export type DadosDaReserva = PedidoDeReserva;

export type Reserva = DadosDaReserva & { readonly id: string };

/** What validation looks at: a booking request without who books. */
export type Pedido = Omit<PedidoDeReserva, 'responsavel'>;

/** Half-open [inicio, fim) in epoch milliseconds: touching intervals do not overlap. */
export interface Intervalo {
  readonly inicio: number;
  readonly fim: number;
}

/** A booking with the interval its texts denote. */
export interface Ocupacao extends Intervalo {
  readonly reserva: Reserva;
}

/** Why a request cannot be served: a code to branch on, and the spec's exact text for the client. */
export interface Motivo {
  readonly codigo:
    | 'sala-inexistente'
    | 'instante-invalido'
    | 'intervalo-invalido'
    | 'fora-da-janela'
    | 'duracao-acima-do-limite'
    | 'sem-alternativas'
    | 'dia-invalido';
  readonly mensagem: string;
}

export type Validacao = { ok: true; sala: Sala; intervalo: Intervalo } | { ok: false; motivo: Motivo };

export type Resultado =
  { tipo: 'reservada'; reserva: Reserva } | { tipo: 'ocupada'; alternativas: string[] } | { tipo: 'recusada'; motivo: Motivo };

const MAXIMO_DE_ALTERNATIVAS = 3;
const MS_POR_DIA = 86_400_000;

/** Every reason a request is refused, with the spec's exact texts and the policy's numbers filled in. */
export function motivos(politica: Politica) {
  return {
    salaInexistente: (id: string): Motivo => ({ codigo: 'sala-inexistente', mensagem: `Sala inexistente: ${citado(id)}` }),
    instanteInvalido: (campo: 'inicio' | 'fim'): Motivo => ({
      codigo: 'instante-invalido',
      mensagem: `Data/hora invalida em ${campo}: use ISO 8601 com fuso explicito, por exemplo 2026-11-03T14:00:00-03:00`,
    }),
    intervaloInvalido: { codigo: 'intervalo-invalido', mensagem: 'Intervalo invalido: fim deve ser posterior a inicio' } satisfies Motivo,
    foraDaJanela: {
      codigo: 'fora-da-janela',
      mensagem: `Fora da janela de uso: a politica permite reservas entre ${hhmm(politica.abertura)} e ${hhmm(politica.fechamento)}`,
    } satisfies Motivo,
    duracaoAcimaDoLimite: {
      codigo: 'duracao-acima-do-limite',
      mensagem: `Duracao acima do limite: a politica permite no maximo ${String(politica.duracaoMaximaHoras)} horas`,
    } satisfies Motivo,
    semAlternativas: { codigo: 'sem-alternativas', mensagem: 'Sem alternativas disponiveis no intervalo' } satisfies Motivo,
    diaInvalido: (dia: string): Motivo => ({
      codigo: 'dia-invalido',
      mensagem: `Dia invalido: ${JSON.stringify(citado(dia))}; use AAAA-MM-DD, um dia do calendario no fuso da politica (${fusoEmTexto(politica.deslocamentoMin)})`,
    }),
  } as const;
}

export function sobrepoe(a: Intervalo, b: Intervalo): boolean {
  return a.inicio < b.fim && b.inicio < a.fim;
}

/** Validation order: room, timestamps, interval, window, duration. */
export function validar(politica: Politica, salas: ReadonlyMap<string, Sala>, pedido: Pedido): Validacao {
  const recusa = motivos(politica);
  const sala = salas.get(pedido.sala);
  if (!sala) return { ok: false, motivo: recusa.salaInexistente(pedido.sala) };
  const inicio = lerInstante(pedido.inicio);
  if (inicio === undefined) return { ok: false, motivo: recusa.instanteInvalido('inicio') };
  const fim = lerInstante(pedido.fim);
  if (fim === undefined) return { ok: false, motivo: recusa.instanteInvalido('fim') };
  if (fim <= inicio) return { ok: false, motivo: recusa.intervaloInvalido };
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
  if (!dentro(inicio) || !dentro(fim) || !mesmoDia) return { ok: false, motivo: recusa.foraDaJanela };
  if (fim - inicio > politica.duracaoMaximaHoras * 3_600_000) return { ok: false, motivo: recusa.duracaoAcimaDoLimite };
  return { ok: true, sala, intervalo: { inicio, fim } };
}

/** A room's calendar day in the policy's zone, as the interval whose bookings make its agenda. */
export function validarDia(
  politica: Politica,
  salas: ReadonlyMap<string, Sala>,
  sala: string,
  dia: string,
): { ok: true; sala: Sala; intervalo: Intervalo } | { ok: false; motivo: Motivo } {
  const recusa = motivos(politica);
  const encontrada = salas.get(sala);
  if (!encontrada) return { ok: false, motivo: recusa.salaInexistente(sala) };
  const intervalo = lerDia(dia, politica.deslocamentoMin);
  if (!intervalo) return { ok: false, motivo: recusa.diaInvalido(dia) };
  return { ok: true, sala: encontrada, intervalo };
}

/** Room ids that start with `prefixo`, whatever its case: what a client completes a `sala` with. */
export function salasComPrefixo(salas: Iterable<Sala>, prefixo: string): string[] {
  const procurado = prefixo.toLowerCase();
  return [...salas].map((sala) => sala.id).filter((id) => id.toLowerCase().startsWith(procurado));
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

/** Booking ids are `res-` and a number of at least four digits; every store numbers them the same way. */
export const idDaReserva = (numero: number): string => `res-${String(numero).padStart(4, '0')}`;

/** The number of a booking id, or undefined when the id is not written the way idDaReserva writes it. */
export function numeroDaReserva(id: string): number | undefined {
  const numero = Number(/^res-(\d+)$/.exec(id)?.[1]);
  return Number.isSafeInteger(numero) && numero > 0 && idDaReserva(numero) === id ? numero : undefined;
}

/**
 * The initial bookings (dados/reservas.json) as the stores take them, or
 * why they cannot be: an id out of the numbering, an unknown room, a time
 * that is not an instant, an interval that runs backwards, or two bookings
 * of one room that overlap (every lookup relies on that never being so).
 */
export function lerSemente(
  salas: ReadonlyMap<string, Sala>,
  reservas: readonly Reserva[],
): { ok: true; ocupacoes: Ocupacao[] } | { ok: false; motivo: string } {
  const ocupacoes: Ocupacao[] = [];
  const ids = new Set<string>();
  for (const reserva of reservas) {
    const inicio = lerInstante(reserva.inicio);
    const fim = lerInstante(reserva.fim);
    if (numeroDaReserva(reserva.id) === undefined) return { ok: false, motivo: `id ${reserva.id} fora do formato res-NNNN` };
    if (ids.has(reserva.id)) return { ok: false, motivo: `id ${reserva.id} repetido` };
    if (inicio === undefined || fim === undefined || fim <= inicio || !salas.has(reserva.sala))
      return { ok: false, motivo: `reserva invalida ${reserva.id}` };
    ids.add(reserva.id);
    ocupacoes.push({ inicio, fim, reserva });
  }
  // Sorted by room, then start: an overlap is always between neighbours.
  const ordenadas = [...ocupacoes].sort((a, b) =>
    a.reserva.sala < b.reserva.sala ? -1 : a.reserva.sala > b.reserva.sala ? 1 : a.inicio - b.inicio,
  );
  let antes: Ocupacao | undefined;
  for (const depois of ordenadas) {
    if (antes?.reserva.sala === depois.reserva.sala && sobrepoe(antes, depois)) {
      return { ok: false, motivo: `${depois.reserva.id} se sobrepoe a ${antes.reserva.id} na ${depois.reserva.sala}` };
    }
    antes = depois;
  }
  return { ok: true, ocupacoes };
}
