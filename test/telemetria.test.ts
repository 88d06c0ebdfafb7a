/**
 * The names the spans and metrics carry, against the official
 * semantic-conventions package (the A2A ones are not in it yet: their
 * document, gen-ai/a2a.md, is checked by the end-to-end test), and the
 * mapping from requests to them. No process, no exporter.
 */
/* eslint-disable @typescript-eslint/no-deprecated --
   The JS package marks the GenAI and MCP names deprecated because they moved to the
   semantic-conventions-genai repository, where gen-ai/mcp.md still uses them as they are. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as convencoes from '@opentelemetry/semantic-conventions/incubating';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { desfechoMcp, METRICA_MCP_CLIENTE, METRICA_MCP_SERVIDOR, vaoDoPedidoMcp } from 'compartilhado/telemetria/mcp';
import { abrirOtel } from '../compartilhado/src/telemetria/otel.js';
import { metodoDaRota } from '../agente/src/http/vaos.js';
import { oQueFaz } from 'compartilhado/telemetria/banco';

const chamada = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'reservar_sala',
    arguments: { responsavel: 'Biff' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    },
  },
};

describe('telemetria: nomes das convencoes', () => {
  it('the MCP attributes and metric names are the semantic-conventions package`s own', () => {
    const { nome, atributos, traceparent } = vaoDoPedidoMcp(chamada, 'http');
    assert.equal(nome, 'tools/call reservar_sala');
    assert.equal(traceparent, chamada.params._meta.traceparent);
    assert.deepEqual(atributos, {
      [convencoes.ATTR_MCP_METHOD_NAME]: 'tools/call',
      [convencoes.ATTR_GEN_AI_TOOL_NAME]: 'reservar_sala',
      [convencoes.ATTR_GEN_AI_PROMPT_NAME]: undefined,
      [convencoes.ATTR_GEN_AI_OPERATION_NAME]: convencoes.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [convencoes.ATTR_MCP_RESOURCE_URI]: undefined,
      [convencoes.ATTR_JSONRPC_REQUEST_ID]: '7',
      [convencoes.ATTR_MCP_PROTOCOL_VERSION]: '2026-07-28',
      [convencoes.ATTR_NETWORK_TRANSPORT]: convencoes.NETWORK_TRANSPORT_VALUE_TCP,
      [convencoes.ATTR_NETWORK_PROTOCOL_NAME]: 'http',
    });
    assert.equal(METRICA_MCP_CLIENTE.nome, convencoes.METRIC_MCP_CLIENT_OPERATION_DURATION);
    assert.equal(METRICA_MCP_SERVIDOR.nome, convencoes.METRIC_MCP_SERVER_OPERATION_DURATION);
    // The histograms keep no request id: one series per request would grow without end.
    assert.ok(!METRICA_MCP_CLIENTE.atributos.includes(convencoes.ATTR_JSONRPC_REQUEST_ID));
    for (const chave of METRICA_MCP_CLIENTE.atributos)
      assert.ok(chave.startsWith('ponte.') || (Object.values(convencoes) as unknown[]).includes(chave), `${chave} nao e das convencoes`);
  });

  it('a request over stdio, a prompt, a resource and a request without an envelope', () => {
    const stdio = vaoDoPedidoMcp({ jsonrpc: '2.0', id: 'a', method: 'prompts/get', params: { name: 'resumo' } }, 'stdio', '2025-11-25');
    assert.equal(stdio.nome, 'prompts/get resumo');
    assert.equal(stdio.atributos[convencoes.ATTR_GEN_AI_PROMPT_NAME], 'resumo');
    assert.equal(stdio.atributos[convencoes.ATTR_NETWORK_TRANSPORT], convencoes.NETWORK_TRANSPORT_VALUE_PIPE);
    assert.equal(stdio.atributos[convencoes.ATTR_NETWORK_PROTOCOL_NAME], undefined);
    assert.equal(stdio.atributos[convencoes.ATTR_MCP_PROTOCOL_VERSION], '2025-11-25');
    const leitura = vaoDoPedidoMcp({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'politica://uso' } }, 'http');
    assert.equal(leitura.nome, 'resources/read');
    assert.equal(leitura.atributos[convencoes.ATTR_MCP_RESOURCE_URI], 'politica://uso');
    assert.equal(vaoDoPedidoMcp('nao e json-rpc', 'http').nome, '-');
  });

  it('outcomes: an error code, a tool error, input_required', () => {
    assert.deepEqual(desfechoMcp({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params' } }), {
      // gen-ai/mcp.md names it so; the JS package's note points to a later RPC rename the MCP document has not taken.
      atributos: { [convencoes.ATTR_RPC_RESPONSE_STATUS_CODE]: '-32602' },
      falha: { tipo: '-32602', descricao: 'Invalid params' },
    });
    assert.deepEqual(desfechoMcp({ jsonrpc: '2.0', id: 1, result: { content: [], isError: true } }), {
      atributos: { 'ponte.mcp.result_type': 'complete' },
      falha: { tipo: 'tool_error' },
    });
    assert.deepEqual(desfechoMcp({ jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', inputRequests: {} } }), {
      atributos: { 'ponte.mcp.result_type': 'input_required' },
    });
  });

  it('HTTP+JSON routes name their A2A method, with or without a tenant', () => {
    assert.deepEqual(metodoDaRota('POST', '/message:send'), { metodo: 'SendMessage' });
    assert.deepEqual(metodoDaRota('POST', '/acme/message:stream'), { metodo: 'SendStreamingMessage', tenant: 'acme' });
    assert.deepEqual(metodoDaRota('GET', '/tasks'), { metodo: 'ListTasks' });
    assert.deepEqual(metodoDaRota('GET', '/acme/tasks'), { metodo: 'ListTasks', tenant: 'acme' });
    assert.deepEqual(metodoDaRota('GET', '/tasks/t1'), { metodo: 'GetTask', taskId: 't1' });
    assert.deepEqual(metodoDaRota('GET', '/acme/tasks/t%201'), { metodo: 'GetTask', tenant: 'acme', taskId: 't 1' });
    assert.deepEqual(metodoDaRota('POST', '/tasks/t1:cancel'), { metodo: 'CancelTask', taskId: 't1' });
    assert.deepEqual(metodoDaRota('GET', '/tasks/t1:subscribe'), { metodo: 'SubscribeToTask', taskId: 't1' });
    assert.deepEqual(metodoDaRota('POST', '/tasks/t1/pushNotificationConfigs'), {
      metodo: 'CreateTaskPushNotificationConfig',
      taskId: 't1',
    });
    assert.deepEqual(metodoDaRota('GET', '/tasks/t1/pushNotificationConfigs'), { metodo: 'ListTaskPushNotificationConfigs', taskId: 't1' });
    assert.deepEqual(metodoDaRota('GET', '/tasks/t1/pushNotificationConfigs/c1'), {
      metodo: 'GetTaskPushNotificationConfig',
      taskId: 't1',
    });
    assert.deepEqual(metodoDaRota('DELETE', '/tasks/t1/pushNotificationConfigs/c1'), {
      metodo: 'DeleteTaskPushNotificationConfig',
      taskId: 't1',
    });
    assert.deepEqual(metodoDaRota('GET', '/extendedAgentCard'), { metodo: 'GetExtendedAgentCard' });
    assert.equal(metodoDaRota('PUT', '/message:send'), undefined);
    assert.equal(metodoDaRota('GET', '/nada/aqui/mesmo'), undefined);
  });
});

describe('telemetria: consultas ao PostgreSQL', () => {
  it('names what a statement does and to which table, past a WITH and a function in FROM', () => {
    assert.deepEqual(oQueFaz('SELECT numero FROM reservas WHERE sala = $1'), { operacao: 'SELECT', colecao: 'reservas' });
    assert.deepEqual(oQueFaz('insert into "a2a_tasks" ("id") values ($1)'), { operacao: 'INSERT', colecao: 'a2a_tasks' });
    assert.deepEqual(oQueFaz('update "ponte_pausas" set x = $1'), { operacao: 'UPDATE', colecao: 'ponte_pausas' });
    assert.deepEqual(
      oQueFaz(
        'WITH entrada AS (SELECT * FROM unnest($1::text[]) WITH ORDINALITY AS e(sala)) INSERT INTO reservas (sala) SELECT sala FROM entrada',
      ),
      { operacao: 'INSERT', colecao: 'reservas' },
    );
    assert.deepEqual(oQueFaz('WITH x AS (SELECT 1) SELECT * FROM x'), { operacao: 'SELECT', colecao: 'x' });
    assert.deepEqual(oQueFaz('SELECT * FROM unnest($1::text[])'), { operacao: 'SELECT', colecao: undefined });
    assert.deepEqual(oQueFaz('BEGIN'), { operacao: 'BEGIN', colecao: undefined });
  });
});

describe('telemetria: variaveis que o processo nao pode honrar', () => {
  const recusa = (env: NodeJS.ProcessEnv, mensagem: RegExp) =>
    assert.throws(
      () => abrirOtel('agente', () => undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', ...env }),
      (erro: unknown) => erro instanceof ConfiguracaoInvalida && mensagem.test(erro.message),
    );

  it('refuses, naming the variable, before anything is registered', () => {
    recusa({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /^OTEL_EXPORTER_OTLP_PROTOCOL=grpc: este processo exporta por OTLP\/HTTP/);
    recusa({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' }, /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=thrift/);
    recusa({ OTEL_TRACES_EXPORTER: 'zipkin' }, /^OTEL_TRACES_EXPORTER=zipkin: este processo exporta por otlp \(ou none\)/);
    recusa({ OTEL_METRIC_EXPORT_INTERVAL: '-5' }, /^OTEL_METRIC_EXPORT_INTERVAL=-5: esperado um inteiro positivo/);
    recusa(
      { OTEL_TRACES_SAMPLER: 'jaeger_remote' },
      /^OTEL_TRACES_SAMPLER=jaeger_remote: esperado um de always_on, always_off, traceidratio, /,
    );
    recusa(
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
      /^OTEL_TRACES_SAMPLER_ARG=2: esperado um numero de 0 a 1$/,
    );
    recusa({ OTEL_BSP_MAX_QUEUE_SIZE: 'muitos' }, /^OTEL_BSP_MAX_QUEUE_SIZE=muitos: esperado um inteiro positivo$/);
    recusa({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '0' }, /^OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT=0: esperado um inteiro positivo$/);
    // An endpoint that is no http(s) URL: named, never quoted (a token may ride in it).
    recusa(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://eu:s3cr3t@host invalido:4318' },
      /^OTEL_EXPORTER_OTLP_ENDPOINT: esperado uma URL http:\/\/ ou https:\/\/[^@]*$/,
    );
    recusa({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'ftp://coletor' }, /^OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: esperado uma URL/);
  });
});
