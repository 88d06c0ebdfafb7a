/**
 * The three tools: schemas beside their handlers, domain results mapped to
 * the wire. Every success carries structuredContent plus the same JSON as text.
 */
import {
  acceptedContent,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type InputRequiredResult,
  type McpServer,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CamposDoPedido, Disponibilidade, FERRAMENTAS, ListaDeSalas, PedidoDeReserva, ResultadoDaReserva } from 'compartilhado/contrato';
import * as z from 'zod';
import type { Agenda } from './agenda.js';
import type { Intervalo, Motivo, Reserva, Resultado, Sala } from './dominio/regras.js';
import { relatarIndisponibilidade } from './reservas/reservas.js';
import { esquemaFixo } from './esquema.js';
import type { EstadoReserva } from './estado.js';

/** The inputRequests key; the client must send its answer back under the same one. */
export const CHAVE_DA_ESCOLHA = 'escolha_de_sala';

// Built once at load: zod compiles each schema object on first use, and the
// server instance is rebuilt per request. The shapes are the contract's.
const ConsultaIn = esquemaFixo(z.object({ sala: CamposDoPedido.sala, inicio: CamposDoPedido.inicio, fim: CamposDoPedido.fim }));
const ReservaIn = esquemaFixo(PedidoDeReserva);
const ListaDeSalasOut = esquemaFixo(ListaDeSalas);
const DisponibilidadeOut = esquemaFixo(Disponibilidade);
const ReservaOut = esquemaFixo(ResultadoDaReserva);

function completo(dados: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(dados, null, 2) }], structuredContent: dados, isError: false };
}

function recusa(motivo: Motivo): CallToolResult {
  return { content: [{ type: 'text', text: motivo.mensagem }], isError: true };
}

export function registrarFerramentas(
  servidor: McpServer,
  agenda: Agenda,
  codec: RequestStateCodec<EstadoReserva>,
  aoFalhar: (erro: Error) => void,
): void {
  const versao = agenda.politica.versao;

  servidor.registerTool(
    FERRAMENTAS.listar,
    {
      description: 'Lista todas as salas com capacidade e recursos.',
      outputSchema: ListaDeSalasOut,
      annotations: { readOnlyHint: true },
    },
    () => completo({ salas: [...agenda.salas.values()] }),
  );

  servidor.registerTool(
    FERRAMENTAS.consultar,
    {
      description: 'Diz se uma sala esta livre no intervalo, e quais reservas conflitam.',
      inputSchema: ConsultaIn,
      outputSchema: DisponibilidadeOut,
      annotations: { readOnlyHint: true },
    },
    relatarIndisponibilidade(aoFalhar, async (pedido) => {
      const validacao = agenda.validar(pedido);
      if (!validacao.ok) return recusa(validacao.motivo);
      const conflitos = (await agenda.conflitos(validacao.sala.id, validacao.intervalo)).map(({ id, inicio, fim, responsavel }) => ({
        id,
        inicio,
        fim,
        responsavel,
      }));
      return completo({ sala: validacao.sala.id, livre: conflitos.length === 0, conflitos });
    }),
  );

  const reservada = (reserva: Reserva) =>
    completo({
      reserva: reserva.id,
      reservado: true,
      sala: reserva.sala,
      inicio: reserva.inicio,
      fim: reserva.fim,
      responsavel: reserva.responsavel,
      politica: versao,
      motivo: null,
    } satisfies ResultadoDaReserva);

  const naoReservada = (motivo: string) =>
    completo({
      reserva: null,
      reservado: false,
      sala: null,
      inicio: null,
      fim: null,
      responsavel: null,
      politica: null,
      motivo,
    } satisfies ResultadoDaReserva);

  const pedirEscolha = async (pedido: EstadoReserva['pedido'], alternativas: readonly string[], ctx: ServerContext) =>
    inputRequired({
      inputRequests: {
        [CHAVE_DA_ESCOLHA]: inputRequired.elicit({
          message: 'A sala pedida esta ocupada nesse intervalo. Escolha uma alternativa.',
          requestedSchema: {
            type: 'object',
            properties: {
              sala: { type: 'string', title: 'Sala', description: 'Sala alternativa escolhida', enum: [...alternativas] },
            },
            required: ['sala'],
          },
        }),
      },
      requestState: await codec.mint({ pedido, alternativas }, ctx),
    });

  const responder = (resultado: Resultado, pedido: EstadoReserva['pedido'], ctx: ServerContext) => {
    switch (resultado.tipo) {
      case 'reservada':
        return reservada(resultado.reserva);
      case 'ocupada':
        return pedirEscolha(pedido, resultado.alternativas, ctx);
      case 'recusada':
        return recusa(resultado.motivo);
    }
  };

  /** Second round: the sealed request wins over whatever arguments were re-sent. */
  const continuar = async (estado: EstadoReserva, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const resposta = inputResponse(ctx.mcpReq.inputResponses, CHAVE_DA_ESCOLHA);
    if (resposta.kind === 'elicit' && resposta.action === 'decline') return naoReservada('recusado');
    if (resposta.kind === 'elicit' && resposta.action === 'cancel') return naoReservada('cancelado');
    const validacao = agenda.validar(estado.pedido);
    if (!validacao.ok) return recusa(validacao.motivo);
    const sala = acceptedContent(ctx.mcpReq.inputResponses, CHAVE_DA_ESCOLHA)?.sala;
    const escolhida = typeof sala === 'string' && estado.alternativas.includes(sala) ? agenda.salas.get(sala) : undefined;
    // A missing answer or a room that was not offered books nothing: ask again.
    if (!escolhida) return pedirEscolha(estado.pedido, estado.alternativas, ctx);
    return responder(await reservar(escolhida, validacao.intervalo, estado.pedido, validacao.sala), estado.pedido, ctx);
  };

  const reservar = (sala: Sala, intervalo: Intervalo, pedido: EstadoReserva['pedido'], pedida: Sala) =>
    agenda.reservar(sala, intervalo, { inicio: pedido.inicio, fim: pedido.fim, responsavel: pedido.responsavel }, pedida);

  servidor.registerTool(
    FERRAMENTAS.reservar,
    {
      description: 'Reserva uma sala. Se o intervalo estiver ocupado, pergunta qual alternativa usar.',
      inputSchema: ReservaIn,
      outputSchema: ReservaOut,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    relatarIndisponibilidade(aoFalhar, async (pedido, ctx) => {
      const estado = ctx.mcpReq.requestState<EstadoReserva>();
      if (estado) return continuar(estado, ctx);
      const validacao = agenda.validar(pedido);
      if (!validacao.ok) return recusa(validacao.motivo);
      return responder(await reservar(validacao.sala, validacao.intervalo, pedido, validacao.sala), pedido, ctx);
    }),
  );
}
