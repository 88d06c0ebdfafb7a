/**
 * The MCP Server Card (/.well-known/mcp/server-card.json). Its capabilities
 * are what server/discover answers, and its tools, resources, resource
 * templates and prompts what their lists answer, asked of the handler
 * itself at start, so the card can never drift from the server.
 */
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { CAMINHO } from './http.js';
import { FERRAMENTAS, META_IDEMPOTENCIA, REVISAO_MCP } from 'compartilhado/contrato';
import { IDENTIDADE } from './servidor.js';
import { ChaveDeIdempotencia } from './tools.js';

export const CAMINHO_DO_SERVER_CARD = '/.well-known/mcp/server-card.json';
export const LINK_DO_SERVER_CARD = `<${CAMINHO_DO_SERVER_CARD}>; rel="mcp"`;

/** What the card copies from each answer. */
const CAMPOS = {
  'server/discover': 'capabilities',
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
} as const;

async function perguntar(handler: McpHttpHandler, metodo: keyof typeof CAMPOS): Promise<unknown> {
  const resposta = await handler.fetch(
    new Request(`http://localhost${CAMINHO}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISAO_MCP,
        'mcp-method': metodo,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: `server-card-${metodo}`,
        method: metodo,
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': REVISAO_MCP, 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    }),
  );
  const { result, error } = (await resposta.json()) as { result?: Record<string, unknown>; error?: { message?: string } };
  const campo = result?.[CAMPOS[metodo]];
  if (typeof campo !== 'object' || campo === null)
    throw new Error(`server card: ${metodo} nao respondeu ${CAMPOS[metodo]}${error?.message ? ` (${error.message})` : ''}`);
  return campo;
}

/** `comTokens`: MCP_TOKENS is set, and the card says a client needs a bearer token. */
export async function criarServerCard(handler: McpHttpHandler, comTokens = false) {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json',
    version: '1.0',
    protocolVersion: REVISAO_MCP,
    serverInfo: { name: IDENTIDADE.name, title: 'Central de Salas da Hill Valley Tech', version: IDENTIDADE.version },
    description:
      'Salas de reuniao da Hill Valley Tech: lista as salas, consulta disponibilidade e reserva. ' +
      'Se a sala estiver ocupada, a reserva responde input_required (MRTR) com uma elicitation em form mode para escolher uma alternativa.',
    transport: { type: 'streamable-http', endpoint: CAMINHO },
    capabilities: await perguntar(handler, 'server/discover'),
    authentication: comTokens ? { required: true, schemes: ['bearer'] } : { required: false },
    tools: await perguntar(handler, 'tools/list'),
    resources: await perguntar(handler, 'resources/list'),
    resourceTemplates: await perguntar(handler, 'resources/templates/list'),
    prompts: await perguntar(handler, 'prompts/list'),
    // The one request _meta key this server reads beyond the protocol's own:
    // no list answer carries it, so the card says it here.
    _meta: {
      [META_IDEMPOTENCIA]: {
        description:
          `Chave de idempotencia opcional na primeira chamada de ${FERRAMENTAS.reservar}, em params._meta. ` +
          'A mesma chave com os mesmos argumentos devolve a reserva ja feita; com outros argumentos, isError. ' +
          'Numa retomada (requestState), vale o requestState: a mesma resposta devolve a reserva ja feita, outra resposta e recusada.',
        tools: [FERRAMENTAS.reservar],
        schema: z.toJSONSchema(ChaveDeIdempotencia),
      },
    },
  };
}

const Nomeados = z.array(z.looseObject({ name: z.string() }));

/** The names of the card's tools and prompts: what the server serves, as its spans name it (any other a client sends is OUTRO there). */
export function nomesDoCard(card: Awaited<ReturnType<typeof criarServerCard>>): Set<string> {
  return new Set([...Nomeados.parse(card.tools), ...Nomeados.parse(card.prompts)].map(({ name }) => name));
}
