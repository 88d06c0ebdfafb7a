/**
 * AGENTE_TOKENS: every A2A request (JSON-RPC, HTTP+JSON, streams, gRPC)
 * must carry `Authorization: Bearer <token>` of a configured identity,
 * before its body is even read. The identity becomes the SDK's user, and
 * the SDK's stores file each Task under its user: another identity finds
 * nothing, exactly as for an id that never existed. Optionally, each
 * identity gets AGENTE_LIMITE_POR_MINUTO requests per minute, whatever the
 * binding. Unset: anyone, no limit.
 */
import type { User } from '@a2a-js/sdk/server';
import { UserBuilder } from '@a2a-js/sdk/server/express';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { tokenDoBearer, type Identidades } from 'compartilhado/identidade';
import type { RequestHandler } from 'express';
import { anotarAcesso, responderErro, type Binding } from './http.js';

const MINUTO_MS = 60_000;

class Identificado implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

/**
 * A request let through, with its identity (none without AGENTE_TOKENS), or
 * refused, in the words every binding answers with: unidentified (and
 * whether it brought a token), or over its identity's limit (and how many
 * seconds until the next minute).
 */
export type Admissao<Quem = string | undefined> =
  | { readonly recusa?: undefined; readonly quem: Quem }
  | { readonly recusa: 'identidade'; readonly falta: string; readonly comToken: boolean; readonly mensagem: string }
  | { readonly recusa: 'limite'; readonly quem: string; readonly esperar: number; readonly mensagem: string };

export interface Portaria {
  /** The check in front of each HTTP binding (a no-op without AGENTE_TOKENS). */
  readonly exigir: (binding: Binding) => RequestHandler;
  /** The same check for any transport, from the request's Authorization values: counted against the identity's limit. */
  readonly admitir: (autorizacoes: readonly string[]) => Admissao;
  /** The SDK's user for an HTTP request: its identity, or the unauthenticated user without AGENTE_TOKENS. */
  readonly usuario: UserBuilder;
  /** The same from the Authorization values of a request of any transport that `admitir` let through. */
  readonly usuarioDe: (autorizacoes: readonly string[]) => Promise<User>;
}

/** Why a request's Authorization values do not name an identity (and whether one brought a token), or its name. */
function identificar(identidades: Identidades, autorizacoes: readonly string[]): { quem: string } | { falta: string; comToken?: true } {
  if (autorizacoes.length === 0) return { falta: 'falta o cabecalho Authorization: Bearer <token>' };
  // Node keeps only the first of two; two are ambiguous, and refused.
  if (autorizacoes.length > 1) return { falta: 'mais de um cabecalho Authorization' };
  const token = tokenDoBearer(autorizacoes[0] ?? '');
  if (token === undefined) return { falta: 'o cabecalho Authorization deve ser "Bearer <token>"' };
  const quem = identidades.quem(token);
  return quem === undefined ? { falta: 'token desconhecido', comToken: true } : { quem };
}

export function criarPortaria(identidades: Identidades | undefined, limitePorMinuto: number | undefined): Portaria {
  if (!identidades) {
    const livre: RequestHandler = (_req, _res, next) => {
      next();
    };
    return {
      exigir: () => livre,
      admitir: () => ({ quem: undefined }),
      usuario: UserBuilder.noAuthentication,
      usuarioDe: UserBuilder.noAuthentication,
    };
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
  const admitir = (autorizacoes: readonly string[]): Admissao<string> => {
    const identificado = identificar(identidades, autorizacoes);
    if ('falta' in identificado) {
      const { falta, comToken = false } = identificado;
      return { recusa: 'identidade', falta, comToken, mensagem: `Nao autenticado: ${falta}` };
    }
    const { quem } = identificado;
    const esperar = dentroDoLimite(quem);
    if (esperar === undefined) return { quem };
    const mensagem = `Limite de ${String(limitePorMinuto)} pedidos por minuto excedido: tente de novo em ${String(esperar)} s`;
    return { recusa: 'limite', quem, esperar, mensagem };
  };
  // Every request reaching the SDK was let through by `admitir`; one that was not has no user, and the SDK answers it with an error.
  const usuarioDe = (autorizacoes: readonly string[]): Promise<User> => {
    const identificado = identificar(identidades, autorizacoes);
    if ('falta' in identificado) return Promise.reject(new Error(`Nao autenticado: ${identificado.falta}`));
    return Promise.resolve(new Identificado(identificado.quem));
  };
  return {
    exigir: (binding) => (req, res, next) => {
      const admissao = admitir(req.headersDistinct.authorization ?? []);
      anotarAcesso(admissao.recusa === 'identidade' ? { recusa: admissao.falta } : { quem: admissao.quem });
      if (admissao.recusa === 'identidade') {
        // The answer never says which tokens exist, only what this request lacks (RFC 6750 §3.1: invalid_token when one came).
        res.set('WWW-Authenticate', admissao.comToken ? 'Bearer realm="a2a", error="invalid_token"' : 'Bearer realm="a2a"');
        responderErro(res, 401, A2A_ERROR_CODE.INVALID_REQUEST, admissao.mensagem, binding);
        return;
      }
      if (admissao.recusa === 'limite') {
        res.set('Retry-After', String(admissao.esperar));
        responderErro(res, 429, A2A_ERROR_CODE.INVALID_REQUEST, admissao.mensagem, binding);
        return;
      }
      next();
    },
    admitir,
    usuario: (req) => usuarioDe(req.headersDistinct.authorization ?? []),
    usuarioDe,
  };
}
