/**
 * Restarts, limits and hostile input against the real processes: nothing
 * accepted is lost, memory stays bounded, and every bad input gets a clear
 * answer, never a 5xx, a hang or a crash.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { Disponibilidade } from 'compartilhado/contrato';
import { a2a, enviar, estado, mensagem, obter, pedido, reservaDe, tarefa } from '../../test/apoio/a2a.js';
import { chamar, estruturado } from '../../test/apoio/mcp.js';
import { ambosOsProcessos, iniciarAgente, iniciarServidorMcp, linhasAte } from '../../test/apoio/processos.js';
import { intermediario } from '../../test/apoio/intermediario.js';
import { MENSAGEM_FORA_DO_FORMATO } from '../src/salas/intencao.js';
import { mensagemDeExcesso } from '../src/ciclo/varredura.js';
import { iniciarPostgres } from '../../scripts/postgres.js';

const dia = (n: number) => `2027-03-${String(n).padStart(2, '0')}`;
const ESTADO_SELADO = /v1\.[\w-]{20,}\.[\w-]{20,}/;

/**
 * The `error` of a JSON-RPC body read off the wire, whatever the body is
 * (these tests send hostile input, so no shape is assumed); undefined when there is none.
 */
const erroDe = (corpo: unknown): unknown => (typeof corpo === 'object' && corpo !== null && 'error' in corpo ? corpo.error : undefined);
/** The `error.code` of such a body; undefined when there is none. */
const codigoDoErro = (corpo: unknown): unknown => {
  const erro = erroDe(corpo);
  return typeof erro === 'object' && erro !== null && 'code' in erro ? erro.code : undefined;
};

describe('TASKS_DB: a paused Task survives an agent killed with SIGKILL', () => {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-'));
  after(() => rmSync(pasta, { recursive: true, force: true }));

  it('pauses, dies, comes back, and completes with escolha=', async () => {
    const banco = join(pasta, 'tarefas.db');
    const mcp = await iniciarServidorMcp();
    try {
      let agente = await iniciarAgente(mcp.url, { TASKS_DB: banco });
      assert.ok(agente.linhas.some((l) => l.includes(`Tasks em SQLite (${banco})`)));
      assert.equal(estado(await enviar(agente.url, pedido('sala-garagem', dia(1), '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
      const pausa = await enviar(agente.url, pedido('sala-garagem', dia(1), '14:00', '15:00', 'Biff'));
      assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED');
      await agente.parar('SIGKILL');

      // The state is stored, but never where a Task (and so an A2A response) is read from.
      const db = new Sqlite(banco, { readonly: true });
      const tarefas = JSON.stringify(db.prepare('select * from tasks').all());
      const pausas = JSON.stringify(db.prepare('select * from a2a_pausas').all());
      db.close();
      assert.doesNotMatch(tarefas, ESTADO_SELADO);
      assert.match(pausas, ESTADO_SELADO);

      agente = await iniciarAgente(mcp.url, { TASKS_DB: banco });
      try {
        assert.equal(estado(await obter(agente.url, tarefa(pausa).id)), 'TASK_STATE_INPUT_REQUIRED');
        const fim = await enviar(agente.url, 'escolha=sala-fusca', { taskId: tarefa(pausa).id });
        assert.equal(estado(fim), 'TASK_STATE_COMPLETED', fim.texto);
        assert.equal(reservaDe(fim).sala, 'sala-fusca');
      } finally {
        await agente.parar();
      }
    } finally {
      await mcp.parar();
    }
  });
});

it('TASKS_DB unreachable at start: the agent stops with one clear line that never shows the password', async () => {
  await assert.rejects(
    iniciarAgente('http://127.0.0.1:1/mcp', { TASKS_DB: 'postgres://agente:senha-secreta-456@127.0.0.1:1/tarefas' }),
    (erro: Error) => {
      const linhas = erro.message.split('\n').filter((linha) => linha.includes('agente nao subiu'));
      assert.equal(linhas.length, 1, erro.message);
      const [linha] = linhas;
      assert.ok(linha !== undefined, erro.message);
      assert.match(linha, /TASKS_DB: nao consegui preparar o banco em postgres:\/\/agente:\*\*\*@127\.0\.0\.1:1\/tarefas \(.*ECONNREFUSED/);
      assert.doesNotMatch(erro.message, /senha-secreta-456/);
      assert.equal(erro.message.split('\n').filter((linha) => /^\s+at /.test(linha)).length, 0, 'no stack trace');
      return true;
    },
  );
});

it('TASKS_DB lost while running: a clear JSON-RPC error, the agent keeps running, and serves again once the database is back', async () => {
  const banco = await iniciarPostgres();
  const mcp = await iniciarServidorMcp();
  const agente = await iniciarAgente(mcp.url, { TASKS_DB: banco.url });
  try {
    assert.equal(estado(await enviar(agente.url, pedido('sala-aquario', dia(20), '09:00', '10:00'))), 'TASK_STATE_COMPLETED');
    await banco.desligar();
    const durante = await enviar(agente.url, pedido('sala-aquario', dia(20), '10:00', '11:00'));
    assert.equal(durante.status, 200);
    assert.deepEqual(durante.corpo.error, { code: -32603, message: 'Banco de Tasks indisponivel: tente de novo em instantes' });
    const consulta = await chamar(mcp.url, {
      metodo: 'tools/call',
      params: {
        name: 'consultar_disponibilidade',
        arguments: { sala: 'sala-aquario', inicio: `${dia(20)}T10:00:00-03:00`, fim: `${dia(20)}T11:00:00-03:00` },
      },
    });
    assert.equal(estruturado(consulta, Disponibilidade).livre, true, 'a Task that was never stored booked nothing');
    await banco.ligar();
    assert.equal(estado(await enviar(agente.url, pedido('sala-aquario', dia(20), '11:00', '12:00'))), 'TASK_STATE_COMPLETED');
    assert.equal(agente.filho.exitCode, null);
  } finally {
    await agente.parar();
    await mcp.parar();
    await banco.parar();
  }
});

describe('bounded memory', () => {
  it('over AGENTE_MAX_PAUSED the oldest paused Task ends FAILED with a clear message', async () => {
    const mcp = await iniciarServidorMcp();
    const agente = await iniciarAgente(mcp.url, { AGENTE_MAX_PAUSED: '2' });
    try {
      assert.equal(estado(await enviar(agente.url, pedido('sala-garagem', dia(2), '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
      const pausas = [];
      for (const nome of ['A', 'B', 'C']) pausas.push(await enviar(agente.url, pedido('sala-garagem', dia(2), '14:00', '15:00', nome)));
      const [maisVelha] = pausas;
      assert.ok(maisVelha !== undefined);
      const primeira = await obter(agente.url, tarefa(maisVelha).id);
      assert.equal(estado(primeira), 'TASK_STATE_FAILED');
      assert.equal(mensagem(primeira), mensagemDeExcesso(2));
      assert.ok((await enviar(agente.url, 'escolha=sala-fusca', { taskId: tarefa(maisVelha).id })).corpo.error);
      for (const outra of pausas.slice(1)) assert.equal(estado(await obter(agente.url, tarefa(outra).id)), 'TASK_STATE_INPUT_REQUIRED');
    } finally {
      await agente.parar();
      await mcp.parar();
    }
  });
});

describe('hostile and broken input', () => {
  const processos = ambosOsProcessos();
  const postar = (url: string, corpo: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: corpo });

  it('A2A: size limit, malformed JSON and wrong JSON-RPC shapes get JSON-RPC errors with HTTP 200, never 5xx', async () => {
    const a2aUrl = `${processos.agente.url}/a2a`;
    const grande = await postar(
      a2aUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { x: 'x'.repeat(70_000) } }),
    );
    assert.equal(grande.status, 200);
    assert.equal(codigoDoErro(await grande.json()), -32600);
    const quebrado = await postar(a2aUrl, '{"jsonrpc":');
    assert.equal(quebrado.status, 200);
    assert.equal(codigoDoErro(await quebrado.json()), -32700);
    const profundo = '['.repeat(30_000) + ']'.repeat(30_000);
    for (const corpo of [
      '[]',
      '{}',
      '42',
      'null',
      '"x"',
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"2.0","id":1,"method":7}',
      '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":[]}',
      '{"jsonrpc":"2.0","id":1,"method":"Inexistente","params":{}}',
      '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","parts":[]}}}',
      '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":{"a":1}}}',
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${profundo}}`,
    ]) {
      const resposta = await postar(a2aUrl, corpo);
      const texto = await resposta.text();
      assert.ok(resposta.status < 500, `${corpo.slice(0, 80)} -> ${resposta.status} ${texto.slice(0, 200)}`);
      assert.ok(erroDe(JSON.parse(texto)), corpo.slice(0, 80));
      assert.doesNotMatch(texto, /at .*\.(ts|js):\d+/);
    }
    // What the SDK would trip on (a TypeError, a stack too deep) is answered as the client's mistake, with the request's id.
    for (const [params, mensagem] of [
      [
        '{"message":{"messageId":"m","role":"ROLE_USER","parts":[null,"x"]}}',
        'cada item de message.parts deve ser um objeto (text, data, url ou raw)',
      ],
      [`${'{"a":'.repeat(70)}1${'}'.repeat(70)}`, 'JSON aninhado alem de 64 niveis'],
    ] as const) {
      const resposta = await postar(a2aUrl, `{"jsonrpc":"2.0","id":"p1","method":"SendMessage","params":${params}}`);
      assert.equal(resposta.status, 200);
      assert.deepEqual(await resposta.json(), {
        jsonrpc: '2.0',
        id: 'p1',
        error: { code: -32602, message: `Invalid params: ${mensagem}` },
      });
    }
    assert.equal((await fetch(`${processos.agente.url}/.well-known/agent-card.json`)).status, 200, 'still serving');
  });

  it('A2A: an unknown charset or Content-Encoding, or a corrupt compressed body, is a JSON-RPC error with HTTP 200', async () => {
    const a2aUrl = `${processos.agente.url}/a2a`;
    const corpo = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}';
    const casos: Record<string, string>[] = [
      { 'content-type': 'application/json; charset=latin-9' },
      { 'content-encoding': 'zz' },
      { 'content-encoding': 'br' },
    ];
    for (const headers of casos) {
      const resposta = await postar(a2aUrl, corpo, headers);
      assert.equal(resposta.status, 200, JSON.stringify(headers));
      assert.equal(codigoDoErro(await resposta.json()), -32600);
    }
  });

  it('A2A: enormous or control-character text ends FAILED with a clear message, NUL is refused at the door, and nothing is booked', async () => {
    const reservasFeitas = async () =>
      (await linhasAte(processos.mcp, (id) => chamar(processos.mcp.url, { metodo: 'tools/list', id }))).filter(
        (linha) => linha.includes('metodo=tools/call') && linha.includes('resultado=complete'),
      ).length;
    const antes = await reservasFeitas();
    const fora = MENSAGEM_FORA_DO_FORMATO;
    const casos: [texto: string, esperada: string][] = [
      ['\u0007\u001b[31m\u007f'.repeat(1_000), fora],
      [`reservar ${'a'.repeat(60_000)}`, fora],
      // Inside the format: the MCP server refuses it, and its exact text ends the Task.
      [
        'reservar sala=sala-aquario inicio=x fim=y responsavel=\u0007',
        'Data/hora invalida em inicio: use ISO 8601 com fuso explicito, por exemplo 2026-11-03T14:00:00-03:00',
      ],
    ];
    for (const [texto, esperada] of casos) {
      const resposta = await enviar(processos.agente.url, texto);
      assert.equal(resposta.status, 200);
      assert.equal(estado(resposta), 'TASK_STATE_FAILED');
      assert.equal(mensagem(resposta), esperada);
    }
    // No database text column takes NUL: refused before any Task exists, the same with or without TASKS_DB.
    const comNul = await enviar(processos.agente.url, 'reservar sala=sala-aquario responsavel=\u0000');
    assert.equal(comNul.status, 200);
    assert.deepEqual(comNul.corpo.error, {
      code: -32602,
      message: 'Invalid params: o corpo traz o caractere NUL (\\u0000), que nao e aceito',
    });
    assert.equal(await reservasFeitas(), antes, 'no tools/call completed');
  });

  it('MCP: a deeply nested body and control characters in arguments are answered, not crashed on', async () => {
    const profundo = await chamar(processos.mcp.url, {
      metodo: 'tools/list',
      corpo: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
    });
    assert.ok(profundo.status < 500 && profundo.corpo?.error, profundo.texto.slice(0, 200));
    // NUL is refused before the tool, as a 400 (test/entradas-hostis.e2e.test.ts); other control characters reach it.
    const controle = await chamar(processos.mcp.url, {
      metodo: 'tools/call',
      params: { name: 'reservar_sala', arguments: { sala: '\u0001sala', inicio: '\u001b', fim: '\u0007', responsavel: 'x' } },
    });
    assert.equal(controle.corpo?.result?.isError, true);
  });

  it('MCP: a foreign browser Origin is refused with 403 (DNS rebinding); local origins pass', async () => {
    const estranho = await chamar(processos.mcp.url, { metodo: 'tools/list', headers: { origin: 'https://malicioso.example' } });
    assert.equal(estranho.status, 403);
    const local = await chamar(processos.mcp.url, { metodo: 'tools/list', headers: { origin: new URL(processos.mcp.url).origin } });
    assert.equal(local.status, 200);
  });

  it('neither log ever carries a requestState or the secret', async () => {
    assert.equal(
      estado(await enviar(processos.agente.url, pedido('sala-garagem', dia(3), '14:00', '15:00', 'Marty'))),
      'TASK_STATE_COMPLETED',
    );
    const pausa = await enviar(processos.agente.url, pedido('sala-garagem', dia(3), '14:00', '15:00', 'Biff'));
    await enviar(processos.agente.url, 'escolha=sala-fusca', { taskId: tarefa(pausa).id });
    await a2a(processos.agente.url, 'GetTask', { id: tarefa(pausa).id });
    // Read past a barrier: every line of the requests above has arrived.
    const linhasDoAgente = await linhasAte(processos.agente, (id) => a2a(processos.agente.url, 'GetTask', { id }));
    const linhasDoMcp = await linhasAte(processos.mcp, (id) => chamar(processos.mcp.url, { metodo: 'tools/list', id }));
    assert.ok(
      linhasDoMcp.some((linha) => linha.includes('resultado=input_required')),
      'the pause is among the lines read',
    );
    for (const linha of [...linhasDoAgente, ...linhasDoMcp]) {
      assert.doesNotMatch(linha, ESTADO_SELADO);
      assert.ok(!linha.includes(processos.segredo));
    }
  });
});

it('SIGTERM: requests in flight finish, then the process exits 0', async () => {
  const mcp = await iniciarServidorMcp();
  const portao = await intermediario(mcp.url);
  const soltar = portao.reter();
  const agente = await iniciarAgente(portao.url);
  try {
    const emVoo = Array.from({ length: 5 }, (_, i) => enviar(agente.url, pedido('sala-aquario', dia(10 + i), '10:00', '11:00')));
    await portao.chamadasRecebidas(5);
    const saida = agente.parar('SIGTERM');
    await agente.esperarLinha(/agente: SIGTERM, encerrando/);
    soltar();
    for (const resposta of await Promise.all(emVoo)) assert.equal(estado(resposta), 'TASK_STATE_COMPLETED');
    assert.equal(await saida, 0);
  } finally {
    await agente.parar();
    await portao.fechar();
    await mcp.parar();
  }
});
