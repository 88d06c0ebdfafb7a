/**
 * What the MCP server and the agent agree on over HTTP, declared once: the
 * protocol revision, the tool and resource names, the policy's version
 * line, and the shapes of a booking request and of reservar_sala's result.
 * The server builds its schemas from these; the agent validates what it
 * reads with them. No room rule lives here.
 */
import * as z from 'zod';

/** The one MCP revision both processes speak; requests without it are refused. */
export const REVISAO_MCP = '2026-07-28';

export const FERRAMENTAS = {
  listar: 'listar_salas',
  consultar: 'consultar_disponibilidade',
  reservar: 'reservar_sala',
} as const;

export const URI_DA_POLITICA = 'politica://uso';

/**
 * The `params._meta` key under which a client may send an idempotency key
 * with a first reservar_sala call (1 to 200 printable ASCII characters): a
 * call repeated with the same key and arguments answers the booking the
 * first one made instead of booking again.
 */
export const META_IDEMPOTENCIA = 'a-ponte/idempotencia';

/** The version a policy text declares on its first line, `versao: <id>`; undefined when it declares none. */
export function versaoDaPolitica(texto: string): string | undefined {
  return /^versao:\s*(\S+)\s*$/.exec(texto.split('\n', 1)[0] ?? '')?.[1];
}

/** The fields of a booking request, with the limits and descriptions the tools publish. */
export const CamposDoPedido = {
  sala: z.string().max(100).describe('Id da sala, por exemplo sala-garagem'),
  inicio: z.string().max(64).describe('Inicio em ISO 8601 com fuso, por exemplo 2026-11-03T14:00:00-03:00'),
  fim: z.string().max(64).describe('Fim em ISO 8601 com fuso, por exemplo 2026-11-03T15:00:00-03:00'),
  responsavel: z.string().max(200).min(1).describe('Quem reserva'),
};

export const PedidoDeReserva = z.object(CamposDoPedido);
/** A booking as asked: room, start, end (ISO 8601 with offset, as written) and who books. */
export type PedidoDeReserva = z.infer<typeof PedidoDeReserva>;

/** reservar_sala's structuredContent: a booking made, or why none was (`motivo`). */
export const ResultadoDaReserva = z.object({
  // A description on the string branch keeps zod's JSON Schema as anyOf [string, null] instead of
  // `type: ["string", "null"]`, which clients mapping schemas onto one-type dialects reject.
  reserva: z.string().describe('Id da reserva feita (res-NNNN)').nullable(),
  reservado: z.boolean(),
  sala: z.string().describe('Sala reservada').nullable(),
  inicio: z.string().describe('Inicio da reserva, ISO 8601 com fuso').nullable(),
  fim: z.string().describe('Fim da reserva, ISO 8601 com fuso').nullable(),
  responsavel: z.string().describe('Quem reservou').nullable(),
  politica: z.string().describe('Versao da politica de uso aplicada').nullable(),
  motivo: z.string().describe('Por que nao houve reserva (ex.: recusado)').nullable(),
});
export type ResultadoDaReserva = z.infer<typeof ResultadoDaReserva>;

/** A room as dados/salas.json declares it and listar_salas lists it. */
export const Sala = z.object({ id: z.string(), nome: z.string(), capacidade: z.number().int().positive(), recursos: z.array(z.string()) });
export type Sala = z.infer<typeof Sala>;

/** listar_salas's structuredContent. */
export const ListaDeSalas = z.object({ salas: z.array(Sala) });

/** consultar_disponibilidade's structuredContent: the bookings that overlap the interval asked. */
export const Disponibilidade = z.object({
  sala: z.string(),
  livre: z.boolean(),
  conflitos: z.array(z.object({ id: z.string(), inicio: z.string(), fim: z.string(), responsavel: z.string() })),
});

/** A JSON-RPC error response, as both processes write it before a request reaches an SDK. */
export function erroJsonRpc(id: unknown, code: number, message: string) {
  return { jsonrpc: '2.0' as const, id: id ?? null, error: { code, message } };
}

/**
 * `valor` read through `esquema`, or an error that says what was read and
 * every way it differs: for what crosses a process boundary.
 */
export function conforme<T>(esquema: z.ZodType<T>, valor: unknown, oQue: string): T {
  const lido = esquema.safeParse(valor);
  if (!lido.success) throw new Error(`${oQue} fora do formato esperado: ${z.prettifyError(lido.error)}`);
  return lido.data;
}
