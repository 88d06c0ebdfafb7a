/**
 * A signed card and the extended card (issue "A2A to the letter"), on the
 * real agent process: with AGENTE_CHAVE_CARD the card carries a JWS made
 * by the SDK's card signing (A2A §8.4) and the public key is published as a
 * JWKS at the `jku` the signature names; the official SDK verifies it and
 * refuses a tampered copy. With AGENTE_TOKENS, GetExtendedAgentCard gives
 * an authenticated identity the card with its own terms, over both
 * bindings, signed too. Keys are made here, in a temporary folder.
 */
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AgentCard, canonicalizeAgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { BINDINGS, clienteOficial } from './apoio/cliente-a2a.js';
import { iniciarAgenteGenerico, pastaTemporaria, type Pasta } from './apoio/ponte-generica.js';
import { iniciarAgente, type Processo } from './apoio/processos.js';
import { pedirCru } from './apoio/http-cru.js';

/** No MCP server is needed to serve a card: the agent starts and says the room server is not there yet. */
const SEM_MCP = 'http://127.0.0.1:9/mcp';
const CARD = '/.well-known/agent-card.json';
const JWKS = '/.well-known/jwks.json';
const EXTENSAO_CONTA = 'urn:a-ponte:a2a-extension:conta:v1';

const Jwks = z.object({
  keys: z.array(z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string(), use: z.literal('sig') })),
});
const Assinatura = z.object({ protected: z.string(), signature: z.string() });
const Cabecalho = z.object({ alg: z.string(), typ: z.string(), kid: z.string(), jku: z.string() });
const CardNoFio = z.looseObject({
  capabilities: z.looseObject({ extendedAgentCard: z.boolean(), extensions: z.array(z.looseObject({ uri: z.string() })).optional() }),
  skills: z.array(z.looseObject({ id: z.string() })),
  signatures: z.array(Assinatura).optional(),
});
type CardNoFio = z.infer<typeof CardNoFio>;

const cabecalhoDe = (card: CardNoFio) => {
  const [assinatura, ...outras] = card.signatures ?? [];
  assert.ok(assinatura, 'the card carries a signature');
  assert.deepEqual(outras, [], 'one signature');
  return Cabecalho.parse(JSON.parse(Buffer.from(assinatura.protected, 'base64url').toString('utf8')));
};

/** The card in its JSON form, as the SDK's verifier reads it (through AgentCard.fromJSON): its TypeScript type is the message form. */
const comoCard = (json: unknown) => json as AgentCard;

/** The SDK's verifier, the public key fetched from the jku the signature names and chosen by its kid. */
const verificador = (base: string) =>
  verifyAgentCardSignature(async (kid, jku) => {
    assert.equal(jku, new URL(JWKS, base).href);
    const resposta = await fetch(jku);
    assert.equal(resposta.headers.get('content-type'), 'application/jwk-set+json; charset=utf-8');
    const chave = Jwks.parse(await resposta.json()).keys.find((lida) => lida.kid === kid);
    assert.ok(chave, `the JWKS has the key ${kid}`);
    return createPublicKey({ key: chave, format: 'jwk' });
  });

async function lerCard(base: string): Promise<{ bytes: string; card: CardNoFio; json: unknown }> {
  const resposta = await fetch(new URL(CARD, base));
  assert.equal(resposta.status, 200);
  const bytes = await resposta.text();
  const json: unknown = JSON.parse(bytes);
  return { bytes, card: CardNoFio.parse(json), json };
}

/** A copy of the card with one field changed: the signature no longer covers it. */
const adulterar = (json: unknown, mudar: (card: Record<string, unknown>) => void): unknown => {
  const copia = structuredClone(json) as Record<string, unknown>;
  mudar(copia);
  return copia;
};

const RECUSA_DO_SDK = /No valid signatures found on agent card/;

type Formato = 'pkcs8' | 'pkcs1' | 'sec1';

const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve }).privateKey;
const ed25519 = () => generateKeyPairSync('ed25519').privateKey;
const rsa = (modulusLength: number) => generateKeyPairSync('rsa', { modulusLength }).privateKey;

/** A private key written as PEM in `pasta`, its path returned. */
function gravar(pasta: string, nome: string, privada: KeyObject, formato: Formato = 'pkcs8'): string {
  const arquivo = join(pasta, nome);
  writeFileSync(arquivo, privada.export({ type: formato, format: 'pem' }).toString(), { mode: 0o600 });
  return arquivo;
}

describe('AGENTE_CHAVE_CARD', () => {
  let pasta: string;
  before(() => {
    pasta = mkdtempSync(join(tmpdir(), 'card-assinado-'));
  });
  after(() => rmSync(pasta, { recursive: true, force: true }));

  const TIPOS: [string, () => KeyObject, Formato, string][] = [
    ['EC P-256 (SEC1)', () => ec('P-256'), 'sec1', 'ES256'],
    ['Ed25519 (PKCS#8)', ed25519, 'pkcs8', 'EdDSA'],
    ['RSA 2048 (PKCS#1)', () => rsa(2048), 'pkcs1', 'RS256'],
  ];
  for (const [nome, gerar, formato, alg] of TIPOS) {
    it(`${nome}: the official client verifies the card as served against the published JWKS, and refuses a tampered copy`, async (t) => {
      // The SDK's verifier tells each failed signature to console.debug.
      t.mock.method(console, 'debug', () => undefined);
      const agente = await iniciarAgente(SEM_MCP, { AGENTE_CHAVE_CARD: gravar(pasta, `${alg}.pem`, gerar(), formato) });
      try {
        const { card, json } = await lerCard(agente.url);
        const cabecalho = cabecalhoDe(card);
        assert.deepEqual(cabecalho, { alg, typ: 'JOSE', kid: cabecalho.kid, jku: `${agente.url}${JWKS}` });
        const jwks = Jwks.parse(await (await fetch(new URL(JWKS, agente.url))).json());
        assert.deepEqual(
          jwks.keys.map(({ kid, alg: algoritmo }) => [kid, algoritmo]),
          [[cabecalho.kid, alg]],
        );
        assert.ok(!jwks.keys.some((lida) => 'd' in lida || 'p' in lida), 'no private member in the JWKS');
        assert.equal(card.capabilities.extendedAgentCard, false, 'no AGENTE_TOKENS, no extended card');

        // The official client, as a user would build it: the card fetched by its resolver, verified by getAgentCard.
        const cliente = await new ClientFactory().createFromUrl(agente.url);
        await cliente.getAgentCard(undefined, verificador(agente.url));
        // And the JSON as fetched, with the SDK's verifier alone.
        const verificar = verificador(agente.url);
        await verificar(comoCard(json));

        for (const adulterado of [
          adulterar(json, (c) => (c.description = 'Outra coisa.')),
          adulterar(
            json,
            (c) => (c.supportedInterfaces = [{ url: 'http://evil.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]),
          ),
          adulterar(json, (c) => (c.skills = (c.skills as unknown[]).slice(1))),
        ])
          await assert.rejects(verificar(comoCard(adulterado)), RECUSA_DO_SDK);
      } finally {
        await agente.parar();
      }
    });
  }

  it('unset, the card is byte for byte what it was, with no JWKS; set, it is that card plus signatures', async () => {
    const AGENTE_URL = 'https://salas.hillvalley.example';
    const sem = await iniciarAgente(SEM_MCP, { AGENTE_URL });
    const com = await iniciarAgente(SEM_MCP, { AGENTE_URL, AGENTE_CHAVE_CARD: gravar(pasta, 'mesmo.pem', ec('P-256')) });
    try {
      const semChave = await lerCard(sem.url);
      assert.ok(!('signatures' in semChave.card));
      assert.equal((await fetch(new URL(JWKS, sem.url))).status, 404);
      const { signatures, ...assinado } = (await lerCard(com.url)).json as Record<string, unknown>;
      assert.equal(z.array(Assinatura).parse(signatures).length, 1);
      assert.equal(JSON.stringify(assinado, null, 2), semChave.bytes);
      assert.equal(cabecalhoDe((await lerCard(com.url)).card).jku, `${AGENTE_URL}${JWKS}`, 'the JWKS at the public URL');
    } finally {
      await com.parar();
      await sem.parar();
    }
  });

  it('without AGENTE_TOKENS, GetExtendedAgentCard is UnsupportedOperationError on both bindings (§3.3.4: the card says it has none)', async () => {
    const agente = await iniciarAgente(SEM_MCP);
    try {
      const jsonRpc = await fetch(new URL('/a2a', agente.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
      });
      const razao = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org' }];
      const mensagem = 'Agent does not support authenticated extended card.';
      assert.deepEqual(await jsonRpc.json(), { jsonrpc: '2.0', id: 1, error: { code: -32004, message: mensagem, data: razao } });
      // §5.4: FAILED_PRECONDITION, 400.
      const rest = await fetch(new URL('/rest/extendedAgentCard', agente.url));
      assert.equal(rest.status, 400);
      assert.deepEqual(await rest.json(), { error: { code: 400, status: 'FAILED_PRECONDITION', message: mensagem, details: razao } });
    } finally {
      await agente.parar();
    }
  });

  it('a key it cannot use stops the agent with one line naming AGENTE_CHAVE_CARD, never the key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const escrever = (nome: string, conteudo: string) => {
      const arquivo = join(pasta, nome);
      writeFileSync(arquivo, conteudo);
      return arquivo;
    };
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const casos: [string, string][] = [
      [join(pasta, 'nao-existe.pem'), 'nao consegui ler o arquivo \\(ENOENT\\)'],
      [pasta, 'nao consegui ler o arquivo \\(EISDIR\\)'],
      [escrever('lixo.pem', 'nao sou uma chave\n'), 'nao e uma chave privada PEM'],
      [
        escrever('publica.pem', publicKey.export({ type: 'spki', format: 'pem' }).toString()),
        'o arquivo tem uma chave publica ou um certificado',
      ],
      [
        escrever('cifrada.pem', privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'senha' }).toString()),
        'a chave privada esta cifrada com senha',
      ],
      [gravar(pasta, 'rsa1024.pem', rsa(1024)), 'uma chave RSA de 1024 bits e curta demais; use EC P-256 \\(ES256\\)'],
      [gravar(pasta, 'k1.pem', ec('secp256k1')), 'a curva EC secp256k1 nao e suportada'],
      [gravar(pasta, 'x25519.pem', generateKeyPairSync('x25519').privateKey), 'chaves x25519 nao sao suportadas'],
      [
        escrever('duas.pem', `${pem}${rsa(1024).export({ type: 'pkcs8', format: 'pem' }).toString()}`),
        'o arquivo tem mais de uma chave privada',
      ],
    ];
    const corpoDoPem = pem.split('\n')[1] ?? 'sem corpo';
    for (const [arquivo, motivo] of casos) {
      await assert.rejects(iniciarAgente(SEM_MCP, { AGENTE_CHAVE_CARD: arquivo }), (erro: Error) => {
        const linhas = erro.message.split('\n').filter((linha) => linha.includes('nao subiu'));
        assert.equal(linhas.length, 1, erro.message);
        const escapado = arquivo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        assert.match(linhas[0] ?? '', new RegExp(`^agente nao subiu: AGENTE_CHAVE_CARD=${escapado}: ${motivo}`));
        assert.ok(!erro.message.includes(corpoDoPem) && !erro.message.includes('PRIVATE KEY-----'), 'no key material');
        return true;
      });
    }
  });

  describe('the generic card (AGENTE_MCP_CONFIG), re-signed when a server changes its tools', () => {
    const nomes = ['consultar'];
    const criar = () => {
      const servidor = new McpServer({ name: 'mutavel', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
      for (const nome of nomes) servidor.registerTool(nome, { description: nome }, () => ({ content: [{ type: 'text', text: nome }] }));
      return servidor;
    };
    const handler = createMcpHandler(criar, { legacy: 'reject' });
    let http: Server | undefined;
    let agente: Processo | undefined;
    let pastaDoConfig: Pasta | undefined;
    before(async () => {
      pastaDoConfig = pastaTemporaria();
      const atender = toNodeHandler(handler);
      http = createServer((pedido, resposta) => void atender(pedido, resposta));
      await new Promise<void>((resolver) => http?.listen(0, '127.0.0.1', resolver));
      const endereco = http.address();
      if (typeof endereco !== 'object' || !endereco) throw new Error('sem porta');
      const config = pastaDoConfig.config({ mutavel: { url: `http://127.0.0.1:${String(endereco.port)}/mcp` } });
      agente = await iniciarAgenteGenerico(config, { AGENTE_CHAVE_CARD: gravar(pasta, 'generico.pem', ed25519()) });
    });
    after(async () => {
      await agente?.parar();
      await handler.close();
      http?.closeAllConnections();
      http?.close();
      pastaDoConfig?.apagar();
    });

    it('verifies before and after the change, and the new card has the new skill', async (t) => {
      t.mock.method(console, 'debug', () => undefined);
      assert.ok(agente);
      const verificar = verificador(agente.url);
      const antes = await lerCard(agente.url);
      assert.deepEqual(
        antes.card.skills.map(({ id }) => id),
        ['mutavel.consultar'],
      );
      await verificar(comoCard(antes.json));
      nomes.push('reservar');
      handler.notify.toolsChanged();
      await agente.esperarLinha(/card republicado e assinado de novo/);
      const depois = await lerCard(agente.url);
      assert.deepEqual(
        depois.card.skills.map(({ id }) => id),
        ['mutavel.consultar', 'mutavel.reservar'],
      );
      await verificar(comoCard(depois.json));
      // The old signature does not cover the new card.
      await assert.rejects(verificar(comoCard({ ...(depois.json as object), signatures: antes.card.signatures })), RECUSA_DO_SDK);
    });
  });
});

describe('the extended card (AGENTE_TOKENS), signed with AGENTE_CHAVE_CARD', () => {
  const ANA = randomBytes(24).toString('base64url');
  const BIA = randomBytes(24).toString('base64url');
  let pasta: string;
  let agente: Processo;
  before(async () => {
    pasta = mkdtempSync(join(tmpdir(), 'card-estendido-'));
    agente = await iniciarAgente(SEM_MCP, {
      AGENTE_TOKENS: `ana:${ANA},bia:${BIA}`,
      AGENTE_LIMITE_POR_MINUTO: '1000',
      AGENTE_CHAVE_CARD: gravar(pasta, 'p256.pem', ec('P-256')),
    });
  });
  after(async () => {
    await agente.parar();
    rmSync(pasta, { recursive: true, force: true });
  });

  /** GetExtendedAgentCard over JSON-RPC or HTTP+JSON, with a token or none: the status and the body as JSON. */
  const pedir = async (binding: 'JSONRPC' | 'HTTP+JSON', token?: string) => {
    const autorizacao: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const resposta =
      binding === 'JSONRPC'
        ? await fetch(new URL('/a2a', agente.url), {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...autorizacao },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
          })
        : await fetch(new URL('/rest/extendedAgentCard', agente.url), { headers: autorizacao });
    const corpo: unknown = await resposta.json();
    return { resposta, corpo, card: binding === 'JSONRPC' ? z.object({ result: z.unknown() }).safeParse(corpo).data?.result : corpo };
  };

  it('the public card says an extended card exists, and is signed; it is cached by max-age and ETag (§8.6.1)', async (t) => {
    t.mock.method(console, 'debug', () => undefined);
    const primeira = await fetch(new URL('/.well-known/agent-card.json', agente.url));
    assert.equal(primeira.headers.get('cache-control'), 'public, max-age=60');
    const etag = primeira.headers.get('etag');
    assert.ok(etag);
    // Over node:http: fetch adds its own cache headers to a conditional request.
    const deNovo = await pedirCru(new URL('/.well-known/agent-card.json', agente.url), 'GET', ['if-none-match', etag]);
    assert.equal(deNovo.status, 304);
    const { card, json } = await lerCard(agente.url);
    assert.equal(card.capabilities.extendedAgentCard, true);
    await verificador(agente.url)(comoCard(json));
  });

  for (const [binding, quem, token] of [
    ['JSONRPC', 'ana', ANA],
    ['HTTP+JSON', 'bia', BIA],
  ] as const) {
    it(`${binding}: an identity gets the whole public card plus its own terms, signed with the same key`, async (t) => {
      t.mock.method(console, 'debug', () => undefined);
      const { resposta, card: bruto } = await pedir(binding, token);
      assert.equal(resposta.status, 200);
      if (binding === 'HTTP+JSON')
        assert.equal(resposta.headers.get('cache-control'), 'private, no-store', '§13.3: never cached for another');
      const estendido = CardNoFio.parse(bruto);
      const verificar = verificador(agente.url);
      await verificar(comoCard(bruto));
      const publico = await lerCard(agente.url);
      assert.equal(cabecalhoDe(estendido).kid, cabecalhoDe(publico.card).kid);
      const conta = estendido.capabilities.extensions?.find(({ uri }) => uri === EXTENSAO_CONTA);
      assert.deepEqual(conta, {
        uri: EXTENSAO_CONTA,
        description: `O que vale para a identidade ${quem} neste agente. Sem pedidosPorMinuto, nao ha limite de pedidos.`,
        params: {
          identidade: quem,
          pedidosPorMinuto: 1000,
          tasks: 'so desta identidade: outra nao as ve, nao as continua e nao as cancela',
          pausaSegundos: 600,
          corpoMaximoBytes: 65536,
          tasksDuraveis: false,
        },
      });
      // Without its extension and signature, the extended card is the public card (as the SDK canonicalizes both).
      /** The extensions of a copy of the extended card, to change. */
      const extensoes = (c: Record<string, unknown>) =>
        (c.capabilities as { extensions: { uri: string; params: { identidade?: string } }[] }).extensions;
      const semConta = adulterar(bruto, (c) => {
        const todas = extensoes(c);
        todas.splice(
          todas.findIndex(({ uri }) => uri === EXTENSAO_CONTA),
          1,
        );
      });
      assert.equal(canonicalizeAgentCard(comoCard(semConta)), canonicalizeAgentCard(comoCard(publico.json)));
      // Another identity's name in it breaks the signature.
      await assert.rejects(
        verificar(
          comoCard(
            adulterar(bruto, (c) => {
              for (const extensao of extensoes(c)) if (extensao.uri === EXTENSAO_CONTA) extensao.params.identidade = 'zoe';
            }),
          ),
        ),
        RECUSA_DO_SDK,
      );
    });
  }

  it('without a token, or with an unknown one: 401, as every other A2A method answers', async () => {
    for (const token of [undefined, randomBytes(24).toString('base64url')]) {
      const falta = token ? 'token desconhecido' : 'falta o cabecalho Authorization: Bearer <token>';
      const jsonRpc = await pedir('JSONRPC', token);
      assert.equal(jsonRpc.resposta.status, 401);
      assert.deepEqual(jsonRpc.corpo, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Nao autenticado: ${falta}` } });
      const rest = await pedir('HTTP+JSON', token);
      assert.equal(rest.resposta.status, 401);
      assert.deepEqual(rest.corpo, { error: { code: 401, status: 'UNAUTHENTICATED', message: `Nao autenticado: ${falta}`, details: [] } });
    }
  });

  it("the official client's getAgentCard fetches the extended card; its signature verifies on the card's JSON form", async (t) => {
    t.mock.method(console, 'debug', () => undefined);
    // The token goes as the SDK sends any service parameter: an HTTP header.
    const comToken = { serviceParameters: { authorization: `Bearer ${ANA}` } };
    for (const binding of BINDINGS) {
      const cliente = await clienteOficial(agente.url, binding);
      const verificar = verificador(agente.url);
      // The SDK hands its verifier the card in its message form, and its canonical form of that drops the
      // security schemes (a oneof): a good signature is refused. Pinned, as docs/sdk.md says.
      await assert.rejects(cliente.getAgentCard(comToken, verificar), RECUSA_DO_SDK);
      const card = await cliente.getAgentCard(comToken);
      assert.ok(
        card.capabilities?.extensions.some(({ uri }) => uri === EXTENSAO_CONTA),
        binding,
      );
      await verificar(comoCard(AgentCard.toJSON(card)));
    }
  });
});
