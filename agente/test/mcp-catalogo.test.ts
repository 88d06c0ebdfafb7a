/** The catalog over real servers: server-memory (stdio) and the perguntas fixture (HTTP, 2026-07-28). */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { iniciar, type Processo } from '../../scripts/processos.js';
import { Catalogo, fontesDe } from '../src/mcp/catalogo.js';
import { lerServidores } from '../src/mcp/configuracao.js';

const MEMORY = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const memoria = (tools?: string[]) => ({
  command: process.execPath,
  args: [MEMORY],
  env: { MEMORY_FILE_PATH: join(mkdtempSync(join(tmpdir(), 'mcp-catalogo-')), 'memoria.jsonl') },
  ...(tools ? { tools } : {}),
});

/** The catalog of this mcpServers object, and every log line it wrote. */
async function montar(mcpServers: Record<string, unknown>, prazoMs = 10_000) {
  const linhas: string[] = [];
  const log = (linha: string) => linhas.push(linha);
  const servidores = lerServidores(JSON.stringify({ mcpServers }), 'teste.json');
  return { catalogo: await Catalogo.montar(fontesDe(servidores, log, prazoMs), log, TRACEPARENT), linhas };
}

describe('the catalog of the configured servers', () => {
  let perguntas: Processo | undefined;
  before(async () => {
    perguntas = await iniciar('test/apoio/servidores/perguntas.ts', { PORT: '0' });
  });
  after(() => perguntas?.parar());

  it('with one server too, a skill is `<server>.<tool>`: its id does not change when a server is added', async () => {
    const { catalogo } = await montar({ memoria: memoria() });
    try {
      assert.equal(catalogo.skill('read_graph'), undefined);
      const skill = catalogo.skill('memoria.read_graph');
      assert.equal(skill?.id, 'memoria.read_graph');
      assert.equal(skill.ferramenta.name, 'read_graph');
      assert.equal(skill.conexao, catalogo.conexao('memoria'));
      assert.equal(catalogo.lista().length, 9);
    } finally {
      await catalogo.fechar();
    }
  });

  it('with several, the same `<server>.<tool>`, each skill on its own connection', async () => {
    const { catalogo } = await montar({ memoria: memoria(['read_graph', 'create_entities']), perguntas: { url: perguntas?.url } });
    try {
      assert.deepEqual(
        catalogo.lista().map(({ id }) => id),
        ['memoria.create_entities', 'memoria.read_graph', 'perguntas.agendar_visita', 'perguntas.nota_em_markdown'],
      );
      assert.equal(catalogo.skill('perguntas.agendar_visita')?.conexao.era(), 'moderna');
      assert.equal(catalogo.skill('memoria.read_graph')?.conexao.era(), 'sessao');
      assert.equal(catalogo.skill('read_graph'), undefined);
      assert.equal(catalogo.conexao('nenhum'), undefined);
    } finally {
      await catalogo.fechar();
    }
  });

  it('keeps only the allow-listed tools, and warns of a listed name the server does not offer', async () => {
    const { catalogo, linhas } = await montar({ memoria: memoria(['read_graph', 'apagar_tudo']) });
    try {
      assert.deepEqual(
        catalogo.lista().map(({ id }) => id),
        ['memoria.read_graph'],
      );
      assert.ok(linhas.includes('mcp! servidor=memoria aviso="\\"tools\\" lista ferramentas que o servidor nao oferece: apagar_tudo"'));
    } finally {
      await catalogo.fechar();
    }
  });

  it('stops the start with one line naming a server that cannot be reached, and where it was looked for', async () => {
    const livre = await iniciar('test/apoio/servidores/perguntas.ts', { PORT: '0' });
    const url = livre.url;
    await livre.parar();
    // The default deadline: the closed port fails at once, and a stdio server slow to start on a loaded machine is no failure here.
    await assert.rejects(montar({ memoria: memoria(), fora: { url } }), (erro: unknown) => {
      assert.ok(erro instanceof ConfiguracaoInvalida);
      assert.match(erro.message, new RegExp(`^servidor MCP "fora" \\(${url.replace(/[.]/g, '\\.')}\\) inacessivel: [^\\n]*fetch failed$`));
      return true;
    });
    await assert.rejects(montar({ quebrado: { command: '/nao/existe', args: ['--x'] } }), {
      name: 'Error',
      message: 'servidor MCP "quebrado" (stdio existe de quebrado) inacessivel: spawn /nao/existe ENOENT',
    });
  });
});
