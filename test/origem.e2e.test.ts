/**
 * The DNS-rebinding guard, one rule for both processes (compartilhado/origem):
 * a browser page's Origin must be the process's own public origin, a loopback
 * name on its own port, or one listed in AGENTE_ORIGENS / MCP_ORIGENS; on a
 * loopback listener the Host must name the process too. Requests without
 * Origin pass; the discovery documents stay open to any page. Real
 * processes, over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { a2a, estado } from './apoio/a2a.js';
import { pedirCru } from './apoio/http-cru.js';
import { chamar } from './apoio/mcp.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';

const ESTRANHA = 'http://evil.example';
const CONSOLE = 'http://console.exemplo:8080';
const PUBLICA = 'https://salas.exemplo.com';

const recusa = (motivo: string) => ({ jsonrpc: '2.0', error: { code: -32000, message: motivo }, id: null });
const corpoJsonRpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const mensagem = (texto: string) => ({ message: { messageId: `m-${texto.length}`, role: 'ROLE_USER', parts: [{ text: texto }] } });

/** Every A2A route the agent serves, as a browser would ask for it. */
const ROTAS_A2A: readonly { readonly metodo: string; readonly caminho: string; readonly corpo?: string }[] = [
  { metodo: 'POST', caminho: '/a2a', corpo: corpoJsonRpc('SendMessage', mensagem('listar salas')) },
  { metodo: 'POST', caminho: '/a2a', corpo: corpoJsonRpc('SendStreamingMessage', mensagem('listar salas')) },
  { metodo: 'POST', caminho: '/a2a', corpo: corpoJsonRpc('GetTask', { id: 'qualquer' }) },
  { metodo: 'OPTIONS', caminho: '/a2a' },
  { metodo: 'POST', caminho: '/rest/message:send', corpo: JSON.stringify(mensagem('listar salas')) },
  { metodo: 'POST', caminho: '/rest/message:stream', corpo: JSON.stringify(mensagem('listar salas')) },
  { metodo: 'GET', caminho: '/rest/tasks' },
  { metodo: 'GET', caminho: '/rest/tasks/qualquer' },
];

const pedir = (base: string, rota: (typeof ROTAS_A2A)[number], cabecalhos: readonly string[]) =>
  pedirCru(new URL(rota.caminho, base), rota.metodo, ['content-type', 'application/json', ...cabecalhos], rota.corpo);

describe('Origin and Host on the agent', () => {
  let mcp: Processo;
  let agente: Processo;
  let comOrigens: Processo;
  before(async () => {
    mcp = await iniciarServidorMcp();
    [agente, comOrigens] = await Promise.all([
      iniciarAgente(mcp.url),
      iniciarAgente(mcp.url, { AGENTE_ORIGENS: `${CONSOLE},http://localhost:5173`, AGENTE_URL: `${PUBLICA}/` }),
    ]);
  });
  after(async () => {
    await Promise.all([agente.parar(), comOrigens.parar()]);
    await mcp.parar();
  });

  it('refuses a foreign Origin on every A2A route with 403 and a JSON-RPC error naming it, before the SDK', async () => {
    for (const rota of ROTAS_A2A) {
      const resposta = await pedir(agente.url, rota, ['origin', ESTRANHA]);
      assert.equal(resposta.status, 403, `${rota.metodo} ${rota.caminho}`);
      assert.match(String(resposta.cabecalhos['content-type']), /^application\/json/);
      assert.deepEqual(JSON.parse(resposta.corpo), recusa(`Invalid Origin: ${ESTRANHA}`), `${rota.metodo} ${rota.caminho}`);
    }
    // A page on another loopback port, and an opaque origin, are foreign too.
    const porta = new URL(agente.url).port;
    for (const origem of [`http://localhost:${Number(porta) + 1}`, `https://localhost:${porta}`, 'null']) {
      const resposta = await pedir(agente.url, ROTAS_A2A[0] ?? { metodo: 'POST', caminho: '/a2a' }, ['origin', origem]);
      assert.equal(resposta.status, 403, origem);
      assert.deepEqual(JSON.parse(resposta.corpo), recusa(`Invalid Origin: ${origem}`));
    }
    const linha = await agente.esperarLinha(/recusa="Invalid Origin: null"/);
    assert.match(linha, /http=403/);
  });

  it('serves the loopback names on its own port and requests without Origin', async () => {
    const porta = new URL(agente.url).port;
    for (const origem of [`http://localhost:${porta}`, `http://127.0.0.1:${porta}`, `http://[::1]:${porta}`]) {
      const resposta = await a2a(agente.url, 'SendMessage', mensagem('listar salas'), { origin: origem });
      assert.equal(estado(resposta), 'TASK_STATE_COMPLETED', origem);
    }
    for (const rota of ROTAS_A2A.filter(({ metodo }) => metodo !== 'OPTIONS')) {
      const resposta = await pedir(agente.url, rota, []);
      assert.notEqual(resposta.status, 403, `${rota.metodo} ${rota.caminho}`);
      assert.ok((resposta.status ?? 500) < 500, `${rota.metodo} ${rota.caminho}: ${String(resposta.status)}`);
    }
  });

  it('serves the origins of AGENTE_ORIGENS and of AGENTE_URL, and still refuses the others', async () => {
    for (const origem of [CONSOLE, 'http://localhost:5173', PUBLICA]) {
      const resposta = await a2a(comOrigens.url, 'SendMessage', mensagem('listar salas'), { origin: origem });
      assert.equal(estado(resposta), 'TASK_STATE_COMPLETED', origem);
    }
    const recusada = await pedir(comOrigens.url, ROTAS_A2A[4] ?? { metodo: 'POST', caminho: '/rest/message:send' }, ['origin', ESTRANHA]);
    assert.equal(recusada.status, 403);
  });

  it('on a loopback listener, refuses a foreign Host (what a browser sends after a DNS rebinding)', async () => {
    const { port } = new URL(agente.url);
    const casos: [string[], string][] = [
      [['host', `evil.example:${port}`], `Invalid Host: evil.example:${port}`],
      [['host', `evil.example:${port}`, 'origin', `http://evil.example:${port}`], `Invalid Origin: http://evil.example:${port}`],
    ];
    for (const rota of ROTAS_A2A) {
      for (const [cabecalhos, motivo] of casos) {
        const resposta = await pedir(agente.url, rota, cabecalhos);
        assert.equal(resposta.status, 403, `${rota.metodo} ${rota.caminho} ${cabecalhos.join(' ')}`);
        assert.deepEqual(JSON.parse(resposta.corpo), recusa(motivo));
      }
    }
    // The public host of AGENTE_URL and of a listed origin are names of the agent too.
    const propria = new URL(comOrigens.url).port;
    for (const host of ['salas.exemplo.com', 'console.exemplo:8080', `localhost:${propria}`, `127.0.0.1:${propria}`]) {
      const resposta = await pedir(comOrigens.url, ROTAS_A2A[2] ?? { metodo: 'POST', caminho: '/a2a' }, ['host', host]);
      assert.equal(resposta.status, 200, host);
    }
  });

  it('keeps the discovery documents open to any page, with CORS', async () => {
    for (const caminho of ['/.well-known/agent-card.json', '/.well-known/ai-catalog.json', '/.well-known/agent-skills/index.json']) {
      const resposta = await pedirCru(new URL(caminho, agente.url), 'GET', ['origin', ESTRANHA]);
      assert.equal(resposta.status, 200, caminho);
      assert.equal(resposta.cabecalhos['access-control-allow-origin'], '*', caminho);
    }
  });
});

describe('Origin and Host on the MCP server: the same rule', () => {
  let mcp: Processo;
  let comOrigens: Processo;
  before(async () => {
    [mcp, comOrigens] = await Promise.all([iniciarServidorMcp(), iniciarServidorMcp({ MCP_ORIGENS: 'http://localhost:6274' })]);
  });
  after(async () => {
    await Promise.all([mcp.parar(), comOrigens.parar()]);
  });

  it('refuses a foreign Origin, or a loopback page on another port unless MCP_ORIGENS lists it, with the same 403', async () => {
    for (const origem of [ESTRANHA, 'http://localhost:6274']) {
      const resposta = await chamar(mcp.url, { metodo: 'tools/list', headers: { origin: origem } });
      assert.equal(resposta.status, 403, origem);
      assert.deepEqual(resposta.corpo, recusa(`Invalid Origin: ${origem}`));
    }
    const linha = await mcp.esperarLinha(/motivo="Invalid Origin: http:\/\/localhost:6274"/);
    assert.match(linha, /http=403/);
    const listada = await chamar(comOrigens.url, { metodo: 'tools/list', headers: { origin: 'http://localhost:6274' } });
    assert.equal(listada.status, 200);
    const { port } = new URL(mcp.url);
    for (const origem of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      assert.equal((await chamar(mcp.url, { metodo: 'tools/list', headers: { origin: origem } })).status, 200, origem);
    }
  });

  it('refuses a foreign Host on its loopback listener; serves its own', async () => {
    const url = new URL(mcp.url);
    const corpo = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const estranho = await pedirCru(url, 'POST', ['host', `evil.example:${url.port}`, 'content-type', 'application/json'], corpo);
    assert.equal(estranho.status, 403);
    assert.deepEqual(JSON.parse(estranho.corpo), recusa(`Invalid Host: evil.example:${url.port}`));
    const proprio = await pedirCru(url, 'GET', ['host', `localhost:${url.port}`]);
    assert.notEqual(proprio.status, 403);
  });
});

it('AGENTE_ORIGENS and MCP_ORIGENS refuse anything but exact origins, naming the entry', async () => {
  for (const entrada of ['http://console.exemplo/app', 'console.exemplo:8080', 'ftp://console.exemplo']) {
    const mcp = await iniciarServidorMcp({ MCP_ORIGENS: entrada }).catch((erro: unknown) => erro);
    assert.ok(mcp instanceof Error, entrada);
    assert.match(mcp.message, new RegExp(`MCP_ORIGENS=.*"${entrada.replaceAll('.', '\\.').replaceAll('/', '\\/')}" nao e uma origem`));
    const agente = await iniciarAgente('http://localhost:1/mcp', { AGENTE_ORIGENS: entrada }).catch((erro: unknown) => erro);
    assert.ok(agente instanceof Error, entrada);
    assert.match(agente.message, /AGENTE_ORIGENS=.* nao e uma origem/);
  }
});
