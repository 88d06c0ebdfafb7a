import { selarTexto } from 'compartilhado/selo';

/** A body as the panel shows it: JSON indented with its states sealed; a stream, one event per block. */
export function corpoParaOFio(texto: string): string {
  const eventos = texto
    .split(/\n\n+/)
    .map((bloco) => /^data: (.*)$/m.exec(bloco)?.[1])
    .filter((dados) => dados !== undefined);
  return (eventos.length > 0 ? eventos : [texto]).map((json) => selarTexto(json, 2)).join('\n\n');
}
