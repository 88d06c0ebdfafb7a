/**
 * The resources: the usage policy, and each room's agenda of one day
 * (a template). The agenda is read from the store at every read, so it
 * shows a booking made a moment before, whichever store holds it.
 */
import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { URI_DA_POLITICA } from 'compartilhado/contrato';
import type { Agenda } from './agenda.js';
import { relatarIndisponibilidade } from './reservas/reservas.js';

export function registrarPolitica(servidor: McpServer, agenda: Agenda, cacheMs: number): void {
  servidor.registerResource(
    'politica-de-uso',
    URI_DA_POLITICA,
    {
      title: 'Politica de uso das salas',
      description: 'Regras de reserva; a primeira linha declara a versao.',
      mimeType: 'text/markdown',
      cacheHint: { ttlMs: cacheMs },
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: agenda.politica.texto }] }),
  );
}

/** A template variable as the client meant it: percent-decoded when it decodes, as written otherwise. */
function decodificado(valor: string | string[] | undefined): string {
  const texto = String(valor);
  try {
    return decodeURIComponent(texto);
  } catch {
    return texto;
  }
}

export function registrarAgenda(servidor: McpServer, agenda: Agenda, aoFalhar: (erro: Error) => void): void {
  servidor.registerResource(
    'agenda-do-dia',
    // Days are endless: the template is listed, its resources are not.
    new ResourceTemplate('agenda://{sala}/{dia}', { list: undefined, complete: { sala: agenda.completarSala } }),
    {
      title: 'Agenda de uma sala num dia',
      description:
        'As reservas de uma sala num dia (AAAA-MM-DD, no fuso da politica), por ordem de inicio: ' +
        '{sala, dia, reservas: [{reserva, inicio, fim, responsavel}]}. Sempre atual.',
      mimeType: 'application/json',
    },
    relatarIndisponibilidade(aoFalhar, async (uri: URL, variaveis: Record<string, string | string[]>) => {
      const sala = decodificado(variaveis.sala);
      const dia = decodificado(variaveis.dia);
      const lida = await agenda.doDia(sala, dia);
      // data.uri names the resource; the message says what is wrong with it.
      if (!lida.ok) throw new ResourceNotFoundError(uri.href, `Agenda inexistente: ${lida.motivo.mensagem}`);
      const reservas = lida.reservas.map(({ id, inicio, fim, responsavel }) => ({ reserva: id, inicio, fim, responsavel }));
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ sala, dia, reservas }, null, 2) }],
      };
    }),
  );
}
