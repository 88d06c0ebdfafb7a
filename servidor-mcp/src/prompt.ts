/**
 * The prompt `reservar-sala`: the messages a model-driven host would use to
 * call reservar_sala correctly. Deterministic text built from the policy;
 * no model is involved anywhere.
 */
import { completable, type McpServer } from '@modelcontextprotocol/server';
import { FERRAMENTAS, URI_DA_POLITICA } from 'compartilhado/contrato';
import * as z from 'zod';
import type { Agenda } from './agenda.js';
import { fusoEmTexto, hhmm } from './dominio/horario.js';
import { salasComPrefixo } from './dominio/regras.js';

export const PROMPT_DE_RESERVA = 'reservar-sala';

export function registrarPrompt(servidor: McpServer, agenda: Agenda): void {
  const { politica } = agenda;
  const fuso = fusoEmTexto(politica.deslocamentoMin);
  const argumentos = z.object({
    sala: completable(z.string().describe('Id da sala, como listar_salas devolve (ex.: sala-garagem)'), (prefixo) =>
      salasComPrefixo(agenda.salas.values(), prefixo),
    ),
    inicio: z.string().describe(`Inicio em ISO 8601 com fuso explicito (ex.: 2026-11-03T14:00:00${fuso})`),
    fim: z.string().describe(`Fim em ISO 8601 com fuso explicito (ex.: 2026-11-03T15:00:00${fuso})`),
    responsavel: z.string().describe('Quem reserva'),
  });
  servidor.registerPrompt(
    PROMPT_DE_RESERVA,
    {
      title: 'Reservar uma sala',
      description: `Como chamar ${FERRAMENTAS.reservar} corretamente, com a politica de uso ${politica.versao} e o que fazer em input_required.`,
      argsSchema: argumentos,
    },
    ({ sala, inicio, fim, responsavel }) => ({
      description: `Reserva da ${sala} de ${inicio} a ${fim} para ${responsavel}`,
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `Reserve a sala ${sala} de ${inicio} a ${fim} para ${responsavel}, chamando a tool ${FERRAMENTAS.reservar} ` +
                `com os argumentos {"sala": ${JSON.stringify(sala)}, "inicio": ${JSON.stringify(inicio)}, ` +
                `"fim": ${JSON.stringify(fim)}, "responsavel": ${JSON.stringify(responsavel)}}.`,
              '',
              `Formatos: sala e um id de ${FERRAMENTAS.listar}; inicio e fim sao ISO 8601 com fuso explicito ` +
                `(ex.: 2026-11-03T14:00:00${fuso}); nunca envie um horario sem fuso.`,
              `Politica de uso versao ${politica.versao} (resource ${URI_DA_POLITICA}): reservas entre ` +
                `${hhmm(politica.abertura)} e ${hhmm(politica.fechamento)} (${fuso}), no mesmo dia, ` +
                `com no maximo ${String(politica.duracaoMaximaHoras)} horas; fim depois de inicio.`,
              `Se a resposta for input_required, a sala esta ocupada: mostre ao usuario as alternativas da elicitation ` +
                `(uma sala livre no mesmo horario, ou recusar) e repita a mesma chamada de ${FERRAMENTAS.reservar} com um novo id, ` +
                `os mesmos argumentos, inputResponses com a escolha dele e o requestState recebido, sem altera-lo.`,
              `Se a resposta vier com isError, mostre ao usuario a mensagem exata da tool e nao tente de novo sem mudar o pedido.`,
            ].join('\n'),
          },
        },
      ],
    }),
  );
}
