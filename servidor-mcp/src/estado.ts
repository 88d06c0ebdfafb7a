/**
 * The sealed requestState of reservar_sala. It travels through the client,
 * so it is attacker input: the SDK's HMAC codec signs it (readable, not
 * tamperable) and verifies it before the handler runs. It carries the whole
 * original request, so the server keeps nothing between the rounds and a
 * retry still works after a restart. The one thing stored because of it is
 * the booking its answer made, under a digest of the state (never the state).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import type { PedidoDeReserva } from 'compartilhado/contrato';

/** What reservar_sala seals when it asks for a choice: the whole request and what was offered. */
export interface EstadoReserva {
  readonly pedido: PedidoDeReserva;
  readonly alternativas: readonly string[];
  /**
   * Random, never read: the SDK's codec adds only an expiry in whole
   * seconds, so two pauses of one request minted in the same second would
   * otherwise be the same string, and the digest that names a pause would
   * name both.
   */
  readonly pausa: string;
  /**
   * On a pause asked again (the chosen room was taken meanwhile, or the
   * answer chose no room offered), the digest of the request's first pause:
   * every round of one request books under that one key, so together they
   * make at most one booking.
   */
  readonly origem?: string;
}

export const novaPausa = (): string => randomBytes(16).toString('base64url');

/** A state as the handler reads it once verified: its payload, and the SHA-256 (hex) of the exact string the client echoed. */
export interface EstadoVerificado {
  readonly estado: EstadoReserva;
  readonly resumo: string;
}

/**
 * Verifies as the codec does, and keeps the digest of the wire string: the
 * SDK hands the handler only the decoded payload. The canonical-spelling
 * check makes that string the only one of its signed bytes, so one pause
 * has one digest.
 */
export async function verificarEstado(
  codec: RequestStateCodec<EstadoReserva>,
  estado: string,
  ctx: ServerContext,
): Promise<EstadoVerificado> {
  return { estado: await codec.verify(estado, ctx), resumo: createHash('sha256').update(estado).digest('hex') };
}

export function criarCodec(segredo: string, validadeSegundos: number): RequestStateCodec<EstadoReserva> {
  const codec = createRequestStateCodec<EstadoReserva>({
    key: segredo,
    ttlSeconds: validadeSegundos,
    // Only one tool mints state; binding to it makes a state replayed into
    // another method or tool fail verification instead of being ignored.
    bind: (ctx: ServerContext) => `${ctx.mcpReq.method}\0${nomeDaFerramenta(ctx) ?? ''}`,
  });
  return {
    mint: (payload, ctx) => codec.mint(payload, ctx),
    verify: (estado, ctx) => {
      // The SDK decodes base64url leniently: the spare low bits of the last
      // character are ignored, so a one-character edit there verifies. The
      // signed bytes are the same, but a changed state must never be accepted.
      if (!emBase64urlCanonico(estado)) return Promise.reject(new Error('malformed'));
      return codec.verify(estado, ctx);
    },
  };
}

function emBase64urlCanonico(estado: string): boolean {
  const [versao, ...partes] = estado.split('.');
  return versao === 'v1' && partes.length > 0 && partes.every((parte) => Buffer.from(parte, 'base64url').toString('base64url') === parte);
}

/**
 * The tool a tools/call names. The SDK's context does not carry it; the
 * mirrored Mcp-Name header does, and the SDK has already checked that it
 * matches the body. A client may send it base64-encoded (=?base64?...?=).
 */
function nomeDaFerramenta(ctx: ServerContext): string | undefined {
  const cabecalho = ctx.http?.req?.headers.get('mcp-name') ?? undefined;
  const codificado = cabecalho && /^=\?base64\?(.*)\?=$/i.exec(cabecalho)?.[1];
  return codificado ? Buffer.from(codificado, 'base64').toString('utf8') : cabecalho;
}
