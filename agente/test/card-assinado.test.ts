/**
 * The pieces of the signed and extended cards that the end-to-end test
 * (test/card-assinado.e2e.test.ts) cannot reach: the key id against the
 * thumbprint RFC 7638 computes for its own example key, the extended
 * card's provider for a caller with no identity, and the generic card with
 * the agentCard of AGENTE_MCP_CONFIG.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentCard } from '@a2a-js/sdk';
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import { impressaoDigital } from '../src/a2a/assinatura.js';
import { agentCard, cardGenerico } from '../src/a2a/card.js';
import { EXTENSAO_CONTA, provedorDoCardEstendido } from '../src/a2a/estendido.js';
import { CARD_DA_EQUIPE } from '../../test/apoio/card-da-equipe.js';

describe('kid', () => {
  it('is the RFC 7638 thumbprint: the example of its section 3.1', () => {
    const jwk = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    assert.equal(impressaoDigital(jwk), 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });
});

describe('the extended card provider', () => {
  const card = agentCard(new URL('http://127.0.0.1:7300/'), true);
  const termos = { limitePorMinuto: undefined, validadeDaPausaMs: 600_000, limiteDoCorpoBytes: 65_536, banco: 'tasks.db' };
  const provedor = provedorDoCardEstendido(() => card, termos, undefined);
  const contexto = (user: User) => new ServerCallContext({ user });

  it('gives an identity its terms: no limit means no pedidosPorMinuto', async () => {
    const estendido = await provedor(contexto({ isAuthenticated: true, userName: 'ana' }));
    const [conta, ...outras] = estendido.capabilities?.extensions ?? [];
    assert.deepEqual(outras, []);
    assert.equal(conta?.uri, EXTENSAO_CONTA);
    assert.deepEqual(conta.params, {
      identidade: 'ana',
      tasks: 'so desta identidade: outra nao as ve, nao as continua e nao as cancela',
      pausaSegundos: 600,
      corpoMaximoBytes: 65536,
      tasksDuraveis: true,
    });
  });

  it('gives a caller with no identity the public card (a binding not behind the token check would)', async () => {
    const publico = await provedor(contexto({ isAuthenticated: false, userName: '' }));
    assert.deepEqual(AgentCard.toJSON(publico), AgentCard.toJSON(AgentCard.fromJSON(card)));
  });
});

describe("the generic card with the file's agentCard", () => {
  const url = new URL('http://127.0.0.1:7300/');

  it('without one, or with an empty one, is the card it always was', () => {
    const padrao = cardGenerico(url, false, []);
    assert.deepEqual(cardGenerico(url, false, [], undefined, {}), padrao);
    assert.deepEqual(Object.keys(padrao), [
      'name',
      'description',
      'version',
      'supportedInterfaces',
      'capabilities',
      'defaultInputModes',
      'defaultOutputModes',
      'skills',
    ]);
    assert.equal(padrao.name, 'A Ponte');
    assert.equal(padrao.version, '1.0.0');
  });

  it('takes each of its fields over the defaults, and the SDK keeps them in its message form (the extended card is built from it)', () => {
    const card = cardGenerico(url, true, [], undefined, CARD_DA_EQUIPE);
    const { name, description, version, provider, documentationUrl, iconUrl } = card;
    assert.deepEqual({ name, description, version, provider, documentationUrl, iconUrl }, CARD_DA_EQUIPE);
    assert.deepEqual(card.supportedInterfaces, cardGenerico(url, true, []).supportedInterfaces);
    const lido = AgentCard.toJSON(AgentCard.fromJSON(card)) as Record<string, unknown>;
    for (const [campo, valor] of Object.entries(CARD_DA_EQUIPE)) assert.deepEqual(lido[campo], valor, campo);
  });
});
