/**
 * 2025-era servers over stdio: the reference server-memory, and a small 1.x
 * SDK server written here (run with `node -e`) whose tools make the server
 * ask the agent things, change its tool list, or exit mid-call.
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
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { lerServidores } from '../src/mcp/configuracao.js';
import type { ResultadoDaFerramenta } from '../src/mcp/conexao.js';
import { ConexaoGenerica } from '../src/mcp/generica.js';

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
await servidor.connect(new StdioServerTransport());
`;

function conexaoPara(entrada: Record<string, unknown>, prazoMs = 10_000) {
  const [servidor] = lerServidores(JSON.stringify({ mcpServers: entrada }), 'teste.json');
  if (!servidor) throw new Error('sem servidor');
  const linhas: string[] = [];
  return { conexao: new ConexaoGenerica(servidor, (linha) => linhas.push(linha), prazoMs), linhas };
}

const pedidos = (env: Record<string, string> = {}) =>
  conexaoPara({ pedidos: { command: process.execPath, args: ['--input-type=module', '-e', SERVIDOR_1X], env, cwd: RAIZ } });

const texto = (resultado: ResultadoDaFerramenta) =>
  isInputRequiredResult(resultado) ? '' : resultado.content.map((bloco) => (bloco.type === 'text' ? bloco.text : '')).join('\n');

describe('a 2025-era server over stdio', () => {
  it('server-memory: entities created, then the graph read back, kept in its MEMORY_FILE_PATH', async () => {
    const arquivo = join(mkdtempSync(join(tmpdir(), 'mcp-memoria-')), 'memoria.jsonl');
    const { conexao, linhas } = conexaoPara({ memoria: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: arquivo } } });
    try {
      await conexao.conectar();
      assert.equal(conexao.era(), 'sessao');
      assert.equal(conexao.onde, `${process.execPath} ${MEMORY}`);
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
});
