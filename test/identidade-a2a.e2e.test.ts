/**
 * Identity on the A2A side, opt-in: with AGENTE_TOKENS every A2A request
 * (JSON-RPC, HTTP+JSON, streaming) needs a Bearer token of a configured
 * identity; each Task belongs to the identity that created it, in memory
 * and in TASKS_DB, across a restart; an optional per-identity rate limit.
 * Discovery stays public. Real processes, over HTTP; no token in any log.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as z from 'zod';
import { a2a, enviar, estado, mensagem, tarefa } from './apoio/a2a.js';
import { postarCru } from './apoio/http-cru.js';
import { intermediario } from './apoio/intermediario.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';

const token = () => randomBytes(24).toString('base64url');
const ANA = token();
const BIA = token();
const TOKENS = `ana:${ANA},bia:${BIA}`;
const com = (quem: string) => ({ authorization: `Bearer ${quem}` });
const reservar = (dia: string, responsavel: string) =>
  `reservar sala=sala-garagem inicio=${dia}T14:00:00-03:00 fim=${dia}T15:00:00-03:00 responsavel=${responsavel}`;

/** Two requests that must not differ: a Task another identity asks for answers as an id that never existed. */
const ErroJsonRpc = z.object({ error: z.object({ code: z.number(), message: z.string() }) });

describe('AGENTE_TOKENS on the agent', () => {
  let mcp: Processo;
  let agente: Processo;
  before(async () => {
    mcp = await iniciarServidorMcp();
    agente = await iniciarAgente(mcp.url, { AGENTE_TOKENS: TOKENS });
  });
  after(async () => {
    await agente.parar();
    await mcp.parar();
  });

  it("refuses a missing, malformed or unknown Authorization with 401, WWW-Authenticate: Bearer and the binding's error body", async () => {
    const semToken = 'Bearer realm="a2a"';
    const tokenRecusado = 'Bearer realm="a2a", error="invalid_token"';
    const casos: [Record<string, string>, string, string][] = [
      [{}, 'falta o cabecalho Authorization: Bearer <token>', semToken],
      [{ authorization: 'Bearer' }, 'o cabecalho Authorization deve ser "Bearer <token>"', semToken],
      [{ authorization: `Basic ${ANA}` }, 'o cabecalho Authorization deve ser "Bearer <token>"', semToken],
      [{ authorization: `Bearer ${ANA} lixo` }, 'o cabecalho Authorization deve ser "Bearer <token>"', semToken],
      [{ authorization: 'Bearer curto' }, 'token desconhecido', tokenRecusado],
      [{ authorization: `Bearer ${token()}` }, 'token desconhecido', tokenRecusado],
    ];
    for (const [headers, falta, desafio] of casos) {
      const jsonRpc = await fetch(new URL('/a2a', agente.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      });
      assert.equal(jsonRpc.status, 401);
      assert.equal(jsonRpc.headers.get('www-authenticate'), desafio);
      assert.deepEqual(await jsonRpc.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Nao autenticado: ${falta}` } });
      const rest = await fetch(new URL('/rest/tasks/x', agente.url), { headers });
      assert.equal(rest.status, 401);
      assert.equal(rest.headers.get('www-authenticate'), desafio);
      assert.deepEqual(await rest.json(), {
        error: { code: 401, status: 'UNAUTHENTICATED', message: `Nao autenticado: ${falta}`, details: [] },
      });
    }
    const stream = await fetch(new URL('/rest/message:stream', agente.url), { method: 'POST', body: '{}' });
    assert.equal(stream.status, 401, 'streaming too');
    await agente.esperarLinha(/recusa="token desconhecido" http=401/);
  });

  it('refuses two Authorization headers, even when the first is good', async () => {
    const status = await postarCru(
      new URL('/a2a', agente.url),
      ['content-type', 'application/json', 'authorization', `Bearer ${ANA}`, 'authorization', `Bearer ${BIA}`],
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    );
    assert.equal(status, 401);
  });

  it('the card declares the bearer scheme and requires it; discovery stays public', async () => {
    const card = z
      .looseObject({ securitySchemes: z.unknown(), securityRequirements: z.unknown() })
      .parse(await (await fetch(new URL('/.well-known/agent-card.json', agente.url))).json());
    assert.deepEqual(card.securitySchemes, {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'Token estatico de uma identidade de AGENTE_TOKENS.' } },
    });
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
    for (const caminho of [
      '/.well-known/ai-catalog.json',
      '/.well-known/agent-skills/index.json',
      '/.well-known/agent-skills/reservar-sala/SKILL.md',
    ])
      assert.equal((await fetch(new URL(caminho, agente.url))).status, 200, caminho);
  });

  it('another identity cannot see, continue, cancel, subscribe to, push from or list a Task: exactly as for an id that never existed', async () => {
    const livre = await enviar(agente.url, reservar('2027-08-02', 'Marty'), { token: ANA });
    assert.equal(estado(livre), 'TASK_STATE_COMPLETED', mensagem(livre));
    const pausa = await enviar(agente.url, reservar('2027-08-02', 'Biff'), { token: ANA });
    assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED');
    const { id } = tarefa(pausa);
    const nuncaExistiu = 'f0f0f0f0-0000-4000-8000-000000000000';
    const pedidos = (alvo: string): [string, unknown][] => [
      ['GetTask', { id: alvo }],
      ['SendMessage', { message: { messageId: `m-${alvo}`, role: 'ROLE_USER', taskId: alvo, parts: [{ text: 'escolha=sala-fusca' }] } }],
      ['CancelTask', { id: alvo }],
      ['SubscribeToTask', { id: alvo }],
      ['CreateTaskPushNotificationConfig', { taskId: alvo, url: 'http://127.0.0.1:9/gancho' }],
      ['ListTaskPushNotificationConfigs', { taskId: alvo }],
    ];
    const daBia = pedidos(id);
    const inexistente = pedidos(nuncaExistiu);
    for (const [indice, [metodo, params]] of daBia.entries()) {
      const resposta = await a2a(agente.url, metodo, params, com(BIA));
      const esperado = await a2a(agente.url, metodo, inexistente[indice]?.[1], com(BIA));
      const erro = ErroJsonRpc.parse(JSON.parse(resposta.texto)).error;
      const erroEsperado = ErroJsonRpc.parse(JSON.parse(esperado.texto)).error;
      assert.deepEqual(
        [resposta.status, erro.code, erro.message.replace(id, '<id>')],
        [esperado.status, erroEsperado.code, erroEsperado.message.replace(nuncaExistiu, '<id>')],
        metodo,
      );
      assert.equal(erro.code, -32001, metodo);
    }
    const listaDaBia = await a2a(agente.url, 'ListTasks', { pageSize: 50 }, com(BIA));
    assert.deepEqual(
      z.object({ result: z.looseObject({ tasks: z.array(z.unknown()) }) }).parse(JSON.parse(listaDaBia.texto)).result.tasks,
      [],
    );

    // The owner still has it, untouched, and finishes it.
    const lista = await a2a(agente.url, 'ListTasks', { pageSize: 50 }, com(ANA));
    const ids = z
      .object({ result: z.object({ tasks: z.array(z.looseObject({ id: z.string() })) }) })
      .parse(JSON.parse(lista.texto))
      .result.tasks.map((t) => t.id);
    assert.ok(ids.includes(id));
    const concluida = await enviar(agente.url, 'escolha=sala-fusca', { taskId: id, token: ANA });
    assert.equal(estado(concluida), 'TASK_STATE_COMPLETED', mensagem(concluida));

    const linha = await agente.esperarLinha(new RegExp(`metodo=SendMessage .*task=${id} estado=TASK_STATE_COMPLETED .*quem=ana`));
    assert.ok(linha);
    assert.ok(!agente.linhas.some((l) => l.includes(ANA) || l.includes(BIA)), 'no token in any log line');
  });
});

describe('AGENTE_TOKENS with TASKS_DB: ownership is stored with the Task', () => {
  let pasta: string;
  let mcp: Processo;
  before(async () => {
    pasta = mkdtempSync(join(tmpdir(), 'identidade-'));
    mcp = await iniciarServidorMcp();
  });
  after(async () => {
    await mcp.parar();
    rmSync(pasta, { recursive: true, force: true });
  });

  it("a Task running for one identity is refused to another at once, never after waiting for the Task's turn", async () => {
    const meio = await intermediario(mcp.url);
    const agente = await iniciarAgente(meio.url, { AGENTE_TOKENS: TOKENS, TASKS_DB: join(pasta, 'vez.db') });
    const soltar = meio.reter();
    try {
      // Ana's booking stops at its tools/call, inside its Task's turn; returnImmediately hands out the id meanwhile.
      const emCurso = await a2a(
        agente.url,
        'SendMessage',
        {
          message: { messageId: 'm-ana', role: 'ROLE_USER', parts: [{ text: reservar('2027-08-04', 'Marty') }] },
          configuration: { returnImmediately: true },
        },
        com(ANA),
      );
      const { id } = tarefa(emCurso);
      await meio.chamadasRecebidas(1);
      // While the turn is held, Bia's continuation and cancel answer now, as for an unknown id.
      for (const [metodo, params] of [
        ['SendMessage', { message: { messageId: 'm-bia', role: 'ROLE_USER', taskId: id, parts: [{ text: 'escolha=sala-fusca' }] } }],
        ['CancelTask', { id }],
      ] as const) {
        const resposta = await a2a(agente.url, metodo, params, com(BIA));
        assert.equal(ErroJsonRpc.parse(JSON.parse(resposta.texto)).error.code, -32001, metodo);
      }
      assert.equal(meio.chamadas, 1, 'still held: the answers did not wait for it');
    } finally {
      soltar();
      await agente.parar();
      await meio.fechar();
    }
  });

  it("after a restart, the Task is still its creator's and no one else's", async () => {
    const env = { AGENTE_TOKENS: TOKENS, TASKS_DB: join(pasta, 'tasks.db') };
    const primeiro = await iniciarAgente(mcp.url, env);
    await enviar(primeiro.url, reservar('2027-08-03', 'Marty'), { token: ANA });
    const pausa = await enviar(primeiro.url, reservar('2027-08-03', 'Biff'), { token: ANA });
    const { id } = tarefa(pausa);
    await primeiro.parar();
    const segundo = await iniciarAgente(mcp.url, env);
    try {
      const daBia = await a2a(segundo.url, 'GetTask', { id }, com(BIA));
      assert.equal(ErroJsonRpc.parse(JSON.parse(daBia.texto)).error.code, -32001);
      const daAna = await a2a(segundo.url, 'GetTask', { id }, com(ANA));
      assert.equal(estado(daAna), 'TASK_STATE_INPUT_REQUIRED');
      const concluida = await enviar(segundo.url, 'escolha=sala-mirante', { taskId: id, token: ANA });
      assert.equal(estado(concluida), 'TASK_STATE_COMPLETED', mensagem(concluida));
    } finally {
      await segundo.parar();
    }
  });
});

describe('AGENTE_LIMITE_POR_MINUTO', () => {
  const CID = token();
  let mcp: Processo;
  let agente: Processo;
  before(async () => {
    mcp = await iniciarServidorMcp();
    agente = await iniciarAgente(mcp.url, { AGENTE_TOKENS: `${TOKENS},cid:${CID}`, AGENTE_LIMITE_POR_MINUTO: '3' });
  });
  after(async () => {
    await agente.parar();
    await mcp.parar();
  });

  it('answers 429 with Retry-After only to the identity over the limit', async () => {
    const obter = (quem: string) => a2a(agente.url, 'GetTask', { id: 'nao-existe' }, com(quem));
    // The window is the wall clock's minute. A run that straddles two minutes (it takes milliseconds, so at
    // most one can) is run again by an identity that has not asked yet, instead of waiting for the clock.
    for (const quem of [ANA, CID]) {
      const minuto = Math.floor(Date.now() / 60_000);
      const respostas = [await obter(quem), await obter(quem), await obter(quem), await obter(quem)];
      const daBia = await obter(BIA);
      if (Math.floor(Date.now() / 60_000) !== minuto && quem === ANA) continue;
      assert.deepEqual(
        respostas.map((resposta) => resposta.status),
        [200, 200, 200, 429],
      );
      const excedida = await fetch(new URL('/a2a', agente.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...com(quem) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      });
      assert.equal(excedida.status, 429);
      const espera = Number(excedida.headers.get('retry-after'));
      assert.ok(Number.isInteger(espera) && espera >= 1 && espera <= 60, String(espera));
      assert.deepEqual(await excedida.json(), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `Limite de 3 pedidos por minuto excedido: tente de novo em ${String(espera)} s` },
      });
      assert.equal(daBia.status, 200, 'another identity is not affected');
      return;
    }
  });
});

describe('identity configuration of the agent at start', () => {
  it('a malformed AGENTE_TOKENS, or a limit without tokens, stops the agent with one clear line', async () => {
    const segredo = token();
    await assert.rejects(iniciarAgente('http://localhost:1/mcp', { AGENTE_TOKENS: `:${segredo}` }), (erro: Error) => {
      assert.match(erro.message, /agente nao subiu: AGENTE_TOKENS: a entrada 1 nao tem nome;/);
      assert.doesNotMatch(erro.message, new RegExp(segredo));
      return true;
    });
    await assert.rejects(
      iniciarAgente('http://localhost:1/mcp', { AGENTE_LIMITE_POR_MINUTO: '10' }),
      /agente nao subiu: AGENTE_LIMITE_POR_MINUTO vale por identidade: defina AGENTE_TOKENS tambem/,
    );
  });

  it('without AGENTE_TOKENS the card has no security fields and no token is asked (the course default)', async () => {
    const mcp = await iniciarServidorMcp();
    const agente = await iniciarAgente(mcp.url);
    try {
      const card = z.looseObject({}).parse(await (await fetch(new URL('/.well-known/agent-card.json', agente.url))).json());
      assert.ok(!('securitySchemes' in card) && !('securityRequirements' in card));
      assert.equal(estado(await enviar(agente.url, 'listar salas')), 'TASK_STATE_COMPLETED');
      assert.doesNotMatch(agente.linhas.join('\n'), /quem=/);
    } finally {
      await agente.parar();
      await mcp.parar();
    }
  });
});
