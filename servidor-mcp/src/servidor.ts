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

/** What a request's instance registers: the tools, the resources (policy and agenda), the prompt. */
type Parte = 'ferramentas' | 'recursos' | 'prompt';
const TUDO: readonly Parte[] = ['ferramentas', 'recursos', 'prompt'];

/**
 * The parts a method needs, by its Mcp-Method header (the SDK has checked
 * it against the body before it asks for an instance): an instance serves
 * one request, and building the rest would be work thrown away. A method
 * not listed (server/discover, ping, subscriptions/listen) gets all.
 */
const PARTES_DO_METODO: Readonly<Record<string, readonly Parte[] | undefined>> = {
  'tools/list': ['ferramentas'],
  'tools/call': ['ferramentas'],
  'resources/list': ['recursos'],
  'resources/templates/list': ['recursos'],
  'resources/read': ['recursos'],
  'prompts/list': ['prompt'],
  'prompts/get': ['prompt'],
  'completion/complete': ['recursos', 'prompt'],
};

export function criarServidor(
  { agenda, codec }: Omit<Dependencias, 'aoFalhar'>,
  aoFalhar: (erro: Error) => void,
  partes: readonly Parte[] = TUDO,
): McpServer {
  const servidor = new McpServer(IDENTIDADE, {
    capabilities: CAPACIDADES,
    requestState: { verify: (estado, ctx) => verificarEstado(codec, estado, ctx) },
    // The tool list never changes while the process runs; clients may reuse it for a minute.
    cacheHints: { 'tools/list': { ttlMs: CACHE_MS } },
  });
  servidor.server.onerror = aoFalhar;
  if (partes.includes('ferramentas')) registrarFerramentas(servidor, agenda, codec, aoFalhar);
  if (partes.includes('recursos')) {
    registrarPolitica(servidor, agenda, CACHE_MS);
    registrarAgenda(servidor, agenda, aoFalhar);
  }
  if (partes.includes('prompt')) registrarPrompt(servidor, agenda);
  return servidor;
}

export function criarHandler(dependencias: Dependencias): McpHttpHandler {
  // 'reject': a request without the 2026-07-28 envelope is refused, never served as 2025-era.
  // One instance per request: its errors name the request they belong to.
  return createMcpHandler(
    ({ requestInfo }) =>
      criarServidor(
        dependencias,
        (erro) => dependencias.aoFalhar(erro, requestInfo),
        PARTES_DO_METODO[requestInfo?.headers.get('mcp-method') ?? ''],
      ),
    { legacy: 'reject', onerror: (erro) => dependencias.aoFalhar(erro) },
  );
}
