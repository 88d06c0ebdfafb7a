/**
 * The prompt `reservar-sala`: the messages a model-driven host would use to
 * call reservar_sala correctly. Deterministic text built from the policy;
 * no model is involved anywhere. The arguments are the tool's own fields,
 * checked by the same rules before any text is written, and quoted as JSON
 * wherever they appear, so an argument can never read as an instruction.
 */
import { completable, ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import { CamposDoPedido, FERRAMENTAS, URI_DA_POLITICA } from 'compartilhado/contrato';
import * as z from 'zod';
import type { Agenda } from './agenda.js';
import { fusoEmTexto, hhmm } from './dominio/horario.js';

/**
 * The arguments' schema, made once per agenda: completable() marks the
 * schema object itself, and may not mark it twice, while the server (and
 * so this prompt) is built again for every request.
 */
const argumentosPorAgenda = new WeakMap<Agenda, ReturnType<typeof argumentosDo>>();

function argumentosDo(agenda: Agenda) {
  return z.object({ ...CamposDoPedido, sala: completable(CamposDoPedido.sala.clone(), agenda.completarSala) });
}

export function registrarPrompt(servidor: McpServer, agenda: Agenda): void {
  let argsSchema = argumentosPorAgenda.get(agenda);
  if (!argsSchema) argumentosPorAgenda.set(agenda, (argsSchema = argumentosDo(agenda)));
  const { politica } = agenda;
  const fuso = fusoEmTexto(politica.deslocamentoMin);
  servidor.registerPrompt(
    'reservar-sala',
    {
      title: 'Reservar uma sala',
      description: `Como chamar ${FERRAMENTAS.reservar} corretamente, com a politica de uso ${politica.versao} e o que fazer em input_required.`,
      argsSchema,
    },
    (pedido) => {
      const validacao = agenda.validar(pedido);
      if (!validacao.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${validacao.motivo.mensagem}`);
      const argumentos = JSON.stringify(pedido);
      return {
        description: `Reserva pedida: ${argumentos}`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: [
                `Chame a tool ${FERRAMENTAS.reservar} com exatamente estes argumentos: ${argumentos}.`,
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
      };
    },
  );
}
