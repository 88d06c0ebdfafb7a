/**
 * Discovery documents as served by the real processes: they parse, carry
 * the fields the proposals name, point at URLs that answer, and agree with
 * what the servers really do.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import * as z from 'zod';
import { chamar } from './apoio/mcp.js';
import { ambosOsProcessos, iniciarAgente } from './apoio/processos.js';

/*
 * The discovery documents, as far as the tests read them. Fields the tests
 * only compare are left unknown, so the comparisons see them as served.
 */
const CartaoMcp = z.looseObject({
  $schema: z.unknown(),
  version: z.unknown(),
  protocolVersion: z.unknown(),
  serverInfo: z.looseObject({}),
  description: z.unknown(),
  transport: z.unknown(),
  capabilities: z.unknown(),
  authentication: z.unknown(),
  tools: z.unknown(),
  resources: z.array(z.looseObject({ uri: z.unknown() })),
});
const Catalogo = z.looseObject({
  specVersion: z.unknown(),
  host: z.looseObject({ name: z.unknown(), url: z.unknown() }),
  entries: z.array(
    z.looseObject({
      identifier: z.string(),
      displayName: z.unknown(),
      type: z.unknown(),
      mediaType: z.string(),
      representativeQueries: z.array(z.unknown()),
      url: z.string(),
    }),
  ),
});
const IndiceDeSkills = z.looseObject({
  $schema: z.unknown(),
  skills: z.array(z.looseObject({ name: z.unknown(), type: z.unknown(), description: z.string(), url: z.string(), digest: z.unknown() })),
});
/** Only the public URLs, for the documents of an agent behind another host. */
const CartaoDoAgente = z.looseObject({ supportedInterfaces: z.array(z.looseObject({ url: z.unknown().optional() })) });
const UrlsDoCatalogo = z.looseObject({ entries: z.array(z.looseObject({ url: z.unknown().optional() })) });
const UrlsDasSkills = z.looseObject({ skills: z.array(z.looseObject({ url: z.unknown().optional() })) });

async function obter(url: string) {
  const resposta = await fetch(url);
  assert.equal(resposta.status, 200, url);
  assert.equal(resposta.headers.get('access-control-allow-origin'), '*', url);
  return { resposta, bytes: Buffer.from(await resposta.arrayBuffer()) };
}
const json = async (url: string) => {
  const { resposta, bytes } = await obter(url);
  assert.match(resposta.headers.get('content-type') ?? '', /^application\/json/, url);
  const corpo: unknown = JSON.parse(bytes.toString('utf8'));
  return { corpo, resposta };
};

describe('discovery', () => {
  const processos = ambosOsProcessos();

  it('MCP Server Card: the fields of the proposal, and exactly what tools/list and resources/list answer', async () => {
    const { corpo, resposta } = await json(new URL('/.well-known/mcp/server-card.json', processos.mcp.url).href);
    const card = CartaoMcp.parse(corpo);
    assert.match(resposta.headers.get('link') ?? '', /<\/\.well-known\/mcp\/server-card\.json>; rel="mcp"/);
    assert.equal(card.$schema, 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json');
    assert.equal(card.version, '1.0');
    assert.equal(card.protocolVersion, '2026-07-28');
    assert.deepEqual(Object.keys(card.serverInfo).sort(), ['name', 'title', 'version']);
    assert.ok(card.description);
    assert.deepEqual(card.transport, { type: 'streamable-http', endpoint: '/mcp' });
    // Field by field against server/discover and the client: test/mcp-primitivas.e2e.test.ts.
    assert.deepEqual(Object.keys(card.capabilities ?? {}).sort(), ['completions', 'prompts', 'resources', 'tools']);
    assert.deepEqual(card.authentication, { required: false });
    const ferramentas = await chamar(processos.mcp.url, { metodo: 'tools/list' });
    assert.ok(ferramentas.corpo?.result, ferramentas.texto);
    assert.deepEqual(card.tools, ferramentas.corpo.result.tools);
    const recursos = await chamar(processos.mcp.url, { metodo: 'resources/list' });
    assert.ok(recursos.corpo?.result, recursos.texto);
    assert.deepEqual(card.resources, recursos.corpo.result.resources);
    assert.deepEqual(
      card.resources.map((r) => r.uri),
      ['politica://uso'],
    );
  });

  it('the MCP endpoint announces its card with a Link header too', async () => {
    const resposta = await chamar(processos.mcp.url, { metodo: 'tools/list' });
    assert.equal(resposta.headers.get('link'), '</.well-known/mcp/server-card.json>; rel="mcp"');
  });

  it('AI catalog: both cards, with URN, names, both media type fields and 2-5 representative queries; every URL answers', async () => {
    const { corpo, resposta } = await json(`${processos.agente.url}/.well-known/ai-catalog.json`);
    const catalogo = Catalogo.parse(corpo);
    assert.match(resposta.headers.get('link') ?? '', /<\/\.well-known\/ai-catalog\.json>; rel="ai-catalog"/);
    assert.match(resposta.headers.get('link') ?? '', /<\/\.well-known\/agent-skills\/index\.json>; rel="agent-skills"/);
    assert.equal(catalogo.specVersion, '1.0');
    assert.ok(catalogo.host.name && catalogo.host.url);
    const tipos = catalogo.entries.map((e) => e.mediaType).sort();
    assert.deepEqual(tipos, ['application/a2a-agent-card+json', 'application/mcp-server-card+json']);
    for (const entrada of catalogo.entries) {
      assert.match(entrada.identifier, /^urn:[a-z0-9-]+:/);
      assert.ok(entrada.displayName);
      assert.equal(entrada.type, entrada.mediaType);
      assert.ok(entrada.representativeQueries.length >= 2 && entrada.representativeQueries.length <= 5);
      await json(entrada.url);
    }
  });

  it('Agent Skills index: one skill-md per skill of the card, each digest of the exact bytes served', async () => {
    const indice = IndiceDeSkills.parse((await json(`${processos.agente.url}/.well-known/agent-skills/index.json`)).corpo);
    assert.equal(indice.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    assert.deepEqual(
      indice.skills.map((skill) => skill.name),
      ['reservar-sala', 'listar-salas', 'consultar-disponibilidade'],
    );
    /** What each SKILL.md must teach: its request, its answer and its errors. */
    const trechos: Record<string, string[]> = {
      'reservar-sala': [
        'reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome>',
        'alternativas: ',
        'escolha=recusar',
        '{"escolha": "<id>"}',
        'Sala inexistente: <id>',
        'TASK_STATE_INPUT_REQUIRED',
      ],
      'listar-salas': ['listar salas', '{"skill": "listar-salas"}', '`salas`'],
      'consultar-disponibilidade': ['consultar sala=<id> inicio=<iso8601> fim=<iso8601>', '`disponibilidade`', 'Sala inexistente: <id>'],
    };
    for (const skill of indice.skills) {
      assert.equal(skill.type, 'skill-md');
      assert.ok(skill.description.length <= 1024);
      const { resposta, bytes } = await obter(skill.url);
      assert.match(resposta.headers.get('content-type') ?? '', /^text\/markdown/);
      assert.equal(skill.digest, `sha256:${createHash('sha256').update(bytes).digest('hex')}`);
      const texto = bytes.toString('utf8');
      const frente = /^---\nname: ([a-z0-9-]{1,64})\ndescription: (.{1,1024})\n---\n/.exec(texto);
      assert.equal(frente?.[1], skill.name);
      for (const trecho of trechos[String(skill.name)] ?? ['(uma skill sem trechos esperados)']) {
        assert.ok(texto.includes(trecho), `${String(skill.name)}: ${trecho}`);
      }
    }
  });

  it('the Agent Card keeps CORS and the Link header', async () => {
    const { resposta } = await json(`${processos.agente.url}/.well-known/agent-card.json`);
    assert.match(resposta.headers.get('link') ?? '', /rel="ai-catalog"/);
  });
});

it('public URLs follow AGENTE_URL when the agent sits behind another host', async () => {
  const agente = await iniciarAgente('http://127.0.0.1:9/mcp', { AGENTE_URL: 'https://salas.hillvalley.example' });
  try {
    const card = CartaoDoAgente.parse(await (await fetch(`${agente.url}/.well-known/agent-card.json`)).json());
    assert.equal(card.supportedInterfaces[0]?.url, 'https://salas.hillvalley.example/a2a');
    const catalogo = UrlsDoCatalogo.parse(await (await fetch(`${agente.url}/.well-known/ai-catalog.json`)).json());
    assert.ok(catalogo.entries.some((e) => e.url === 'https://salas.hillvalley.example/.well-known/agent-card.json'));
    const indice = UrlsDasSkills.parse(await (await fetch(`${agente.url}/.well-known/agent-skills/index.json`)).json());
    assert.equal(indice.skills[0]?.url, 'https://salas.hillvalley.example/.well-known/agent-skills/reservar-sala/SKILL.md');
  } finally {
    await agente.parar();
  }
});
