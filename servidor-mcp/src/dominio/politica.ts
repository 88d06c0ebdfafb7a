/**
 * The usage policy is the single source of the room limits: the numbers are
 * read from dados/politica-de-uso.md, never repeated in code, so editing the
 * policy file changes both the rules and the error messages that cite them.
 */
import { versaoDaPolitica } from 'compartilhado/contrato';

export interface Politica {
  readonly versao: string;
  readonly texto: string;
  /** Opening and closing of the usage window, minutes after local midnight. */
  readonly abertura: number;
  readonly fechamento: number;
  /** Offset of the policy's local time from UTC, in minutes (-03:00 is -180). */
  readonly deslocamentoMin: number;
  readonly duracaoMaximaHoras: number;
}

export type LeituraDaPolitica = { ok: true; politica: Politica } | { ok: false; motivo: string };

const falta = (oQue: string): LeituraDaPolitica => ({ ok: false, motivo: `politica-de-uso.md: nao encontrei ${oQue}` });

export function lerPolitica(texto: string): LeituraDaPolitica {
  const versao = versaoDaPolitica(texto);
  if (!versao) return falta('a primeira linha "versao: ..."');
  const janela = /entre (\d{2}):(\d{2}) e (\d{2}):(\d{2})/.exec(texto);
  if (!janela) return falta('a janela "entre HH:MM e HH:MM"');
  const fuso = /\(([+-])(\d{2}):(\d{2})\)/.exec(texto);
  if (!fuso) return falta('o fuso "(+-HH:MM)"');
  const duracao = /maxima de (\d+) horas?/.exec(texto);
  if (!duracao) return falta('a "Duracao maxima de N horas"');
  const minutos = (horas: string | undefined, resto: string | undefined) => Number(horas) * 60 + Number(resto);
  return {
    ok: true,
    politica: Object.freeze({
      versao,
      texto,
      abertura: minutos(janela[1], janela[2]),
      fechamento: minutos(janela[3], janela[4]),
      deslocamentoMin: (fuso[1] === '-' ? -1 : 1) * minutos(fuso[2], fuso[3]),
      duracaoMaximaHoras: Number(duracao[1]),
    }),
  };
}
