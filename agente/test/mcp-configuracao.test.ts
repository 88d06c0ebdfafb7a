import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { lerArquivoDeServidores, lerServidores } from '../src/mcp/configuracao.js';

const ARQUIVO = '/etc/agente/mcp.json';
const ler = (mcpServers: unknown) => lerServidores(JSON.stringify({ mcpServers }), ARQUIVO);

/** Refused with exactly this one line, and nothing of a credential in it. */
function recusa(ler: () => unknown, mensagem: string): void {
  assert.throws(ler, (erro: unknown) => {
    assert.ok(erro instanceof ConfiguracaoInvalida);
    assert.equal(erro.message, `AGENTE_MCP_CONFIG=${ARQUIVO}: ${mensagem}`);
    assert.doesNotMatch(erro.message, /segredo|\n/);
    return true;
  });
}

describe('AGENTE_MCP_CONFIG, a good file', () => {
  it('reads both kinds of server, in the file order, with their defaults', () => {
    const [memoria, web] = ler({
      memoria: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' },
        cwd: '/srv',
      },
      'Web_2-b': { url: 'https://mcp.exemplo.com/mcp?x=1', headers: { Authorization: 'Bearer segredo' }, tools: ['buscar'] },
    });
    assert.deepEqual(memoria, {
      nome: 'memoria',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' },
      cwd: '/srv',
    });
    assert.deepEqual(web, {
      nome: 'Web_2-b',
      url: new URL('https://mcp.exemplo.com/mcp?x=1'),
      headers: { Authorization: 'Bearer segredo' },
      tools: ['buscar'],
    });
  });

  it('fills what may be left out: args, env and headers empty, every tool offered', () => {
    assert.deepEqual(ler({ a: { command: 'servidor' }, b: { url: 'http://127.0.0.1:3001/mcp' } }), [
      { nome: 'a', command: 'servidor', args: [], env: {} },
      { nome: 'b', url: new URL('http://127.0.0.1:3001/mcp'), headers: {} },
    ]);
  });

  it('accepts the transport type other clients write, when it matches the entry', () => {
    assert.equal(ler({ a: { type: 'stdio', command: 'x' }, b: { type: 'http', url: 'http://h/mcp' } }).length, 2);
    assert.equal(ler({ b: { type: 'streamable-http', url: 'http://h/mcp' } }).length, 1);
  });

  it('reads the file itself', () => {
    const arquivo = join(mkdtempSync(join(tmpdir(), 'mcp-config-')), 'mcp.json');
    writeFileSync(arquivo, JSON.stringify({ mcpServers: { memoria: { command: 'node', args: ['m.js'] } } }));
    assert.deepEqual(lerArquivoDeServidores(arquivo), [{ nome: 'memoria', command: 'node', args: ['m.js'], env: {} }]);
  });
});

describe('AGENTE_MCP_CONFIG, a bad file: one line naming the file and the server, no value of a credential', () => {
  it('refuses a field it does not know, anywhere', () => {
    recusa(() => ler({ memoria: { command: 'x', comand: 'x' } }), 'servidor "memoria": campo desconhecido "comand"');
    recusa(() => ler({ web: { url: 'http://h/mcp', header: {} } }), 'servidor "web": campo desconhecido "header"');
    recusa(() => lerServidores(JSON.stringify({ mcpServers: { a: { command: 'x' } }, extra: 1 }), ARQUIVO), 'campo desconhecido "extra"');
  });

  it('refuses an entry that is neither kind, or both', () => {
    recusa(() => ler({ memoria: { comand: 'x' } }), 'servidor "memoria": falta "command" (stdio) ou "url" (HTTP)');
    recusa(() => ler({ m: { command: 'x', url: 'http://h' } }), 'servidor "m": use "command" (stdio) ou "url" (HTTP), nao os dois');
    recusa(() => ler({ m: 'npx x' }), 'servidor "m": esperado um objeto');
    recusa(
      () => ler({ m: { type: 'sse', url: 'http://h' } }),
      'servidor "m": campo "type": esperado "http" ou "streamable-http" (SSE nao e suportado)',
    );
    recusa(() => ler({ m: { type: 'http', command: 'x' } }), 'servidor "m": campo "type": esperado "stdio" para um servidor com "command"');
  });

  it('refuses a name that is not fit for a skill id, and two that differ only in case', () => {
    recusa(() => ler({ 'a b': { command: 'x' } }), 'servidor "a b": nome invalido: use so letras, digitos, "_" e "-" (ate 64)');
    recusa(() => ler({ 'a.b': { command: 'x' } }), 'servidor "a.b": nome invalido: use so letras, digitos, "_" e "-" (ate 64)');
    recusa(() => ler({ Memoria: { command: 'x' }, memoria: { command: 'y' } }), 'servidor "memoria": difere de "Memoria" so em maiusculas');
  });

  it('refuses a file with no server, or not the mcpServers shape', () => {
    recusa(() => ler({}), '"mcpServers" vazio: configure pelo menos um servidor');
    recusa(() => lerServidores('{}', ARQUIVO), 'campo "mcpServers": obrigatorio');
    recusa(() => lerServidores('[]', ARQUIVO), 'esperado objeto');
    recusa(() => ler([]), 'campo "mcpServers": esperado objeto');
  });

  it('refuses text that is not JSON without quoting it', () => {
    const texto = '{"mcpServers": {"a": {"url": "x", "headers": {"k": "segredo" "z"}}}}';
    recusa(() => lerServidores(texto, ARQUIVO), `nao e JSON valido (posicao ${String(texto.indexOf('"z"'))})`);
  });

  it('refuses a URL that is not http(s)', () => {
    recusa(() => ler({ web: { url: 'ftp://h/mcp' } }), 'servidor "web": campo "url": esperado uma URL http(s) absoluta');
    recusa(() => ler({ web: { url: '/mcp' } }), 'servidor "web": campo "url": esperado uma URL http(s) absoluta');
  });

  it('refuses a URL with a user or password in it: credentials go in headers', () => {
    const mensagem = 'servidor "web": campo "url": usuario ou senha na URL nao sao aceitos: ponha as credenciais em "headers"';
    recusa(() => ler({ web: { url: 'https://app:segredo@mcp.exemplo.com/mcp' } }), mensagem);
    recusa(() => ler({ web: { url: 'https://segredo@mcp.exemplo.com/mcp' } }), mensagem);
    recusa(() => ler({ web: { url: 'https://:segredo@mcp.exemplo.com/mcp' } }), mensagem);
  });

  it('refuses headers and env that cannot be sent, without their values', () => {
    recusa(
      () => ler({ web: { url: 'http://h', headers: { 'X Chave': 'segredo' } } }),
      'servidor "web": campo "headers.X Chave": nome de cabecalho invalido',
    );
    recusa(
      () => ler({ web: { url: 'http://h', headers: { X: 'segredo\r\nY: z' } } }),
      'servidor "web": campo "headers.X": valor com quebra de linha',
    );
    recusa(() => ler({ web: { url: 'http://h', headers: { X: 1 } } }), 'servidor "web": campo "headers.X": esperado texto');
    recusa(() => ler({ m: { command: 'x', env: { TOKEN: ['segredo'] } } }), 'servidor "m": campo "env.TOKEN": esperado texto');
    recusa(() => ler({ m: { command: 'x', env: { 'A=B': 'segredo' } } }), 'servidor "m": campo "env.A=B": nome de variavel invalido');
  });

  it('refuses a command, args, cwd or tools of the wrong shape', () => {
    recusa(() => ler({ m: { command: '' } }), 'servidor "m": campo "command": vazio');
    recusa(() => ler({ m: { command: 'x', args: '-y pacote' } }), 'servidor "m": campo "args": esperado lista');
    recusa(() => ler({ m: { command: 'x', args: ['-y', 3] } }), 'servidor "m": campo "args.1": esperado texto');
    recusa(() => ler({ m: { command: 'x', cwd: '' } }), 'servidor "m": campo "cwd": vazio');
    recusa(
      () => ler({ m: { command: 'x', tools: [] } }),
      'servidor "m": campo "tools": lista vazia: omita "tools" para oferecer todas as ferramentas',
    );
    recusa(() => ler({ m: { command: 'x', tools: ['a', 'a'] } }), 'servidor "m": campo "tools": nomes repetidos');
  });

  it('names a file it cannot read', () => {
    const arquivo = join(mkdtempSync(join(tmpdir(), 'mcp-config-')), 'nao-existe.json');
    assert.throws(() => lerArquivoDeServidores(arquivo), {
      name: 'Error',
      message: `AGENTE_MCP_CONFIG=${arquivo}: nao foi possivel ler o arquivo (ENOENT)`,
    });
  });
});
