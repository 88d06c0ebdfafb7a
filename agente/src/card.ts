/** The Agent Card, in the A2A v1.0 JSON form, derived from the public base URL. */
import { FORMATO_DO_PEDIDO } from './intencao.js';

export const CAMINHO_A2A = '/a2a';

export function agentCard(urlPublica: URL) {
  return {
    name: 'Central de Salas',
    description: 'Reserva salas de reuniao da Hill Valley Tech.',
    provider: { organization: 'Hill Valley Tech', url: 'https://hillvalley.example' },
    version: '1.0.0',
    supportedInterfaces: [{ url: new URL(CAMINHO_A2A, urlPublica).href, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'reservar-sala',
        name: 'Reservar sala',
        description:
          `Reserva uma sala em um intervalo. Pedido: ${FORMATO_DO_PEDIDO}. ` +
          'Se houver conflito, a Task pausa com "alternativas: <ids>" e espera escolha=<id> ou escolha=recusar na mesma Task.',
        tags: ['salas', 'agenda'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        examples: [
          'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty',
          'escolha=sala-mirante',
        ],
      },
    ],
  };
}
