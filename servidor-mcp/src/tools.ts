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
import {
  CamposDoPedido,
  Disponibilidade,
  FERRAMENTAS,
  ListaDeSalas,
  META_IDEMPOTENCIA,
  PedidoDeReserva,
  ResultadoDaReserva,
} from 'compartilhado/contrato';
import * as z from 'zod';
import type { Agenda, Tentativa } from './agenda.js';
import type { Intervalo, Motivo, Reserva, Sala } from './dominio/regras.js';
import { relatarIndisponibilidade } from './reservas/reservas.js';
import { esquemaFixo } from './esquema.js';
import { novaPausa, type EstadoReserva, type EstadoVerificado } from './estado.js';

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

function falha(mensagem: string): CallToolResult {
  return { content: [{ type: 'text', text: mensagem }], isError: true };
}

const recusa = (motivo: Motivo) => falha(motivo.mensagem);

/** The idempotency key of a call's `_meta`: absent, or 1..200 printable ASCII characters. The Server Card publishes it. */
export const ChaveDeIdempotencia = z.string().regex(/^[\x20-\x7e]{1,200}$/);

type LeituraDaChave = { ok: true; chave: string | undefined } | { ok: false; mensagem: string };

function lerChave(meta: Readonly<Record<string, unknown>> | undefined): LeituraDaChave {
  if (meta === undefined || !(META_IDEMPOTENCIA in meta)) return { ok: true, chave: undefined };
  const lida = ChaveDeIdempotencia.safeParse(meta[META_IDEMPOTENCIA]);
  return lida.success
    ? { ok: true, chave: lida.data }
    : {
        ok: false,
        mensagem: `Chave de idempotencia invalida em _meta["${META_IDEMPOTENCIA}"]: use um texto de 1 a 200 caracteres ASCII imprimiveis`,
      };
}

/**
 * Where a booking's key lives in the store: a client's key and a pause's
 * digest in separate namespaces, so no client key can name a pause.
 */
const chaveDoCliente = (chave: string) => `chave:${chave}`;
const chaveDaPausa = (resumo: string) => `estado:${resumo}`;

const mesmoPedido = (reserva: Reserva, pedido: PedidoDeReserva) =>
  reserva.sala === pedido.sala &&
  reserva.inicio === pedido.inicio &&
  reserva.fim === pedido.fim &&
  reserva.responsavel === pedido.responsavel;

const chaveJaUsada = (reserva: Reserva) =>
  falha(
    `Chave de idempotencia ja usada com outros argumentos: reserva ${reserva.id} na ${reserva.sala}, ` +
      `de ${reserva.inicio} a ${reserva.fim}. Use uma chave nova para outra reserva.`,
  );

const jaRespondida = (reserva: Reserva) =>
  falha(`Esta pergunta ja foi respondida: reserva ${reserva.id} na ${reserva.sala}. Uma resposta diferente nao faz outra reserva.`);

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

  /** `origem`: the digest of the request's first pause, sealed when this one asks again. */
  const pedirEscolha = async (pedido: EstadoReserva['pedido'], alternativas: readonly string[], ctx: ServerContext, origem?: string) =>
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
      requestState: await codec.mint({ pedido, alternativas, pausa: novaPausa(), ...(origem === undefined ? {} : { origem }) }, ctx),
    });

  /**
   * `chaveUsada` judges a booking found under the call's key: the same
   * request answered again, or a refusal.
   */
  const responder = (
    tentativa: Tentativa,
    pedido: EstadoReserva['pedido'],
    ctx: ServerContext,
    chaveUsada: (reserva: Reserva) => CallToolResult,
    origem?: string,
  ) => {
    switch (tentativa.tipo) {
      case 'reservada':
        return reservada(tentativa.reserva);
      case 'chave-usada':
        return chaveUsada(tentativa.reserva);
      case 'ocupada':
        return pedirEscolha(pedido, tentativa.alternativas, ctx, origem);
      case 'recusada':
        return recusa(tentativa.motivo);
    }
  };

  /**
   * Second round: the sealed request wins over whatever arguments were
   * re-sent. A replayed answer must not book twice, so the booking an
   * answer makes is stored under the pause's key: the same answer again is
   * answered with that booking, any other answer is refused. An answer
   * that books nothing stores nothing.
   */
  const continuar = async ({ estado, resumo }: EstadoVerificado, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const origem = estado.origem ?? resumo;
    const chave = chaveDaPausa(origem);
    const sala = acceptedContent(ctx.mcpReq.inputResponses, CHAVE_DA_ESCOLHA)?.sala;
    const escolhida = typeof sala === 'string' && estado.alternativas.includes(sala) ? agenda.salas.get(sala) : undefined;
    // Only a valid choice reaches the store, whose write decides atomically;
    // any other answer must first learn whether this pause already booked.
    if (!escolhida) {
      const feita = await agenda.porChave(chave);
      if (feita) return jaRespondida(feita);
    }
    const resposta = inputResponse(ctx.mcpReq.inputResponses, CHAVE_DA_ESCOLHA);
    if (resposta.kind === 'elicit' && resposta.action === 'decline') return naoReservada('recusado');
    if (resposta.kind === 'elicit' && resposta.action === 'cancel') return naoReservada('cancelado');
    const validacao = agenda.validar(estado.pedido);
    if (!validacao.ok) return recusa(validacao.motivo);
    // A missing answer or a room that was not offered books nothing: ask again.
    if (!escolhida) return pedirEscolha(estado.pedido, estado.alternativas, ctx, origem);
    const tentativa = await reservar(escolhida, validacao.intervalo, estado.pedido, validacao.sala, chave);
    const mesmaResposta = (feita: Reserva) => (feita.sala === escolhida.id ? reservada(feita) : jaRespondida(feita));
    return responder(tentativa, estado.pedido, ctx, mesmaResposta, origem);
  };

  const reservar = (sala: Sala, intervalo: Intervalo, pedido: EstadoReserva['pedido'], pedida: Sala, chave?: string) =>
    agenda.reservar(sala, intervalo, { inicio: pedido.inicio, fim: pedido.fim, responsavel: pedido.responsavel }, pedida, chave);

  servidor.registerTool(
    FERRAMENTAS.reservar,
    {
      description:
        'Reserva uma sala. Se o intervalo estiver ocupado, pergunta qual alternativa usar. ' +
        `Repetir a chamada nao reserva duas vezes: com a mesma chave em _meta["${META_IDEMPOTENCIA}"] e os mesmos argumentos, ` +
        'ou com o mesmo requestState e a mesma resposta, devolve a reserva ja feita; uma resposta diferente ao mesmo requestState e recusada.',
      inputSchema: ReservaIn,
      outputSchema: ReservaOut,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    relatarIndisponibilidade(aoFalhar, async (pedido, ctx) => {
      const leitura = lerChave(ctx.mcpReq._meta);
      if (!leitura.ok) return falha(leitura.mensagem);
      // On a continuation the pause's key rules; a key in _meta adds nothing,
      // since the first call it came with paused and so stored nothing.
      const estado = ctx.mcpReq.requestState<EstadoVerificado>();
      if (estado) return continuar(estado, ctx);
      const validacao = agenda.validar(pedido);
      if (!validacao.ok) return recusa(validacao.motivo);
      const chave = leitura.chave === undefined ? undefined : chaveDoCliente(leitura.chave);
      const tentativa = await reservar(validacao.sala, validacao.intervalo, pedido, validacao.sala, chave);
      return responder(tentativa, pedido, ctx, (feita) => (mesmoPedido(feita, pedido) ? reservada(feita) : chaveJaUsada(feita)));
    }),
  );
}
