/**
 * 2025-era servers over stdio: the reference server-memory, and a small 1.x
 * SDK server written here (run with `node -e`) whose tools make the server
 * ask the agent things, change its tool list, report progress until
 * cancelled, or exit mid-call.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { setTimeout as esperar } from 'node:timers/promises';
import type { Tool } from '@modelcontextprotocol/client';
import { isInputRequiredResult, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { lerServidores } from '../src/mcp/configuracao.js';
import { ehPerguntaDaTarefa, type ResultadoDaFerramenta } from '../src/mcp/conexao.js';
import { ConexaoGenerica } from '../src/mcp/generica.js';
import { ChamadaNaoEnviada } from '../src/mcp/naoEnviada.js';
import { Relogio } from '../src/mcp/relogio.js';
import { Sessao } from '../src/mcp/sessao.js';

const MEMORY = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const RAIZ = fileURLToPath(new URL('../../', import.meta.url));
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** A 1.x SDK server over stdio; resolved from the repository root, its `cwd`. */
const SERVIDOR_1X = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
const servidor = new McpServer({ name: 'pedidos', version: '1.0.0' });
const texto = (t) => ({ content: [{ type: 'text', text: t }] });
const recusado = (erro) => texto('recusado ' + erro.code);
servidor.registerTool('amostrar', {}, () =>
  servidor.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'oi' } }], maxTokens: 5 }).then(() => texto('aceito'), recusado));
servidor.registerTool('raizes', {}, () => servidor.server.listRoots().then(() => texto('aceito'), recusado));
servidor.registerTool('perguntar', { inputSchema: { quem: z.string() } }, async ({ quem }) => {
  const resposta = await servidor.server.elicitInput({
    message: 'nome de ' + quem + '?',
    requestedSchema: { type: 'object', properties: { nome: { type: 'string' } }, required: ['nome'] },
  });
  return texto(quem + ':' + resposta.action + ':' + (resposta.content?.nome ?? '-'));
});
servidor.registerTool('mudar', {}, () => {
  servidor.registerTool('nova', {}, () => texto('nova'));
  return texto('mudou');
});
servidor.registerTool('ambiente', {}, () => texto(JSON.stringify({ cwd: process.cwd(), env: Object.keys(process.env).sort() })));
servidor.registerTool('morrer', {}, () => process.exit(1));
servidor.registerTool('progredir', {}, (extra) => new Promise((resolver) => {
  let progresso = 0;
  const vez = setInterval(() => extra.sendNotification({
    method: 'notifications/progress',
    params: { progressToken: extra._meta.progressToken, progress: ++progresso },
  }), 20);
  extra.signal.addEventListener('abort', () => { clearInterval(vez); resolver(texto('cancelada')); });
}));
await servidor.connect(new StdioServerTransport());
`;

function servidorDe(entrada: Record<string, unknown>) {
  const [servidor] = lerServidores(JSON.stringify({ mcpServers: entrada }), 'teste.json');
  if (!servidor) throw new Error('sem servidor');
  return servidor;
}

function conexaoPara(entrada: Record<string, unknown>, prazoMs = 10_000) {
  const linhas: string[] = [];
  return { conexao: new ConexaoGenerica(servidorDe(entrada), (linha) => linhas.push(linha), prazoMs), linhas };
}

const PEDIDOS = (env: Record<string, string> = {}) => ({
  pedidos: { command: process.execPath, args: ['--input-type=module', '-e', SERVIDOR_1X], env, cwd: RAIZ },
});
const pedidos = (env: Record<string, string> = {}, prazoMs?: number) => conexaoPara(PEDIDOS(env), prazoMs);

const texto = (resultado: ResultadoDaFerramenta) =>
  isInputRequiredResult(resultado) || ehPerguntaDaTarefa(resultado)
    ? ''
    : resultado.content.map((bloco) => (bloco.type === 'text' ? bloco.text : '')).join('\n');

/** One session to the pedidos stdio server, opened with a long deadline, and the log lines it writes. */
async function sessaoDePedidos(): Promise<{ sessao: Sessao; linhas: string[] }> {
  const linhas: string[] = [];
  const sessao = await Sessao.abrir({
    servidor: servidorDe(PEDIDOS()),
    numero: 1,
    log: (linha) => linhas.push(linha),
    prazoMs: 10_000,
    aoFechar: () => undefined,
  });
  return { sessao, linhas };
}

describe('a 2025-era server over stdio', () => {
  it('server-memory: entities created, then the graph read back, kept in its MEMORY_FILE_PATH', async () => {
    const arquivo = join(mkdtempSync(join(tmpdir(), 'mcp-memoria-')), 'memoria.jsonl');
    const { conexao, linhas } = conexaoPara({ memoria: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: arquivo } } });
    try {
      await conexao.conectar();
      assert.equal(conexao.era(), 'sessao');
      assert.equal(conexao.onde, 'stdio node de memoria');
      const nomes = (await conexao.ferramentas(TRACEPARENT)).map(({ name }) => name);
      assert.deepEqual(nomes, [
        'create_entities',
        'create_relations',
        'add_observations',
        'delete_entities',
        'delete_observations',
        'delete_relations',
        'read_graph',
        'search_nodes',
        'open_nodes',
      ]);
      const marty = { name: 'Marty', entityType: 'pessoa', observations: ['viaja no tempo'] };
      const doc = { name: 'Doc', entityType: 'pessoa', observations: ['inventou o capacitor de fluxo'] };
      const criadas = await conexao.chamar('create_entities', { entities: [marty, doc] }, { traceparent: TRACEPARENT });
      assert.deepEqual('structuredContent' in criadas && criadas.structuredContent, { entities: [marty, doc] });
      const grafo = await conexao.chamar('read_graph', {}, { traceparent: TRACEPARENT });
      assert.deepEqual('structuredContent' in grafo && grafo.structuredContent, { entities: [marty, doc], relations: [] });
      assert.match(readFileSync(arquivo, 'utf8'), /"name":"Marty"/);
      // The stdio probe ran on a throwaway sibling process: the session's own log starts at initialize.
      assert.match(linhas[0] ?? '', /^mcp-> servidor=memoria sessao=1 metodo=initialize id=0 .*resultado=complete/);
      assert.ok(
        linhas.some((linha) =>
          new RegExp(
            `^mcp-> servidor=memoria sessao=1 metodo=tools/call id=\\d+ nome=read_graph traceparent=${TRACEPARENT} resultado=complete`,
          ).test(linha),
        ),
      );
    } finally {
      await conexao.fechar();
    }
  });

  it('starts the child with the SDK safe environment plus the configured env, in the configured cwd: never the agent whole environment', async () => {
    process.env.SEGREDO_DO_AGENTE = 'nao deve vazar';
    const { conexao } = pedidos({ CHAVE_DO_SERVIDOR: 'valor' });
    try {
      const visto = JSON.parse(texto(await conexao.chamar('ambiente', {}, { traceparent: TRACEPARENT }))) as { cwd: string; env: string[] };
      assert.equal(`${visto.cwd}/`, RAIZ);
      assert.ok(visto.env.includes('CHAVE_DO_SERVIDOR') && visto.env.includes('PATH'));
      assert.ok(!visto.env.includes('SEGREDO_DO_AGENTE'));
    } finally {
      delete process.env.SEGREDO_DO_AGENTE;
      await conexao.fechar();
    }
  });

  it('answers sampling and roots requests with the protocol error: the agent declares neither', async () => {
    const { conexao, linhas } = pedidos();
    try {
      assert.equal(texto(await conexao.chamar('amostrar', {}, { traceparent: TRACEPARENT })), 'recusado -32601');
      assert.equal(texto(await conexao.chamar('raizes', {}, { traceparent: TRACEPARENT })), 'recusado -32601');
      assert.ok(
        linhas.some((linha) => /^mcp<- servidor=pedidos sessao=1 metodo=sampling\/createMessage .*resultado="erro -32601"/.test(linha)),
      );
      assert.ok(linhas.some((linha) => /^mcp<- servidor=pedidos sessao=1 metodo=roots\/list .*resultado="erro -32601"/.test(linha)));
    } finally {
      await conexao.fechar();
    }
  });

  it('runs calls one at a time, so each question reaches the call that caused it; with no aoPerguntar, declines', async () => {
    const { conexao } = pedidos();
    try {
      const ordem: string[] = [];
      const chamar = (quem: string) =>
        conexao
          .chamar(
            'perguntar',
            { quem },
            {
              traceparent: TRACEPARENT,
              aoPerguntar: async (pergunta) => {
                ordem.push(pergunta.message);
                // The first call keeps its turn while its question waits; were the second sent meanwhile, its question would come now.
                if (quem === 'Marty') await esperar(200);
                return { action: 'accept', content: { nome: quem.toUpperCase() } };
              },
            },
          )
          .then((resultado) => {
            ordem.push(`fim de ${quem}`);
            return texto(resultado);
          });
      assert.deepEqual(await Promise.all([chamar('Marty'), chamar('Doc')]), ['Marty:accept:MARTY', 'Doc:accept:DOC']);
      assert.deepEqual(ordem, ['nome de Marty?', 'fim de Marty', 'nome de Doc?', 'fim de Doc']);
      assert.equal(texto(await conexao.chamar('perguntar', { quem: 'Biff' }, { traceparent: TRACEPARENT })), 'Biff:decline:-');
    } finally {
      await conexao.fechar();
    }
  });

  it('reads the tools again when the server says its list changed', async () => {
    const { conexao } = pedidos();
    try {
      await conexao.conectar();
      const mudou = new Promise<Tool[]>((resolver) => conexao.aoMudarFerramentas(resolver));
      await conexao.chamar('mudar', {}, { traceparent: TRACEPARENT });
      assert.ok((await mudou).some(({ name }) => name === 'nova'));
    } finally {
      await conexao.fechar();
    }
  });

  it('fails the call running when the child exits (its outcome unknown), and starts a new child for the next', async () => {
    const { conexao, linhas } = pedidos();
    try {
      await assert.rejects(conexao.chamar('morrer', {}, { traceparent: TRACEPARENT }), (erro: unknown) => {
        assert.ok(erro instanceof Error);
        assert.equal(erro.name, 'SdkError');
        assert.match(erro.message, /^a conexao com pedidos \(.*\) caiu durante morrer: o desfecho da chamada e desconhecido$/s);
        return true;
      });
      assert.equal(texto(await conexao.chamar('perguntar', { quem: 'Jennifer' }, { traceparent: TRACEPARENT })), 'Jennifer:decline:-');
      assert.ok(
        linhas.some((linha) =>
          /^mcp-> servidor=pedidos sessao=1 metodo=tools\/call .*nome=morrer .*resultado="conexao fechada"/.test(linha),
        ),
      );
      assert.ok(linhas.some((linha) => linha.startsWith('mcp-> servidor=pedidos sessao=2 metodo=initialize')));
    } finally {
      await conexao.fechar();
    }
  });

  it('a call whose turn never comes fails as not sent, after the deadline, while the call ahead waits for its answer', async () => {
    // Long enough for the child to start within it (connecting waits as long): the turn's wait is this deadline.
    const { conexao } = pedidos({}, 1_500);
    try {
      await conexao.conectar();
      let perguntou = () => {};
      const aPergunta = new Promise<void>((resolver) => (perguntou = resolver));
      let responder = () => {};
      const aResposta = new Promise<void>((resolver) => (responder = resolver));
      const primeira = conexao.chamar(
        'perguntar',
        { quem: 'Marty' },
        {
          traceparent: TRACEPARENT,
          aoPerguntar: async () => {
            perguntou();
            await aResposta;
            return { action: 'accept', content: { nome: 'MARTY' } };
          },
        },
      );
      await Promise.race([aPergunta, primeira.then(() => assert.fail('Marty respondida sem perguntar'))]);
      await assert.rejects(conexao.chamar('perguntar', { quem: 'Doc' }, { traceparent: TRACEPARENT }), (erro: unknown) => {
        assert.ok(erro instanceof ChamadaNaoEnviada && erro instanceof SdkError);
        assert.equal(erro.code, SdkErrorCode.RequestTimeout);
        assert.equal(
          erro.message,
          'servidor MCP pedidos: a vez desta chamada nao chegou em 1500 ms (a anterior espera uma resposta); ela nao foi enviada',
        );
        return true;
      });
      responder();
      assert.equal(texto(await primeira), 'Marty:accept:MARTY');
    } finally {
      await conexao.fechar();
    }
  });

  it('a call on a closed session or connection fails as not sent, and nothing goes out', async () => {
    const { sessao, linhas } = await sessaoDePedidos();
    await sessao.fechar();
    const relogio = new Relogio(10_000);
    try {
      await assert.rejects(sessao.chamar('perguntar', { quem: 'Biff' }, { traceparent: TRACEPARENT }, relogio), {
        name: 'ChamadaNaoEnviada',
        message: 'a conexao com pedidos (stdio node de pedidos) ja estava fechada: perguntar nao foi enviada',
      });
    } finally {
      relogio.parar();
    }
    assert.ok(!linhas.some((linha) => linha.includes('metodo=tools/call')), linhas.join('\n'));

    const { conexao } = pedidos();
    await conexao.conectar();
    await conexao.fechar();
    await assert.rejects(conexao.chamar('perguntar', { quem: 'Biff' }, { traceparent: TRACEPARENT }), (erro: unknown) => {
      assert.ok(erro instanceof ChamadaNaoEnviada);
      assert.equal(erro.message, 'servidor MCP pedidos fechado');
      return true;
    });
  });

  it('a call that reports progress for ever is cancelled by the cap (three deadlines of running time), with the SDK timeout error', async () => {
    // The session opens with a long deadline (the child takes its time to start); the call runs on a short one.
    const { sessao, linhas } = await sessaoDePedidos();
    const prazoMs = 150;
    const relogio = new Relogio(prazoMs);
    try {
      const progressos: number[] = [];
      const chamada = sessao.chamar(
        'progredir',
        {},
        { traceparent: TRACEPARENT, aoProgredir: ({ progress }) => progressos.push(progress) },
        relogio,
      );
      await assert.rejects(chamada, (erro: unknown) => {
        assert.ok(erro instanceof SdkError);
        assert.equal(erro.code, SdkErrorCode.RequestTimeout);
        assert.equal(erro.message, 'Maximum total timeout exceeded');
        return true;
      });
      // 'Maximum total timeout' is the cap's error (a deadline without progress says 'Request timed out'):
      // progress kept restarting the deadline, and only the cap stopped it. No elapsed time is
      // asserted: timers on a loaded machine make that a flake.
      assert.ok(progressos.length > 0);
      assert.ok(
        linhas.some((linha) => /^mcp-> servidor=pedidos sessao=1 metodo=tools\/call .*nome=progredir .*resultado=cancelada/.test(linha)),
      );
    } finally {
      relogio.parar();
      await sessao.fechar();
    }
  });
});
