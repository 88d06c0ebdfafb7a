/**
 * AGENTE_TOKENS: every A2A request (JSON-RPC, HTTP+JSON, streams) must
 * carry `Authorization: Bearer <token>` of a configured identity, before
 * its body is even read. The identity becomes the SDK's user, and the SDK's
 * stores file each Task under its user: another identity finds nothing,
 * exactly as for an id that never existed. Optionally, each identity gets
 * AGENTE_LIMITE_POR_MINUTO requests per minute. Unset: anyone, no limit.
 */
import type { User } from '@a2a-js/sdk/server';
import { UserBuilder } from '@a2a-js/sdk/server/express';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { tokenDoBearer, type Identidades } from 'compartilhado/identidade';
import type { Request, RequestHandler } from 'express';
import { anotarAcesso, responderErro, type Binding } from './http.js';

const MINUTO_MS = 60_000;

/** Who sent each request that got through, for the SDK's user builder. */
const quemPediu = new WeakMap<Request, string>();

class Identificado implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

export interface Portaria {
  /** The check in front of each binding (a no-op without AGENTE_TOKENS). */
  readonly exigir: (binding: Binding) => RequestHandler;
  /** The SDK's user for a request: its identity, or the unauthenticated user without AGENTE_TOKENS. */
  readonly usuario: UserBuilder;
}

/** Why a request's Authorization does not name an identity (and whether it brought a token), or its name. */
function identificar(identidades: Identidades, req: Request): { quem: string } | { falta: string; comToken?: true } {
  const cabecalhos = req.headersDistinct.authorization ?? [];
  if (cabecalhos.length === 0) return { falta: 'falta o cabecalho Authorization: Bearer <token>' };
  // Node keeps only the first of two; two are ambiguous, and refused.
  if (cabecalhos.length > 1) return { falta: 'mais de um cabecalho Authorization' };
  const token = tokenDoBearer(cabecalhos[0] ?? '');
  if (token === undefined) return { falta: 'o cabecalho Authorization deve ser "Bearer <token>"' };
  const quem = identidades.quem(token);
  return quem === undefined ? { falta: 'token desconhecido', comToken: true } : { quem };
}

export function criarPortaria(identidades: Identidades | undefined, limitePorMinuto: number | undefined): Portaria {
  if (!identidades) {
    const livre: RequestHandler = (_req, _res, next) => {
      next();
    };
    return { exigir: () => livre, usuario: UserBuilder.noAuthentication };
  }
  /** Requests of each identity in the current minute (a fixed window: simple, and never more than twice the limit at a boundary). */
  const usados = new Map<string, { minuto: number; pedidos: number }>();
  const dentroDoLimite = (quem: string): number | undefined => {
    if (limitePorMinuto === undefined) return undefined;
    const agora = Date.now();
    const minuto = Math.floor(agora / MINUTO_MS);
    const conta = usados.get(quem);
    const pedidos = conta?.minuto === minuto ? conta.pedidos + 1 : 1;
    usados.set(quem, { minuto, pedidos });
    return pedidos > limitePorMinuto ? Math.ceil(((minuto + 1) * MINUTO_MS - agora) / 1000) : undefined;
  };
  return {
    exigir: (binding) => (req, res, next) => {
      const identificado = identificar(identidades, req);
      if ('falta' in identificado) {
        anotarAcesso({ recusa: identificado.falta });
        // The answer never says which tokens exist, only what this request lacks (RFC 6750 §3.1: invalid_token when one came).
        res.set('WWW-Authenticate', identificado.comToken ? 'Bearer realm="a2a", error="invalid_token"' : 'Bearer realm="a2a"');
        responderErro(res, 401, A2A_ERROR_CODE.INVALID_REQUEST, `Nao autenticado: ${identificado.falta}`, binding);
        return;
      }
      const { quem } = identificado;
      anotarAcesso({ quem });
      const esperar = dentroDoLimite(quem);
      if (esperar !== undefined) {
        res.set('Retry-After', String(esperar));
        responderErro(
          res,
          429,
          A2A_ERROR_CODE.INVALID_REQUEST,
          `Limite de ${String(limitePorMinuto)} pedidos por minuto excedido: tente de novo em ${String(esperar)} s`,
          binding,
        );
        return;
      }
      quemPediu.set(req, quem);
      next();
    },
    // Every request reaching the SDK went through `exigir`, so it has a name.
    usuario: (req) => {
      const quem = quemPediu.get(req);
      return quem === undefined ? UserBuilder.noAuthentication() : Promise.resolve(new Identificado(quem));
    },
  };
}
