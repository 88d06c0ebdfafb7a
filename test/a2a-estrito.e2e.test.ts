/**
 * A2A v1.0 to the letter where @a2a-js/sdk 1.3 is lenient (issue 24, items
 * 1 to 3): a malformed JSON-RPC envelope is -32600, a negative
 * historyLength and a timestamp that is not RFC 3339 are refused on both
 * bindings, before the SDK, and nothing is created.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ambosOsProcessos } from './apoio/processos.js';

interface Erro {
  readonly jsonrpc?: string;
  readonly id?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

async function postarA2A(base: string, corpo: unknown): Promise<{ status: number; corpo: Erro }> {
  const resposta = await fetch(new URL('/a2a', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(corpo),
  });
  return { status: resposta.status, corpo: (await resposta.json()) as Erro };
}

const mensagem = { messageId: 'm-estrito', role: 'ROLE_USER', parts: [{ text: 'listar salas' }] };

describe('A2A to the letter where the SDK is lenient', () => {
  const processos = ambosOsProcessos();

  it('a JSON-RPC envelope that is not a Request object is -32600 InvalidRequest, with its id when it has a usable one', async () => {
    for (const [corpo, id] of [
      [{ jsonrpc: 'aaa', id: 1, method: 'SendMessage', params: {} }, 1],
      [{ jsonrpc: '1.0', id: 'a', method: 'SendMessage', params: {} }, 'a'],
      [{ jsonrpc: '2.0', id: 2, params: {} }, 2],
      [{ jsonrpc: '2.0', id: { x: 1 }, method: 'GetTask', params: { id: 't' } }, null],
      [{ jsonrpc: '2.0', id: 3, method: 'GetTask', params: 'x' }, 3],
      [[{ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 't' } }], null],
    ] as const) {
      const { status, corpo: resposta } = await postarA2A(processos.agente.url, corpo);
      assert.equal(status, 400, JSON.stringify(corpo));
      assert.equal(resposta.jsonrpc, '2.0');
      assert.equal(resposta.id, id, JSON.stringify(corpo));
      assert.equal(resposta.error?.code, -32600, JSON.stringify(corpo));
      assert.match(resposta.error.message, /^Invalid Request: /);
    }
  });

  it('a negative historyLength is -32602 over JSON-RPC, as over HTTP+JSON, and creates nothing', async () => {
    for (const [method, params] of [
      ['GetTask', { id: 'qualquer', historyLength: -1 }],
      ['ListTasks', { historyLength: -1 }],
      ['SendMessage', { message: mensagem, configuration: { historyLength: -1 } }],
      ['ListTasks', { historyLength: 1.5 }],
    ] as const) {
      const { status, corpo } = await postarA2A(processos.agente.url, { jsonrpc: '2.0', id: 7, method, params });
      assert.equal(status, 400, method);
      assert.deepEqual(corpo, {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: 'Invalid params: historyLength deve ser um inteiro nao negativo' },
      });
    }
    const listadas = await postarA2A(processos.agente.url, { jsonrpc: '2.0', id: 8, method: 'ListTasks', params: {} });
    assert.equal(listadas.status, 200);
    assert.deepEqual((listadas.corpo as { result?: { tasks?: unknown[] } }).result?.tasks, [], 'no Task was created');
    const rest = await fetch(new URL('/rest/tasks?historyLength=-1', processos.agente.url));
    assert.equal(rest.status, 400);
  });

  it('statusTimestampAfter that is not RFC 3339 is refused on both bindings; one that is, is taken', async () => {
    const esperado = 'Invalid params: statusTimestampAfter deve ser um instante RFC 3339 (por exemplo 2026-12-01T10:00:00Z)';
    for (const instante of ['-1', '2026-12-01', 'ontem', '2026-13-01T10:00:00Z']) {
      const { status, corpo } = await postarA2A(processos.agente.url, {
        jsonrpc: '2.0',
        id: 9,
        method: 'ListTasks',
        params: { statusTimestampAfter: instante },
      });
      assert.equal(status, 400, instante);
      assert.equal(corpo.error?.code, -32602, instante);
      assert.equal(corpo.error.message, esperado);
      const rest = await fetch(new URL(`/rest/tasks?statusTimestampAfter=${encodeURIComponent(instante)}`, processos.agente.url));
      assert.equal(rest.status, 400, instante);
      const { error } = (await rest.json()) as { error?: { message?: string } };
      assert.equal(error?.message, esperado);
    }
    const valido = await postarA2A(processos.agente.url, {
      jsonrpc: '2.0',
      id: 10,
      method: 'ListTasks',
      params: { statusTimestampAfter: '2026-12-01T10:00:00.000Z' },
    });
    assert.equal(valido.status, 200);
  });
});
