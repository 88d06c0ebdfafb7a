/**
 * ISO 8601 instants with an explicit offset. Without an offset a time is
 * ambiguous, and the policy window only makes sense in one zone, so such
 * values are refused instead of guessed.
 */
const INSTANTE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A date and time read as UTC, in epoch milliseconds; undefined when the
 * date does not exist. Years 0001 to 9999, all that four ISO 8601 digits
 * hold, read as written (Date.UTC alone reads 0026 as 1926).
 */
function emUtc(ano: number, mes: number, dia: number, hora = 0, minuto = 0, segundo = 0, ms = 0): number | undefined {
  if (ano < 1 || mes < 1 || mes > 12 || dia < 1 || hora > 23 || minuto > 59 || segundo > 59) return undefined;
  const data = new Date(0);
  data.setUTCFullYear(ano, mes - 1, dia);
  // A day past the end of its month rolls into the next one.
  if (data.getUTCMonth() !== mes - 1) return undefined;
  data.setUTCHours(hora, minuto, segundo, ms);
  return data.getTime();
}

/** Milliseconds since the epoch, or undefined when the text is not such an instant. */
export function lerInstante(texto: string): number | undefined {
  const partes = INSTANTE.exec(texto);
  if (!partes) return undefined;
  // Only seconds and fraction are optional in the pattern; the other defaults are never used.
  const [, a, mo, d, h, mi, s = '0', fracao = '0', fuso = 'Z'] = partes;
  const ms = Math.round(Number(`0.${fracao}`) * 1000);
  const local = emUtc(Number(a), Number(mo), Number(d), Number(h), Number(mi), Number(s), ms);
  if (local === undefined) return undefined;
  let deslocamento = 0;
  if (fuso !== 'Z') {
    const oh = Number(fuso.slice(1, 3)),
      om = Number(fuso.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    deslocamento = (fuso.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  return local - deslocamento * 60_000;
}

const MS_POR_DIA = 86_400_000;

const DIA = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instants a store can write as four-digit-year ISO 8601 text (PostgreSQL refuses `+010000-01-01...`). */
const PRIMEIRO_INSTANTE = emUtc(1, 1, 1) ?? 0;
const ULTIMO_INSTANTE = (emUtc(9999, 12, 31, 23, 59, 59, 999) ?? 0) + 1;

/**
 * A calendar day, `AAAA-MM-DD`, in the zone `deslocamentoMin` away from
 * UTC, as the half-open interval of its instants; undefined for anything
 * that is not a real day, or whose instants leave years 0001-9999.
 */
export function lerDia(texto: string, deslocamentoMin: number): { inicio: number; fim: number } | undefined {
  const partes = DIA.exec(texto);
  if (!partes) return undefined;
  const [, a, m, d] = partes;
  const meiaNoite = emUtc(Number(a), Number(m), Number(d));
  if (meiaNoite === undefined) return undefined;
  const inicio = meiaNoite - deslocamentoMin * 60_000;
  const fim = inicio + MS_POR_DIA;
  return inicio < PRIMEIRO_INSTANTE || fim > ULTIMO_INSTANTE ? undefined : { inicio, fim };
}

/** Minutes after midnight as `HH:MM`. */
export function hhmm(minutos: number): string {
  return `${String(Math.floor(minutos / 60)).padStart(2, '0')}:${String(minutos % 60).padStart(2, '0')}`;
}

/** -180 as `-03:00`. */
export function fusoEmTexto(deslocamentoMin: number): string {
  return `${deslocamentoMin < 0 ? '-' : '+'}${hhmm(Math.abs(deslocamentoMin))}`;
}

/** Milliseconds after local midnight in a zone `deslocamentoMin` away from UTC. */
export function msDoDiaLocal(instante: number, deslocamentoMin: number): number {
  const local = instante + deslocamentoMin * 60_000;
  return ((local % MS_POR_DIA) + MS_POR_DIA) % MS_POR_DIA;
}
