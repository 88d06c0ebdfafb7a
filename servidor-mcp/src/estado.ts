/**
 * The sealed requestState of reservar_sala. It travels through the client,
 * so it is attacker input: the SDK's HMAC codec signs it (readable, not
 * tamperable) and verifies it before the handler runs. It carries the whole
 * original request, so the server keeps nothing between the rounds and a
 * retry still works after a restart.
 */
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import type { Pedido } from './dominio/agenda.js';

export const FERRAMENTA_COM_PAUSA = 'reservar_sala';

export interface EstadoEscolhaDeSala {
  readonly passo: 'escolha_de_sala';
  readonly pedido: Pedido & { readonly responsavel: string };
  readonly alternativas: readonly string[];
}

export type EstadoReserva = EstadoEscolhaDeSala;

export function criarCodec(segredo: string, validadeSegundos: number): RequestStateCodec<EstadoReserva> {
  return createRequestStateCodec<EstadoReserva>({
    key: segredo,
    ttlSeconds: validadeSegundos,
    // Only one tool mints state; binding to it makes a state replayed into
    // another method or tool fail verification instead of being ignored.
    bind: (ctx: ServerContext) => `${ctx.mcpReq.method}\0${nomeDaFerramenta(ctx) ?? ''}`,
  });
}

/** The tool a tools/call names; the SDK's context does not carry it, the HTTP request's mirrored header does. */
function nomeDaFerramenta(ctx: ServerContext): string | null | undefined {
  return ctx.http?.req?.headers.get('mcp-name');
}
