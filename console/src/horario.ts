/** The form's clock: São Paulo time, the policy's zone, as the agent expects it on the wire. */
export const FUSO = '-03:00';

/** A `datetime-local` value ("2026-11-03T14:00") as ISO 8601 with the offset; undefined when it is not one. */
export function paraIso(local: string): string | undefined {
  const partes = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?$/.exec(local);
  return partes ? `${partes[1] ?? ''}${partes[2] ?? ':00'}${FUSO}` : undefined;
}

/** What the form can say before asking the agent: the agent's answer is the one shown in the end. */
export function conferirIntervalo(inicio: string, fim: string): string | undefined {
  if (!paraIso(inicio) || !paraIso(fim)) return 'Preencha início e fim.';
  return fim > inicio ? undefined : 'O fim deve ser depois do início.';
}

/** An event's time, as the person reads it: HH:MM:SS in São Paulo. */
export function horaDe(timestamp: string | undefined): string {
  if (!timestamp) return '';
  const [, sinal = '+', horas = '0'] = /^([+-])(\d{2})/.exec(FUSO) ?? [];
  const instante = new Date(Date.parse(timestamp) + Number(`${sinal}${horas}`) * 3600_000);
  return Number.isNaN(instante.getTime()) ? '' : instante.toISOString().slice(11, 19);
}
