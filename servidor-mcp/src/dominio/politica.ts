/**
 * The usage policy is the single source of the room limits: the numbers are
 * read from dados/politica-de-uso.md, never repeated in code, so editing the
 * policy file changes both the rules and the error messages that cite them.
 */
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

function exigir(texto: string, padrao: RegExp, oQue: string): RegExpMatchArray {
  const achado = texto.match(padrao);
  if (!achado) throw new Error(`politica-de-uso.md: nao encontrei ${oQue}`);
  return achado;
}

export function lerPolitica(texto: string): Politica {
  const [, versao] = exigir(texto.split('\n', 1)[0] ?? '', /^versao:\s*(\S+)\s*$/, 'a primeira linha "versao: ..."');
  const [, h1, m1, h2, m2] = exigir(texto, /entre (\d{2}):(\d{2}) e (\d{2}):(\d{2})/, 'a janela "entre HH:MM e HH:MM"');
  const [, sinal, oh, om] = exigir(texto, /\(([+-])(\d{2}):(\d{2})\)/, 'o fuso "(+-HH:MM)"');
  const [, horas] = exigir(texto, /maxima de (\d+) horas?/, 'a "Duracao maxima de N horas"');
  return Object.freeze({
    versao: versao!,
    texto,
    abertura: Number(h1) * 60 + Number(m1),
    fechamento: Number(h2) * 60 + Number(m2),
    deslocamentoMin: (sinal === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)),
    duracaoMaximaHoras: Number(horas),
  });
}
