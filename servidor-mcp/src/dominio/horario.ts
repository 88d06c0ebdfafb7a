/**
 * ISO 8601 instants with an explicit offset. Without an offset a time is
 * ambiguous, and the policy window only makes sense in one zone, so such
 * values are refused instead of guessed.
 */
const INSTANTE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

function diasNoMes(ano: number, mes: number): number {
  return new Date(Date.UTC(ano, mes, 0)).getUTCDate();
}

/** Milliseconds since the epoch, or undefined when the text is not such an instant. */
export function lerInstante(texto: string): number | undefined {
  const partes = INSTANTE.exec(texto);
  if (!partes) return undefined;
  // Only seconds and fraction are optional in the pattern; the other defaults are never used.
  const [, a, mo, d, h, mi, s = '0', fracao = '0', fuso = 'Z'] = partes;
  const ano = Number(a),
    mes = Number(mo),
    dia = Number(d),
    hora = Number(h),
    minuto = Number(mi),
    segundo = Number(s);
  if (mes < 1 || mes > 12 || dia < 1 || dia > diasNoMes(ano, mes)) return undefined;
  if (hora > 23 || minuto > 59 || segundo > 59) return undefined;
  let deslocamento = 0;
  if (fuso !== 'Z') {
    const oh = Number(fuso.slice(1, 3)),
      om = Number(fuso.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    deslocamento = (fuso.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Math.round(Number(`0.${fracao}`) * 1000);
  return Date.UTC(ano, mes - 1, dia, hora, minuto, segundo, ms) - deslocamento * 60_000;
}

const MS_POR_DIA = 86_400_000;

const DIA = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A calendar day, `AAAA-MM-DD`, in the zone `deslocamentoMin` away from
 * UTC, as the half-open interval of its instants; undefined for anything
 * that is not a real day.
 */
export function lerDia(texto: string, deslocamentoMin: number): { inicio: number; fim: number } | undefined {
  const partes = DIA.exec(texto);
  if (!partes) return undefined;
  const [, a, m, d] = partes;
  const ano = Number(a),
    mes = Number(m),
    dia = Number(d);
  if (mes < 1 || mes > 12 || dia < 1 || dia > diasNoMes(ano, mes)) return undefined;
  const inicio = Date.UTC(ano, mes - 1, dia) - deslocamentoMin * 60_000;
  return { inicio, fim: inicio + MS_POR_DIA };
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
