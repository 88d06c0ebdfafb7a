/**
 * 2026-07-28 servers: the perguntas fixture (its own process, two
 * input_required rounds), and a server built here with a tool list that
 * changes and a tool that runs until cancelled.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { isInputRequiredResult, type Tool } from '@modelcontextprotocol/client';
import { iniciar, type Processo } from '../../scripts/processos.js';
import { Catalogo, fontesDe } from '../src/mcp/catalogo.js';
import { ehPerguntaDaTarefa, type Skill } from '../src/mcp/conexao.js';
import { lerServidores, type ServidorConfigurado } from '../src/mcp/configuracao.js';
import { ConexaoGenerica } from '../src/mcp/generica.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const PERGUNTAS = 'test/apoio/servidores/perguntas.ts';

const servidorEm = (nome: string, url: string): ServidorConfigurado => {
  const [servidor] = lerServidores(JSON.stringify({ mcpServers: { [nome]: { url } } }), 'teste.json');
  if (!servidor) throw new Error('sem servidor');
  return servidor;
};

describe('a 2026-07-28 server (the perguntas fixture)', () => {
  let perguntas: Processo | undefined;
  before(async () => {
    perguntas = await iniciar(PERGUNTAS, { PORT: '0' });
  });
  after(() => perguntas?.parar());

  it("is 'moderna', and its input_required comes back raw, each round retried with the continuation", async () => {
    if (!perguntas) throw new Error('perguntas nao subiu');
    const linhas: string[] = [];
    const conexao = new ConexaoGenerica(servidorEm('perguntas', perguntas.url), (linha) => linhas.push(linha), 10_000);
    try {
      await conexao.conectar();
      assert.equal(conexao.era(), 'moderna');
      assert.deepEqual(
        (await conexao.ferramentas(TRACEPARENT)).map(({ name }) => name),
        ['agendar_visita', 'nota_em_markdown'],
      );
      const argumentos = { visitante: 'Marty' };
      const primeira = await conexao.chamar('agendar_visita', argumentos, {
        traceparent: TRACEPARENT,
        aoPerguntar: () => Promise.reject(new Error('um servidor moderno nao pergunta durante a chamada')),
      });
      assert.ok(isInputRequiredResult(primeira));
      assert.deepEqual(Object.keys(primeira.inputRequests ?? {}), ['dia', 'acompanhante']);
      assert.equal(typeof primeira.requestState, 'string');
      const segunda = await conexao.chamar('agendar_visita', argumentos, {
        traceparent: TRACEPARENT,
        continuacao: {
          inputResponses: {
            dia: { action: 'accept', content: { dia: 'quarta' } },
            acompanhante: { action: 'accept', content: { nome: 'Doc', cracha: true } },
          },
          requestState: primeira.requestState ?? '',
        },
      });
      assert.ok(isInputRequiredResult(segunda));
      assert.deepEqual(Object.keys(segunda.inputRequests ?? {}), ['confirmar']);
      const final = await conexao.chamar('agendar_visita', argumentos, {
        traceparent: TRACEPARENT,
        continuacao: {
          inputResponses: { confirmar: { action: 'accept', content: { confirmado: true } } },
          requestState: segunda.requestState ?? '',
        },
      });
      assert.ok(!isInputRequiredResult(final) && !ehPerguntaDaTarefa(final));
      assert.deepEqual(final.structuredContent, {
        visitante: 'Marty',
        dia: 'quarta',
        acompanhante: { nome: 'Doc', cracha: true },
        confirmado: true,
      });
      assert.match(linhas[0] ?? '', /^mcp-> servidor=perguntas sessao=1 metodo=server\/discover .*resultado="era moderna"/);
      assert.equal(linhas.filter((linha) => / metodo=tools\/call .*resultado=input_required /.test(linha)).length, 2);
      assert.ok(!linhas.some((linha) => / metodo=initialize /.test(linha)));
    } finally {
      await conexao.fechar();
    }
  });
});

describe('a 2026-07-28 server whose tools change, and a tool that runs until cancelled', () => {
  const nomes = ['consultar'];
  /** What the test learns of the `esperar` call on the server side. */
  let avisar = { iniciada: () => {}, cancelada: () => {} };
  const criar = () => {
    const servidor = new McpServer({ name: 'mutavel', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    for (const nome of nomes) servidor.registerTool(nome, { description: nome }, () => ({ content: [{ type: 'text', text: nome }] }));
    servidor.registerTool('esperar', { description: 'so termina cancelada' }, (ctx) => {
      ctx.mcpReq.signal.addEventListener('abort', () => avisar.cancelada());
      avisar.iniciada();
      return new Promise(() => {});
    });
    return servidor;
  };
  let handler = createMcpHandler(criar, { legacy: 'reject' });
  let atender = toNodeHandler(handler);
  /** As a restarted server: its open streams end, the next requests are served by a new handler. */
  const reiniciar = async () => {
    await handler.close();
    handler = createMcpHandler(criar, { legacy: 'reject' });
    atender = toNodeHandler(handler);
  };
  let http: Server | undefined;
  let url = '';
  before(async () => {
    http = createServer((pedido, resposta) => void atender(pedido, resposta));
    await new Promise<void>((resolver) => http?.listen(0, '127.0.0.1', resolver));
    const endereco = http.address();
    if (typeof endereco !== 'object' || !endereco) throw new Error('sem porta');
    url = `http://127.0.0.1:${String(endereco.port)}/mcp`;
  });
  after(async () => {
    await handler.close();
    http?.closeAllConnections();
    http?.close();
  });

  it('hears tools/list_changed on the subscriptions/listen stream the SDK opens, and the catalog tells its listener', async () => {
    const linhas: string[] = [];
    const catalogo = await Catalogo.montar(
      fontesDe([servidorEm('mutavel', url)], (linha) => linhas.push(linha), 10_000),
      (linha) => linhas.push(linha),
      TRACEPARENT,
    );
    try {
      assert.deepEqual(
        catalogo.lista().map(({ id }) => id),
        ['mutavel.consultar', 'mutavel.esperar'],
      );
      const mudou = new Promise<readonly Skill[]>((resolver) => catalogo.aoMudar(resolver));
      nomes.push('reservar');
      handler.notify.toolsChanged();
      assert.deepEqual(
        (await mudou).map(({ id }) => id),
        ['mutavel.consultar', 'mutavel.reservar', 'mutavel.esperar'],
      );
      assert.equal(catalogo.skill('mutavel.reservar')?.conexao.nome, 'mutavel');
    } finally {
      nomes.pop();
      await catalogo.fechar();
    }
    assert.ok(linhas.some((linha) => /^mcp-> servidor=mutavel sessao=1 metodo=subscriptions\/listen id="listen:\d+" /.test(linha)));
  });

  it('cancels the call when its signal aborts: the server sees its request aborted', async () => {
    const iniciada = new Promise<void>((resolver) => (avisar = { ...avisar, iniciada: resolver }));
    const cancelada = new Promise<void>((resolver) => (avisar = { ...avisar, cancelada: resolver }));
    const linhas: string[] = [];
    const conexao = new ConexaoGenerica(servidorEm('mutavel', url), (linha) => linhas.push(linha), 10_000);
    try {
      await conexao.conectar();
      const sinal = new AbortController();
      const chamada = conexao.chamar('esperar', {}, { traceparent: TRACEPARENT, sinal: sinal.signal });
      await iniciada;
      sinal.abort();
      await assert.rejects(chamada, { name: 'AbortError' });
      await cancelada;
      assert.ok(
        linhas.some((linha) => /^mcp-> servidor=mutavel sessao=1 metodo=tools\/call .*nome=esperar .*resultado=cancelada/.test(linha)),
      );
    } finally {
      await conexao.fechar();
    }
  });

  it('when the listen stream ends (the server restarted), listens again before the next request, and reads the tools again', async () => {
    let listenTerminado = () => {};
    const terminado = new Promise<void>((resolver) => (listenTerminado = resolver));
    const linhas: string[] = [];
    const log = (linha: string) => {
      linhas.push(linha);
      if (/^mcp-> servidor=mutavel sessao=1 metodo=subscriptions\/listen /.test(linha)) listenTerminado();
    };
    const conexao = new ConexaoGenerica(servidorEm('mutavel', url), log, 10_000);
    let ouvir: (ferramentas: Tool[]) => void = () => {};
    conexao.aoMudarFerramentas((ferramentas) => ouvir(ferramentas));
    const proximaLista = () =>
      new Promise<string[]>((resolver) => (ouvir = (ferramentas) => resolver(ferramentas.map(({ name }) => name))));
    try {
      await conexao.conectar();
      await reiniciar();
      await terminado;
      // The log line comes first in the same task as the SDK settling the subscription: past this turn, both are done.
      await new Promise((resolver) => setImmediate(resolver));
      // The tools are read again (a restarted server may offer others) ...
      const releitura = proximaLista();
      await conexao.chamar('consultar', {}, { traceparent: TRACEPARENT });
      assert.deepEqual(await releitura, ['consultar', 'esperar']);
      // ... and listens again.
      const mudanca = proximaLista();
      nomes.push('reservar');
      handler.notify.toolsChanged();
      assert.deepEqual(await mudanca, ['consultar', 'reservar', 'esperar']);
      assert.ok(linhas.some((linha) => /^mcp-> servidor=mutavel sessao=1 metodo=subscriptions\/listen .*resultado=complete/.test(linha)));
    } finally {
      nomes.pop();
      await conexao.fechar();
    }
  });
});
