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
import * as z from 'zod';
import type { Agenda } from './agenda.js';
import type { Intervalo, Reserva, Resultado, Sala } from './dominio/regras.js';
import { ReservasIndisponiveis } from './reservas/reservas.js';
import { esquemaFixo } from './esquema.js';
import { FERRAMENTA_COM_PAUSA, type EstadoReserva } from './estado.js';

/** The inputRequests key; the client must send its answer back under the same one. */
export const CHAVE_DA_ESCOLHA = 'escolha_de_sala';

const texto = (max: number) => z.string().max(max);
const campos = {
  sala: texto(100).describe('Id da sala, por exemplo sala-garagem'),
  inicio: texto(64).describe('Inicio em ISO 8601 com fuso, por exemplo 2026-11-03T14:00:00-03:00'),
  fim: texto(64).describe('Fim em ISO 8601 com fuso, por exemplo 2026-11-03T15:00:00-03:00'),
  responsavel: texto(200).min(1).describe('Quem reserva'),
};

// Built once at load: zod compiles each schema object on first use, and the
// server instance is rebuilt per request.
const ConsultaIn = esquemaFixo(z.object({ sala: campos.sala, inicio: campos.inicio, fim: campos.fim }));
const ReservaIn = esquemaFixo(z.object(campos));
const SalaOut = z.object({
  id: z.string(),
  nome: z.string(),
  capacidade: z.number().int(),
  recursos: z.array(z.string()),
});
const ListaDeSalas = esquemaFixo(z.object({ salas: z.array(SalaOut) }));
const Disponibilidade = esquemaFixo(
  z.object({
    sala: z.string(),
    livre: z.boolean(),
    conflitos: z.array(z.object({ id: z.string(), inicio: z.string(), fim: z.string(), responsavel: z.string() })),
  }),
);
const ReservaOut = esquemaFixo(
  z.object({
    reserva: z.string().nullable(),
    reservado: z.boolean(),
    sala: z.string().nullable(),
    inicio: z.string().nullable(),
    fim: z.string().nullable(),
    responsavel: z.string().nullable(),
    politica: z.string().nullable(),
    motivo: z.string().nullable(),
  }),
);

function completo<T extends Record<string, unknown>>(dados: T): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(dados, null, 2) }], structuredContent: dados, isError: false };
}

function erro(mensagem: string): CallToolResult {
  return { content: [{ type: 'text', text: mensagem }], isError: true };
}

/**
 * The SDK turns any exception in a tool into an isError result. A store
 * that cannot answer is not a tool result but a server failure: it is
 * reported out of band (`aoFalhar`), and the HTTP front answers the
 * request with a JSON-RPC error instead.
 */
function relatarIndisponibilidade<A extends unknown[], R>(aoFalhar: (erro: Error) => void, handler: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } catch (erro) {
      if (erro instanceof ReservasIndisponiveis) aoFalhar(erro);
      throw erro;
    }
  };
}

export function registrarFerramentas(
  servidor: McpServer,
  agenda: Agenda,
  codec: RequestStateCodec<EstadoReserva>,
  aoFalhar: (erro: Error) => void,
): void {
  const versao = agenda.politica.versao;

  servidor.registerTool(
    'listar_salas',
    {
      description: 'Lista todas as salas com capacidade e recursos.',
      outputSchema: ListaDeSalas,
      annotations: { readOnlyHint: true },
    },
    () => completo({ salas: [...agenda.salas.values()] }),
  );

  servidor.registerTool(
    'consultar_disponibilidade',
    {
      description: 'Diz se uma sala esta livre no intervalo, e quais reservas conflitam.',
      inputSchema: ConsultaIn,
      outputSchema: Disponibilidade,
      annotations: { readOnlyHint: true },
    },
    relatarIndisponibilidade(aoFalhar, async (pedido) => {
      const validacao = agenda.validar(pedido);
      if (!validacao.ok) return erro(validacao.erro);
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
    });

  const naoReservada = (motivo: string) =>
    completo({ reserva: null, reservado: false, sala: null, inicio: null, fim: null, responsavel: null, politica: null, motivo });

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
      case 'erro':
        return erro(resultado.erro);
    }
  };

  /** Second round: the sealed request wins over whatever arguments were re-sent. */
  const continuar = async (estado: EstadoReserva, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const resposta = inputResponse(ctx.mcpReq.inputResponses, CHAVE_DA_ESCOLHA);
    if (resposta.kind === 'elicit' && resposta.action === 'decline') return naoReservada('recusado');
    if (resposta.kind === 'elicit' && resposta.action === 'cancel') return naoReservada('cancelado');
    const validacao = agenda.validar(estado.pedido);
    if (!validacao.ok) return erro(validacao.erro);
    const sala = acceptedContent(ctx.mcpReq.inputResponses, CHAVE_DA_ESCOLHA)?.sala;
    // A missing answer or a room that was not offered books nothing: ask again.
    if (typeof sala !== 'string' || !estado.alternativas.includes(sala)) return pedirEscolha(estado.pedido, estado.alternativas, ctx);
    const escolhida: Sala = agenda.salas.get(sala)!;
    return responder(await reservar(escolhida, validacao.intervalo, estado.pedido, validacao.sala), estado.pedido, ctx);
  };

  const reservar = (sala: Sala, intervalo: Intervalo, pedido: EstadoReserva['pedido'], pedida: Sala) =>
    agenda.reservar(sala, intervalo, { inicio: pedido.inicio, fim: pedido.fim, responsavel: pedido.responsavel }, pedida);

  servidor.registerTool(
    FERRAMENTA_COM_PAUSA,
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
      if (!validacao.ok) return erro(validacao.erro);
      return responder(await reservar(validacao.sala, validacao.intervalo, pedido, validacao.sala), pedido, ctx);
    }),
  );
}
