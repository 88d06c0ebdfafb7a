/**
 * GetExtendedAgentCard, with AGENTE_TOKENS (A2A §3.1.11, §13.3): to an
 * authenticated identity, the public card as it is now plus what holds for
 * that identity here, in an extension of its own: its name as the agent
 * knows it, its request quota, that its Tasks are its alone, how long a
 * paused Task waits for its answer, the largest request body, and whether
 * Tasks survive a restart. Nothing of the deployment a leak could exploit
 * (no URL of the MCP servers, no push hosts, no other identity). Signed
 * like the public card when AGENTE_CHAVE_CARD is set.
 */
import { AgentCard } from '@a2a-js/sdk';
import type { ExtendedAgentCardProvider } from '@a2a-js/sdk/server';
import type { Configuracao } from '../config.js';
import type { AssinaturaDoCard } from './assinatura.js';

export const EXTENSAO_CONTA = 'urn:a-ponte:a2a-extension:conta:v1';

/** What the extended card says of an identity's terms, from the agent's configuration. */
export type Termos = Pick<Configuracao, 'limitePorMinuto' | 'validadeDaPausaMs' | 'limiteDoCorpoBytes' | 'banco'>;

/** A card of card.ts, as far as this module reads it (every one says whether it streams). */
interface CardPublico {
  readonly capabilities: { readonly streaming: boolean; readonly extensions?: readonly object[] };
}

/** The public card, whole (a client replaces its cached card with this one, §3.1.11), with the identity's terms appended. */
export function cardEstendido<T extends CardPublico>(card: T, quem: string, termos: Termos) {
  return {
    ...card,
    capabilities: {
      ...card.capabilities,
      extensions: [
        ...(card.capabilities.extensions ?? []),
        {
          uri: EXTENSAO_CONTA,
          description: `O que vale para a identidade ${quem} neste agente. Sem pedidosPorMinuto, nao ha limite de pedidos.`,
          required: false,
          params: {
            identidade: quem,
            ...(termos.limitePorMinuto === undefined ? {} : { pedidosPorMinuto: termos.limitePorMinuto }),
            tasks: 'so desta identidade: outra nao as ve, nao as continua e nao as cancela',
            pausaSegundos: termos.validadeDaPausaMs / 1000,
            corpoMaximoBytes: termos.limiteDoCorpoBytes,
            tasksDuraveis: termos.banco !== undefined,
          },
        },
      ],
    },
  };
}

/**
 * The SDK's provider: the extended card of the caller, built from the
 * public card of the moment (the generic bridge's follows its servers'
 * tools). A caller with no identity gets the public card, as the SDK does
 * for a static extended card: every binding here is behind the token
 * check (acesso.ts), so it is only a guard for one that is not.
 */
export function provedorDoCardEstendido(
  cardAtual: () => CardPublico,
  termos: Termos,
  assinatura: AssinaturaDoCard | undefined,
): ExtendedAgentCardProvider {
  return async ({ user }) => {
    const card = user?.isAuthenticated ? cardEstendido(cardAtual(), user.userName, termos) : cardAtual();
    return AgentCard.fromJSON(assinatura ? await assinatura.assinar(card) : card);
  };
}
