/**
 * The two fixed sentences a client can say, parsed without any room rule:
 * whether a room exists or a time is valid is the MCP server's call.
 */
import type { PedidoDeReserva } from 'compartilhado/contrato';

export const FORMATO_DO_PEDIDO = 'reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome>';

export type Escolha = { readonly sala: string } | { readonly recusar: true };

const PEDIDO = /^reservar\s+sala=(\S+)\s+inicio=(\S+)\s+fim=(\S+)\s+responsavel=([^\r\n]*\S)$/;
const ESCOLHA = /^escolha=(\S+)$/;

/** `responsavel` takes the rest of the line, spaces included. */
export function lerPedido(texto: string): PedidoDeReserva | undefined {
  const partes = PEDIDO.exec(texto.trim());
  if (!partes) return undefined;
  // Every group of the pattern matches something, so the defaults are never used.
  const [, sala = '', inicio = '', fim = '', responsavel = ''] = partes;
  return { sala, inicio, fim, responsavel: responsavel.trim() };
}

export function lerEscolha(texto: string): Escolha | undefined {
  const escolha = ESCOLHA.exec(texto.trim())?.[1];
  if (escolha === undefined) return undefined;
  return escolha === 'recusar' ? { recusar: true } : { sala: escolha };
}
