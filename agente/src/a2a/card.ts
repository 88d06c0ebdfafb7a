/** The Agent Card, in the A2A v1.0 JSON form, derived from the public base URL. */
import type { CardDoArquivo } from '../mcp/configuracao.js';
import type { Skill } from '../mcp/conexao.js';
import { FORMATOS, SKILLS } from '../salas/intencao.js';

export const CAMINHO_A2A = '/a2a';
/** The HTTP+JSON binding's base: its routes (`/message:send`, `/tasks/{id}`, ...) hang below it. */
export const CAMINHO_REST = '/rest';
/**
 * The web console's own data (not A2A, not in the card). Declared beside the
 * A2A paths so the HTTP front (http.ts) knows each route's error form
 * without importing the console, which imports it.
 */
export const CAMINHO_CONSOLE = '/console';

const TEXTO_E_DADOS = ['text/plain', 'application/json'];

/** How a client authenticates with AGENTE_TOKENS, the A2A v1.0 way: an HTTP bearer scheme, required. */
const SEGURANCA = {
  securitySchemes: {
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'Token estatico de uma identidade de AGENTE_TOKENS.' } },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
};

/**
 * The A2A extension that publishes each skill's MCP tool: its server, name
 * and JSON Schemas, so a client builds a valid call from the card alone
 * (see docs/qualquer-servidor.md).
 */
export const EXTENSAO_FERRAMENTAS_MCP = 'urn:a-ponte:a2a-extension:mcp-tools:v1';

/** Where every card of this agent is served, and its version. `portaGrpc`: with AGENTE_GRPC_PORTA, the gRPC binding's port. */
function base(urlPublica: URL, portaGrpc: number | undefined) {
  return {
    version: '1.0.0',
    // JSON-RPC stays first: clients that read only supportedInterfaces[0] keep the course's endpoint.
    supportedInterfaces: [
      { url: new URL(CAMINHO_A2A, urlPublica).href, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: new URL(CAMINHO_REST, urlPublica).href, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      // A gRPC target is host:port, as the SDK's gRPC client dials it: the public host, on the gRPC port.
      ...(portaGrpc === undefined
        ? []
        : [{ url: `${urlPublica.hostname}:${String(portaGrpc)}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }]),
    ],
  };
}

const MODOS = { defaultInputModes: TEXTO_E_DADOS, defaultOutputModes: TEXTO_E_DADOS };

/** With AGENTE_TOKENS, an identity gets an extended card (GetExtendedAgentCard, see estendido.ts). */
const capacidades = (comTokens: boolean) => ({ streaming: true, pushNotifications: true, extendedAgentCard: comTokens });

/**
 * The card of the generic bridge: one skill per tool of the configured
 * servers, their schemas in the extension. `doArquivo`, the file's
 * agentCard: its name, description, version, provider, documentationUrl
 * and iconUrl over the defaults; empty, the card is the default one.
 */
export function cardGenerico(
  urlPublica: URL,
  comTokens: boolean,
  skills: readonly Skill[],
  portaGrpc?: number,
  doArquivo: CardDoArquivo = {},
) {
  const servidores = [...new Set(skills.map((skill) => skill.conexao.nome))];
  return {
    ...(comTokens ? SEGURANCA : {}),
    name: 'A Ponte',
    description: `Ferramentas dos servidores MCP ${servidores.join(', ')}, como skills A2A. Pedido: {"name": "<skill>", "arguments": {...}} numa parte de dados, ou "<skill> chave=valor".`,
    ...base(urlPublica, portaGrpc),
    ...doArquivo,
    capabilities: {
      ...capacidades(comTokens),
      extensions: [
        {
          uri: EXTENSAO_FERRAMENTAS_MCP,
          description:
            'A ferramenta MCP de cada skill: servidor, nome, inputSchema, outputSchema, annotations e execution (taskSupport "required": roda como tarefa MCP).',
          required: false,
          params: {
            skills: Object.fromEntries(
              skills.map(({ id, conexao, ferramenta }) => [
                id,
                {
                  servidor: conexao.nome,
                  ferramenta: ferramenta.name,
                  inputSchema: ferramenta.inputSchema,
                  ...(ferramenta.outputSchema ? { outputSchema: ferramenta.outputSchema } : {}),
                  ...(ferramenta.annotations ? { annotations: ferramenta.annotations } : {}),
                  ...(ferramenta.execution ? { execution: ferramenta.execution } : {}),
                },
              ]),
            ),
          },
        },
      ],
    },
    ...MODOS,
    skills: skills.map(({ id, conexao, ferramenta }) => ({
      id,
      name: ferramenta.title ?? ferramenta.annotations?.title ?? ferramenta.name,
      description: ferramenta.description ?? ferramenta.title ?? ferramenta.name,
      tags: ['mcp', conexao.nome],
      inputModes: TEXTO_E_DADOS,
      outputModes: TEXTO_E_DADOS,
      examples: [
        `${id} ${Object.keys(ferramenta.inputSchema.properties ?? {})
          .map((campo) => `${campo}=...`)
          .join(' ')}`.trim(),
      ],
    })),
  };
}

/** The course's card: its three room skills, unchanged. `comTokens`: AGENTE_TOKENS is set; without it the card has no security fields and no extended card, as in the course. */
export function agentCard(urlPublica: URL, comTokens = false, portaGrpc?: number) {
  return {
    ...(comTokens ? SEGURANCA : {}),
    name: 'Central de Salas',
    description: 'Reserva salas de reuniao da Hill Valley Tech.',
    provider: { organization: 'Hill Valley Tech', url: 'https://hillvalley.example' },
    ...base(urlPublica, portaGrpc),
    capabilities: capacidades(comTokens),
    ...MODOS,
    skills: [
      // Unchanged since the course: clients compare it with exemplos/wire/07. Data parts work here too (see SKILL.md).
      {
        id: SKILLS.reservar,
        name: 'Reservar sala',
        description:
          `Reserva uma sala em um intervalo. Pedido: ${FORMATOS.reservar}. ` +
          'Se houver conflito, a Task pausa com "alternativas: <ids>" e espera escolha=<id> ou escolha=recusar na mesma Task.',
        tags: ['salas', 'agenda'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        examples: [
          'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty',
          'escolha=sala-mirante',
        ],
      },
      {
        id: SKILLS.listar,
        name: 'Listar salas',
        description: `Lista as salas com capacidade e recursos. Pedido: ${FORMATOS.listar}, ou a parte de dados {"skill": "${SKILLS.listar}"}. O artifact salas traz a lista.`,
        tags: ['salas'],
        inputModes: TEXTO_E_DADOS,
        outputModes: TEXTO_E_DADOS,
        examples: [FORMATOS.listar],
      },
      {
        id: SKILLS.consultar,
        name: 'Consultar disponibilidade',
        description:
          `Diz se uma sala esta livre num intervalo e quais reservas o ocupam. Pedido: ${FORMATOS.consultar}, ou a parte de dados ` +
          `{"skill": "${SKILLS.consultar}", "sala", "inicio", "fim"}. O artifact disponibilidade traz a resposta.`,
        tags: ['salas', 'agenda'],
        inputModes: TEXTO_E_DADOS,
        outputModes: TEXTO_E_DADOS,
        examples: ['consultar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00'],
      },
    ],
  };
}
