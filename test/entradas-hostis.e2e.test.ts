/**
 * Hostile input at the door of both real processes (issue 22, findings 6
 * and 7). A NUL in a URL or in a value that reaches the database is the
 * client's mistake, a 400 in the process's own error form on every route,
 * never PostgreSQL's refusal surfacing as a 500 or -32603. And a client's
 * text quoted back in an error (a header, an id, a name) is cut, however
 * long it was sent: the answer never grows with the request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TAMANHO_MAXIMO_DA_MENSAGEM } from 'compartilhado/entrada';
import * as z from 'zod';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';
import { pedirCru } from './apoio/http-cru.js';
import { chamar, chamarFerramenta } from './apoio/mcp.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';

/** The error of either form (JSON-RPC's, HTTP+JSON's): code and message, and HTTP+JSON's status name. */
const CorpoDeErro = z.object({
  error: z.object({ code: z.number(), message: z.string(), status: z.string().optional() }),
});

interface Resposta {
  readonly status: number;
  readonly erro: z.infer<typeof CorpoDeErro>['error'];
}

/** An answer that must be an error, read through CorpoDeErro: any other body fails here, with the body shown. */
async function erroDe(resposta: globalThis.Response): Promise<Resposta> {
  const texto = await resposta.text();
  const lido = CorpoDeErro.safeParse(JSON.parse(texto));
  assert.ok(lido.success, `esperado um erro, veio ${String(resposta.status)}: ${texto.slice(0, 300)}`);
  return { status: resposta.status, erro: lido.data.error };
}

const pedirJsonRpc = (base: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  fetch(new URL('/a2a', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then(erroDe);

const pedirGet = (base: string, caminho: string, headers: Record<string, string> = {}) =>
  fetch(new URL(caminho, base), { headers }).then(erroDe);

const mensagem = (campos: Record<string, unknown>) => ({
  message: { messageId: 'msg-nul', role: 'ROLE_USER', parts: [{ text: 'listar salas' }], ...campos },
});

const NUL_NA_URL = /^Invalid params: a URL traz o caractere NUL \(%00\), que nao e aceito$/;
const NUL_NO_CORPO = /^Invalid params: o corpo traz o caractere NUL \(\\u0000\), que nao e aceito$/;
const LONGO = 'x'.repeat(5000);

/** One PostgreSQL, the MCP server's bookings and the agent's Tasks in a database each, for every test here. */
const iniciados: { postgres?: Postgres; mcp?: Processo; agente?: Processo } = {};
before(async () => {
  const postgres = (iniciados.postgres = await iniciarPostgres());
  const mcp = (iniciados.mcp = await iniciarServidorMcp({ RESERVAS_DB: await postgres.novoBanco('hostis_reservas') }));
  iniciados.agente = await iniciarAgente(mcp.url, { TASKS_DB: await postgres.novoBanco('hostis_tarefas') });
});
after(async () => {
  await iniciados.agente?.parar();
  await iniciados.mcp?.parar();
  await iniciados.postgres?.parar();
});
const subiu = (processo: Processo | undefined, nome: string): Processo => {
  if (!processo) throw new Error(`${nome} nao subiu antes deste teste`);
  return processo;
};
const agente = {
  get url() {
    return subiu(iniciados.agente, 'agente').url;
  },
};
const mcp = {
  get url() {
    return subiu(iniciados.mcp, 'servidor-mcp').url;
  },
};

describe('NUL, with Tasks and bookings in PostgreSQL', () => {
  it('the console route answers 400 in its HTTP+JSON form, not the 500 of the database refusing NUL', async () => {
    const { status, erro } = await pedirGet(agente.url, '/console/tarefas/ab%00cd/mcp');
    assert.equal(status, 400);
    assert.equal(erro.status, 'INVALID_ARGUMENT');
    assert.match(erro.message, NUL_NA_URL);
  });

  it('HTTP+JSON routes answer 400: a Task id in the path, a contextId in the query, a tenant', async () => {
    for (const caminho of ['/rest/tasks/ab%00cd', '/rest/tasks?contextId=ab%00cd', '/rest/ab%00cd/tasks/x', '/rest/tasks/x:cancel%00']) {
      const { status, erro } = await pedirGet(agente.url, caminho);
      assert.equal(status, 400, caminho);
      assert.equal(erro.status, 'INVALID_ARGUMENT', caminho);
      assert.match(erro.message, NUL_NA_URL, caminho);
    }
  });

  it('every other path of the agent answers 400 in the JSON-RPC form: the card, /a2a, one that names nothing', async () => {
    for (const caminho of ['/.well-known/agent-card.json%00', '/%00', '/a2a?x=%00']) {
      const { status, erro } = await pedirGet(agente.url, caminho);
      assert.equal(status, 400, caminho);
      assert.equal(erro.code, -32602, caminho);
      assert.match(erro.message, NUL_NA_URL, caminho);
    }
    const post = await fetch(new URL('/a2a%00', agente.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const { status, erro } = await erroDe(post);
    assert.equal(status, 400);
    assert.equal(erro.code, -32602);
  });

  it('JSON-RPC ids that reach the database answer -32602 (HTTP 200, as every JSON-RPC error), never -32603 "Banco de Tasks indisponivel"', async () => {
    const pedidos: [string, unknown][] = [
      ['GetTask', { id: 'ab\u0000cd' }],
      ['CancelTask', { id: 'ab\u0000cd' }],
      ['SubscribeToTask', { id: 'ab\u0000cd' }],
      ['SendMessage', mensagem({ taskId: 'ab\u0000cd' })],
      ['SendMessage', mensagem({ contextId: 'ab\u0000cd' })],
      ['SendStreamingMessage', mensagem({ taskId: 'ab\u0000cd' })],
      ['ListTasks', { contextId: 'ab\u0000cd' }],
      ['GetTaskPushNotificationConfig', { taskId: 'x', id: 'ab\u0000cd' }],
      ['ListTaskPushNotificationConfigs', { taskId: 'ab\u0000cd' }],
      ['DeleteTaskPushNotificationConfig', { taskId: 'ab\u0000cd', id: 'y' }],
    ];
    for (const [method, params] of pedidos) {
      const { status, erro } = await pedirJsonRpc(agente.url, method, params);
      assert.equal(status, 200, method);
      assert.equal(erro.code, -32602, method);
      assert.match(erro.message, NUL_NO_CORPO, method);
    }
  });

  it('a NUL in an HTTP+JSON body answers 400 too, and the database still answers afterwards', async () => {
    const { status, erro } = await fetch(new URL('/rest/message:send', agente.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(mensagem({ contextId: 'ab\u0000cd' })),
    }).then(erroDe);
    assert.equal(status, 400);
    assert.match(erro.message, NUL_NO_CORPO);
    const lista = await fetch(new URL('/rest/tasks', agente.url));
    assert.equal(lista.status, 200, await lista.text());
  });

  it('the MCP server answers 400 for a NUL in any path or query, in its JSON-RPC form', async () => {
    for (const caminho of ['/mcp%00', '/mcp?x=%00', '/%00', '/.well-known/mcp/server-card.json%00']) {
      const resposta = await fetch(new URL(caminho, mcp.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const { status, erro } = await erroDe(resposta);
      assert.equal(status, 400, caminho);
      assert.equal(erro.code, -32600, caminho);
      assert.equal(erro.message, 'Invalid Request: a URL traz o caractere NUL (%00), que nao e aceito', caminho);
    }
  });

  it('a responsavel with NUL is refused by the MCP server before the bookings store, not answered as the store being down', async () => {
    const resposta = await chamarFerramenta(mcp.url, 'reservar_sala', {
      sala: 'sala-garagem',
      inicio: '2027-06-01T10:00:00-03:00',
      fim: '2027-06-01T11:00:00-03:00',
      responsavel: 'Doc\u0000Brown',
    });
    assert.equal(resposta.status, 400, resposta.texto);
    assert.equal(resposta.corpo?.error?.code, -32600);
    assert.equal(resposta.corpo.error.message, 'Invalid Request: o corpo traz o caractere NUL (\\u0000), que nao e aceito');
  });
});

describe('client text echoed in errors is cut', () => {
  const curta = (erro: Resposta['erro'], limite = 200) =>
    assert.ok(erro.message.length < limite, `${String(erro.message.length)} caracteres: ${erro.message.slice(0, 300)}`);

  it('a 5,000-character A2A-Version: -32009 on JSON-RPC and on HTTP+JSON, still naming the supported version', async () => {
    const jsonRpc = await pedirJsonRpc(agente.url, 'GetTask', { id: 'x' }, { 'A2A-Version': LONGO });
    assert.equal(jsonRpc.erro.code, -32009);
    const rest = await pedirGet(agente.url, '/rest/tasks/x', { 'A2A-Version': LONGO });
    assert.equal(rest.status, 400);
    for (const { erro } of [jsonRpc, rest]) {
      curta(erro);
      assert.match(erro.message, /^The requested A2A protocol version 'x{99}\.\.\. is not supported\. Supported versions: 1\.0$/);
    }
  });

  it('a version with spaces is cut as a whole', async () => {
    const { erro } = await pedirJsonRpc(agente.url, 'GetTask', { id: 'x' }, { 'A2A-Version': '1 '.repeat(2500) });
    assert.equal(erro.code, -32009);
    assert.ok(erro.message.length <= TAMANHO_MAXIMO_DA_MENSAGEM + 3, String(erro.message.length));
  });

  it('ids and paths the agent cannot find: GetTask, the Task path, an unknown route, the console', async () => {
    const respostas = [
      await pedirJsonRpc(agente.url, 'GetTask', { id: LONGO }),
      await pedirGet(agente.url, `/rest/tasks/${LONGO}`),
      await pedirGet(agente.url, `/rest/${LONGO}`),
      await pedirGet(agente.url, `/console/tarefas/${LONGO}/mcp`),
    ];
    for (const { erro } of respostas) curta(erro);
    assert.equal(respostas[0]?.erro.code, -32001);
    assert.equal(respostas[3]?.erro.message, `Task nao encontrada: ${'x'.repeat(100)}...`);
  });

  it('an Origin refused by either process is quoted cut', async () => {
    for (const url of [new URL('/a2a', agente.url), new URL(mcp.url)]) {
      const resposta = await pedirCru(url, 'POST', ['origin', `http://${LONGO}.example`, 'content-type', 'application/json'], '{}');
      assert.equal(resposta.status, 403);
      const { error } = CorpoDeErro.parse(JSON.parse(resposta.corpo));
      assert.equal(error.message, `Invalid Origin: http://${'x'.repeat(93)}...`);
    }
  });

  it('the MCP server: Mcp-Name, Mcp-Method and MCP-Protocol-Version unlike the body, an unknown tool, prompt or resource', async () => {
    const chamadas: Parameters<typeof chamar>[1][] = [
      { metodo: 'tools/call', params: { name: 'listar_salas', arguments: {} }, headers: { 'mcp-name': LONGO } },
      { metodo: 'tools/list', headers: { 'mcp-method': LONGO } },
      { metodo: 'tools/list', headers: { 'mcp-protocol-version': LONGO } },
      { metodo: 'tools/call', params: { name: LONGO, arguments: {} } },
      { metodo: 'prompts/get', params: { name: LONGO } },
      { metodo: 'resources/read', params: { uri: `politica://${LONGO}` } },
    ];
    for (const chamada of chamadas) {
      const resposta = await chamar(mcp.url, chamada);
      const erro = resposta.corpo?.error;
      assert.ok(erro, resposta.texto.slice(0, 300));
      // The SDK's own words stay: what disagreed, and with what.
      assert.ok(erro.message.length < 300, `${String(erro.message.length)}: ${erro.message.slice(0, 300)}`);
      assert.match(erro.message, /x\.\.\./, 'the quote is cut where it was');
      assert.doesNotMatch(erro.message, /x{101}/);
    }
  });
});
