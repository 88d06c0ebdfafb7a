/**
 * The resources: the usage policy, and each room's agenda of one day
 * (a template). The agenda is read from the store at every read, so it
 * shows a booking made a moment before, whichever store holds it.
 */
import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { URI_DA_POLITICA } from 'compartilhado/contrato';
import type { Agenda } from './agenda.js';
import { salasComPrefixo } from './dominio/regras.js';

export const MODELO_DA_AGENDA = 'agenda://{sala}/{dia}';

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

export function registrarAgenda(servidor: McpServer, agenda: Agenda): void {
  servidor.registerResource(
    'agenda-do-dia',
    // Days are endless: the template is listed, its resources are not.
    new ResourceTemplate(MODELO_DA_AGENDA, {
      list: undefined,
      complete: { sala: (prefixo) => salasComPrefixo(agenda.salas.values(), prefixo) },
    }),
    {
      title: 'Agenda de uma sala num dia',
      description:
        'As reservas de uma sala num dia (AAAA-MM-DD, no fuso da politica), por ordem de inicio: ' +
        '{sala, dia, reservas: [{reserva, inicio, fim, responsavel}]}. Sempre atual.',
      mimeType: 'application/json',
    },
    async (uri, variaveis) => {
      const sala = String(variaveis.sala);
      const dia = String(variaveis.dia);
      const lida = await agenda.doDia(sala, dia);
      if (!lida.ok) throw new ResourceNotFoundError(uri.href, `Agenda inexistente (${uri.href}): ${lida.motivo.mensagem}`);
      const reservas = lida.reservas.map(({ id, inicio, fim, responsavel }) => ({ reserva: id, inicio, fim, responsavel }));
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ sala, dia, reservas }, null, 2) }],
      };
    },
  );
}
