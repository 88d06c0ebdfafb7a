/**
 * A2A v1.0 to the letter where @a2a-js/sdk 1.3 is lenient (issue 24, items
 * 1 to 7): a malformed JSON-RPC envelope is -32600, a negative
 * historyLength and a timestamp that is not RFC 3339 are refused on both
 * bindings, before the SDK, and nothing is created; so is a message without
 * role or parts; a push config id may be a client's long name; each error
 * has its binding's status; and a subscription to an unknown Task is
 * answered as JSON, which the official client reads as TaskNotFoundError.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { BINDINGS, clienteOficial } from './apoio/cliente-a2a.js';
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

  it('a JSON-RPC envelope that is not a Request object is -32600 InvalidRequest (HTTP 200), with its id when it has a usable one', async () => {
    for (const [corpo, id] of [
      [{ jsonrpc: 'aaa', id: 1, method: 'SendMessage', params: {} }, 1],
      [{ jsonrpc: '1.0', id: 'a', method: 'SendMessage', params: {} }, 'a'],
      [{ jsonrpc: '2.0', id: 2, params: {} }, 2],
      [{ jsonrpc: '2.0', id: { x: 1 }, method: 'GetTask', params: { id: 't' } }, null],
      [{ jsonrpc: '2.0', id: 3, method: 'GetTask', params: 'x' }, 3],
      [[{ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 't' } }], null],
    ] as const) {
      const { status, corpo: resposta } = await postarA2A(processos.agente.url, corpo);
      assert.equal(status, 200, JSON.stringify(corpo));
      assert.equal(resposta.jsonrpc, '2.0');
      assert.equal(resposta.id, id, JSON.stringify(corpo));
      assert.equal(resposta.error?.code, -32600, JSON.stringify(corpo));
      assert.match(resposta.error.message, /^Invalid Request: /);
    }
  });

  it('every JSON-RPC error on the JSON-RPC binding is HTTP 200 with its code and the request id (null when the body cannot be read)', async () => {
    const enviar = (corpo: string, cabecalhos: Record<string, string> = {}, caminho = '/a2a') =>
      fetch(new URL(caminho, processos.agente.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...cabecalhos },
        body: corpo,
      });
    const pedido = (method: string, params: unknown, id: unknown = 'e1') => JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const casos: [nome: string, resposta: Promise<Response>, codigo: number, id: unknown, mensagem?: RegExp][] = [
      ['JSON that does not parse', enviar('{"jsonrpc":'), -32700, null, /^Parse error/],
      ['a string', enviar('"x"'), -32600, null, /^Invalid Request: o corpo deve ser um objeto/],
      ['a number', enviar('1'), -32600, null, /^Invalid Request: o corpo deve ser um objeto/],
      ['null', enviar('null'), -32600, null, /^Invalid Request: o corpo deve ser um objeto/],
      ['an empty array', enviar('[]'), -32600, null, /^Invalid Request: o corpo deve ser um objeto/],
      ['a batch', enviar(`[${pedido('GetTask', { id: 'x' })}]`), -32600, null, /^Invalid Request: A2A nao aceita lotes/],
      ['a body over the limit', enviar(pedido('SendMessage', { x: 'x'.repeat(70_000) })), -32600, null, /^Corpo acima do limite/],
      ['an unknown charset', enviar(pedido('GetTask', { id: 'x' }), { 'content-type': 'application/json; charset=latin-9' }), -32600, null],
      ['no jsonrpc 2.0', enviar(JSON.stringify({ jsonrpc: '1.0', id: 'e1', method: 'GetTask' })), -32600, 'e1', /^Invalid Request: /],
      ['NUL in the body', enviar(pedido('GetTask', { id: 'a\u0000b' })), -32602, 'e1', /^Invalid params: o corpo traz o caractere NUL/],
      ['JSON nested too deep', enviar(pedido('SendMessage', JSON.parse(`${'{"a":'.repeat(70)}1${'}'.repeat(70)}`))), -32602, 'e1'],
      ['a negative historyLength', enviar(pedido('GetTask', { id: 'x', historyLength: -1 }, 3)), -32602, 3, /historyLength/],
      ['a timestamp not RFC 3339', enviar(pedido('ListTasks', { statusTimestampAfter: 'ontem' })), -32602, 'e1', /RFC 3339/],
      ['NUL in the URL', enviar(pedido('GetTask', { id: 'x' }), {}, '/a2a?x=%00'), -32602, null, /NUL/],
      ['a Content-Type not JSON (the SDK)', enviar(pedido('GetTask', { id: 'x' }), { 'content-type': 'text/plain' }), -32005, null],
      ['an unknown method (the SDK)', enviar(pedido('Inexistente', {})), -32601, 'e1'],
      ['an unknown Task (the handler)', enviar(pedido('GetTask', { id: 'nao-existe' }, 9)), -32001, 9],
      ['an unknown Task, streamed (the handler)', enviar(pedido('SubscribeToTask', { id: 'nao-existe' })), -32001, 'e1'],
      // The SDK prints a stream's refusal with the id as it came: a line break in either would forge a log line.
      [
        'an id with a line break',
        enviar(pedido('GetTask', { id: 'x' }, 'a\nPOST /a2a forjada')),
        -32600,
        'a\nPOST /a2a forjada',
        /caracteres de controle/,
      ],
      [
        'a streamed Task id with a line break',
        enviar(pedido('SubscribeToTask', { id: 'x\nforjada' })),
        -32602,
        'e1',
        /^O id da Task nao pode/,
      ],
      ['a version the card does not declare (the SDK)', enviar(pedido('GetTask', { id: 'x' }), { 'a2a-version': '9.9' }), -32009, 'e1'],
    ];
    for (const [nome, resposta, codigo, id, mensagem] of casos) {
      const lida = await resposta;
      const corpo = (await lida.json()) as Erro;
      assert.equal(lida.status, 200, `${nome}: ${JSON.stringify(corpo)}`);
      assert.deepEqual([corpo.jsonrpc, corpo.id, corpo.error?.code], ['2.0', id, codigo], nome);
      if (mensagem) assert.match(corpo.error?.message ?? '', mensagem, nome);
    }
  });

  it('a negative historyLength is -32602 over JSON-RPC (HTTP 200), as over HTTP+JSON (400), and creates nothing', async () => {
    for (const [method, params] of [
      ['GetTask', { id: 'qualquer', historyLength: -1 }],
      ['ListTasks', { historyLength: -1 }],
      ['SendMessage', { message: mensagem, configuration: { historyLength: -1 } }],
      ['ListTasks', { historyLength: 1.5 }],
    ] as const) {
      const { status, corpo } = await postarA2A(processos.agente.url, { jsonrpc: '2.0', id: 7, method, params });
      assert.equal(status, 200, method);
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
      assert.equal(status, 200, instante);
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

interface ErroRest {
  readonly error?: { readonly code: number; readonly status: string; readonly message: string; readonly details: { reason?: string }[] };
}

async function postarRest(base: string, caminho: string, corpo: unknown, cabecalhos: Record<string, string> = {}) {
  const resposta = await fetch(new URL(`/rest${caminho}`, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...cabecalhos },
    body: typeof corpo === 'string' ? corpo : JSON.stringify(corpo),
  });
  const tipo = resposta.headers.get('content-type') ?? '';
  return {
    status: resposta.status,
    tipo,
    corpo: (await resposta.json()) as ErroRest & { task?: { id: string; status: { state: string } } },
  };
}

describe('messages, webhooks and errors to the letter', () => {
  const processos = ambosOsProcessos();
  const totalDeTasks = async () => {
    const listadas = await postarA2A(processos.agente.url, { jsonrpc: '2.0', id: 'n', method: 'ListTasks', params: {} });
    return ((listadas.corpo as { result?: { tasks?: unknown[] } }).result?.tasks ?? []).length;
  };

  it('a message missing what A2A requires (role, parts, a part with content) is -32602 / 400 INVALID_ARGUMENT on every method that sends one, and no Task is made', async () => {
    const antes = await totalDeTasks();
    for (const [incompleta, motivo] of [
      [{ messageId: 'm1', parts: [{ text: 'listar salas' }] }, 'message.role deve ser ROLE_USER ou ROLE_AGENT.'],
      [{ messageId: 'm2', role: 'ROLE_UNSPECIFIED', parts: [{ text: 'listar salas' }] }, 'message.role deve ser ROLE_USER ou ROLE_AGENT.'],
      [{ messageId: 'm3', role: 'ROLE_USER', parts: [] }, 'message.parts deve ter ao menos uma parte (text, data, url ou raw).'],
      [{ messageId: 'm4', role: 'ROLE_USER' }, 'message.parts deve ter ao menos uma parte (text, data, url ou raw).'],
      [
        { messageId: 'm5', role: 'ROLE_USER', parts: [{ text: 'listar salas' }, { mediaType: 'text/plain' }] },
        'message.parts[1] nao traz conteudo: cada parte leva text, data, url ou raw.',
      ],
    ] as const) {
      for (const method of ['SendMessage', 'SendStreamingMessage']) {
        const { corpo } = await postarA2A(processos.agente.url, { jsonrpc: '2.0', id: 5, method, params: { message: incompleta } });
        assert.equal(corpo.error?.code, -32602, `${method} ${JSON.stringify(incompleta)}`);
        assert.equal(corpo.error.message, motivo);
      }
      for (const caminho of ['/message:send', '/message:stream']) {
        const { status, tipo, corpo } = await postarRest(processos.agente.url, caminho, { message: incompleta });
        assert.equal(status, 400, `${caminho} ${JSON.stringify(incompleta)}`);
        assert.match(tipo, /^application\/(a2a\+)?json/, 'refused before any stream begins');
        assert.equal(corpo.error?.status, 'INVALID_ARGUMENT');
        assert.equal(corpo.error.message, motivo);
      }
    }
    assert.equal(await totalDeTasks(), antes, 'no Task was made');
  });

  it(`a push config id may be as long as ${String(255)} characters on both bindings (clients name their configs); past that it is refused`, async () => {
    const { corpo: aberta } = await postarRest(processos.agente.url, '/message:send', {
      message: { messageId: 'm-push', role: 'ROLE_USER', parts: [{ text: 'reservar sala-fusca 2027-03-01 09:00-10:00 para Doc' }] },
    });
    const taskId = aberta.task?.id;
    assert.ok(taskId);
    const nomeado = (tamanho: number) => `test_create_push_config_${'x'.repeat(tamanho - 24)}`;
    const config = (id: string) => ({ taskId, id, url: 'http://127.0.0.1:9/gancho' });
    const pelaRest = await postarRest(processos.agente.url, `/tasks/${taskId}/pushNotificationConfigs`, config(nomeado(255)));
    assert.equal(pelaRest.status, 201, JSON.stringify(pelaRest.corpo));
    const peloJsonRpc = await postarA2A(processos.agente.url, {
      jsonrpc: '2.0',
      id: 6,
      method: 'CreateTaskPushNotificationConfig',
      params: config(nomeado(80)),
    });
    assert.equal((peloJsonRpc.corpo as { result?: { id?: string } }).result?.id, nomeado(80));
    const longoDemais = await postarRest(processos.agente.url, `/tasks/${taskId}/pushNotificationConfigs`, config(nomeado(256)));
    assert.equal(longoDemais.status, 400);
    assert.equal(longoDemais.corpo.error?.message, 'O id do webhook tem mais de 255 caracteres.');
  });

  it('HTTP+JSON answers each A2A error with the status of the v1.0.1 table (§5.4) and its ErrorInfo reason; JSON-RPC with its code', async () => {
    const { corpo: feita } = await postarRest(processos.agente.url, '/message:send', { message: mensagem });
    const terminada = feita.task?.id;
    assert.ok(terminada && feita.task?.status.state === 'TASK_STATE_COMPLETED');
    const rest = [
      ['TaskNotFoundError', () => postarRest(processos.agente.url, '/tasks/nao-existe:cancel', {}), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
      [
        'TaskNotCancelableError',
        () => postarRest(processos.agente.url, `/tasks/${terminada}:cancel`, {}),
        400,
        'FAILED_PRECONDITION',
        'TASK_NOT_CANCELABLE',
      ],
      [
        'UnsupportedOperationError',
        () => postarRest(processos.agente.url, '/message:send', { message: { ...mensagem, messageId: 'm-term', taskId: terminada } }),
        400,
        'FAILED_PRECONDITION',
        'UNSUPPORTED_OPERATION',
      ],
      [
        'ContentTypeNotSupportedError',
        () => postarRest(processos.agente.url, '/message:send', 'x', { 'content-type': 'text/plain' }),
        400,
        'INVALID_ARGUMENT',
        'CONTENT_TYPE_NOT_SUPPORTED',
      ],
      [
        'VersionNotSupportedError',
        () => postarRest(processos.agente.url, '/message:send', { message: mensagem }, { 'a2a-version': '9.9' }),
        400,
        'FAILED_PRECONDITION',
        'VERSION_NOT_SUPPORTED',
      ],
    ] as const;
    for (const [erro, pedir, status, nome, motivo] of rest) {
      const resposta = await pedir();
      assert.equal(resposta.status, status, erro);
      assert.equal(resposta.corpo.error?.status, nome, erro);
      assert.equal(resposta.corpo.error.details[0]?.reason, motivo, erro);
    }
    const jsonRpc = [
      [-32001, { method: 'CancelTask', params: { id: 'nao-existe' } }],
      [-32002, { method: 'CancelTask', params: { id: terminada } }],
      [-32004, { method: 'SendMessage', params: { message: { ...mensagem, messageId: 'm-term2', taskId: terminada } } }],
    ] as const;
    for (const [codigo, pedido] of jsonRpc) {
      const { corpo } = await postarA2A(processos.agente.url, { jsonrpc: '2.0', id: 11, ...pedido });
      assert.equal(corpo.error?.code, codigo, pedido.method);
    }
  });

  it('SubscribeToTask on an unknown Task is answered as JSON, not as a stream: -32001 (HTTP 200) / 404 NOT_FOUND; the official client throws TaskNotFoundError', async () => {
    const jsonRpc = await fetch(new URL('/a2a', processos.agente.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'SubscribeToTask', params: { id: 'nao-existe' } }),
    });
    assert.equal(jsonRpc.status, 200);
    assert.match(jsonRpc.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(((await jsonRpc.json()) as Erro).error?.code, -32001);
    const rest = await fetch(new URL('/rest/tasks/nao-existe:subscribe', processos.agente.url), {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
    });
    assert.equal(rest.status, 404);
    assert.match(rest.headers.get('content-type') ?? '', /^application\/(a2a\+)?json/);
    assert.equal(((await rest.json()) as ErroRest).error?.status, 'NOT_FOUND');
    for (const binding of BINDINGS) {
      const cliente = await clienteOficial(processos.agente.url, binding);
      await assert.rejects(
        (async () => {
          for await (const evento of cliente.resubscribeTask({ tenant: '', id: 'nao-existe' }))
            assert.fail(`unexpected event ${JSON.stringify(evento)}`);
        })(),
        TaskNotFoundError,
        binding,
      );
    }
  });
});
