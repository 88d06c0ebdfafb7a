/**
 * Whose a Task is: the tenant and the user the SDK's stores scope every
 * row by. Kept with a pause, so the sweep that ends an expired pause finds
 * the Task where its owner does, and shared by every store here.
 */
import { resolveUserScope, ServerCallContext, type User } from '@a2a-js/sdk/server';
import { DONO_SEM_IDENTIDADE } from 'compartilhado/identidade';
import type { Dono } from '../ponte/tipos.js';

export const donoDe = (contexto: ServerCallContext): Dono => ({ tenant: contexto.tenant ?? '', usuario: resolveUserScope(contexto) });

/** Whom a pause stored before owners were kept belongs to: the unauthenticated caller, no tenant. */
export const DONO_ANONIMO: Dono = { tenant: '', usuario: DONO_SEM_IDENTIDADE };

/** The anonymous caller's scope: one string, shared by every row filed under it. */
export const ESCOPO_ANONIMO = JSON.stringify([DONO_ANONIMO.tenant, DONO_ANONIMO.usuario]);

/** The key a store files a row under: JSON keeps the pair unambiguous. */
export const escopoDe = (contexto: ServerCallContext): string => {
  const { tenant, usuario } = donoDe(contexto);
  return tenant === DONO_ANONIMO.tenant && usuario === DONO_ANONIMO.usuario ? ESCOPO_ANONIMO : JSON.stringify([tenant, usuario]);
};

/** A caller the stores see as `dono`, for the agent's own writes to a Task (an expired pause). */
export function contextoDe(dono: Dono): ServerCallContext {
  const usuario: User = { isAuthenticated: false, userName: dono.usuario };
  return new ServerCallContext({ user: usuario, ...(dono.tenant ? { tenant: dono.tenant } : {}) });
}
