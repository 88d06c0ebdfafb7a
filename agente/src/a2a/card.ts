/** The Agent Card, in the A2A v1.0 JSON form, derived from the public base URL. */
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

/** `comTokens`: AGENTE_TOKENS is set; without it the card has no security fields, as in the course. */
export function agentCard(urlPublica: URL, comTokens = false) {
  return {
    ...(comTokens ? SEGURANCA : {}),
    name: 'Central de Salas',
    description: 'Reserva salas de reuniao da Hill Valley Tech.',
    provider: { organization: 'Hill Valley Tech', url: 'https://hillvalley.example' },
    version: '1.0.0',
    // JSON-RPC stays first: clients that read only supportedInterfaces[0] keep the course's endpoint.
    supportedInterfaces: [
      { url: new URL(CAMINHO_A2A, urlPublica).href, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: new URL(CAMINHO_REST, urlPublica).href, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    defaultInputModes: TEXTO_E_DADOS,
    defaultOutputModes: TEXTO_E_DADOS,
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
