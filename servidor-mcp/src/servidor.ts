/**
 * Builds the MCP server for one request. Never listens: main.ts owns the
 * socket, tests can call the handler directly.
 */
import { createMcpHandler, McpServer, type McpHttpHandler, type RequestStateCodec } from '@modelcontextprotocol/server';
import type { Agenda } from './agenda.js';
import { verificarEstado, type EstadoReserva } from './estado.js';
import { registrarPrompt } from './prompt.js';
import { registrarAgenda, registrarPolitica } from './resource.js';
import { registrarFerramentas } from './tools.js';

/** How long clients may reuse tools/list and the policy text. */
export const CACHE_MS = 60_000;

export const IDENTIDADE = { name: 'central-de-salas', version: '1.0.0' } as const;

/**
 * What the server can do, said once: the SDK would add `listChanged: true`
 * to every list it serves, but these lists never change while the process
 * runs, so no client needs to listen for a change. The MCP Server Card
 * copies what server/discover answers from this.
 */
const CAPACIDADES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
  completions: {},
} as const;

export interface Dependencias {
  readonly agenda: Agenda;
  readonly codec: RequestStateCodec<EstadoReserva>;
  /**
   * Out-of-band errors: why a requestState was refused, a store that could
   * not answer (never on the wire as they are), with the request they came
   * from; an error of the handler's own, before any server instance, comes
   * without it.
   */
  readonly aoFalhar: (erro: Error, pedido?: Request) => void;
}

export function criarServidor({ agenda, codec }: Omit<Dependencias, 'aoFalhar'>, aoFalhar: (erro: Error) => void): McpServer {
  const servidor = new McpServer(IDENTIDADE, {
    capabilities: CAPACIDADES,
    requestState: { verify: (estado, ctx) => verificarEstado(codec, estado, ctx) },
    // The tool list never changes while the process runs; clients may reuse it for a minute.
    cacheHints: { 'tools/list': { ttlMs: CACHE_MS } },
  });
  servidor.server.onerror = aoFalhar;
  registrarFerramentas(servidor, agenda, codec, aoFalhar);
  registrarPolitica(servidor, agenda, CACHE_MS);
  registrarAgenda(servidor, agenda, aoFalhar);
  registrarPrompt(servidor, agenda);
  return servidor;
}

export function criarHandler(dependencias: Dependencias): McpHttpHandler {
  // 'reject': a request without the 2026-07-28 envelope is refused, never served as 2025-era.
  // One instance per request: its errors name the request they belong to.
  return createMcpHandler(({ requestInfo }) => criarServidor(dependencias, (erro) => dependencias.aoFalhar(erro, requestInfo)), {
    legacy: 'reject',
    onerror: (erro) => dependencias.aoFalhar(erro),
  });
}
