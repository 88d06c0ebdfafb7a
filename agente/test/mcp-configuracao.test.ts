import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { lerArquivoMcp, lerConfiguracaoMcp, lerServidores } from '../src/mcp/configuracao.js';
import { CARD_DA_EQUIPE } from '../../test/apoio/card-da-equipe.js';

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
      transporte: 'streamable-http',
      headers: { Authorization: 'Bearer segredo' },
      tools: ['buscar'],
    });
  });

  it('fills what may be left out: args, env and headers empty, every tool offered', () => {
    assert.deepEqual(ler({ a: { command: 'servidor' }, b: { url: 'http://127.0.0.1:3001/mcp' } }), [
      { nome: 'a', command: 'servidor', args: [], env: {} },
      { nome: 'b', url: new URL('http://127.0.0.1:3001/mcp'), transporte: 'streamable-http', headers: {} },
    ]);
  });

  it('accepts the transport type other clients write, when it matches the entry', () => {
    assert.equal(ler({ a: { type: 'stdio', command: 'x' }, b: { type: 'http', url: 'http://h/mcp' } }).length, 2);
    assert.equal(ler({ b: { type: 'streamable-http', url: 'http://h/mcp' } }).length, 1);
  });

  it('reads the file itself', () => {
    const arquivo = join(mkdtempSync(join(tmpdir(), 'mcp-config-')), 'mcp.json');
    writeFileSync(arquivo, JSON.stringify({ mcpServers: { memoria: { command: 'node', args: ['m.js'] } } }));
    assert.deepEqual(lerArquivoMcp(arquivo).servidores, [{ nome: 'memoria', command: 'node', args: ['m.js'], env: {} }]);
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
      () => ler({ m: { type: 'websocket', url: 'http://h' } }),
      'servidor "m": campo "type": esperado "http", "streamable-http" ou "sse" para um servidor com "url"',
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
    assert.throws(() => lerArquivoMcp(arquivo), {
      name: 'Error',
      message: `AGENTE_MCP_CONFIG=${arquivo}: nao foi possivel ler o arquivo (ENOENT)`,
    });
  });
});

/** The environment `${VAR}` reads in these tests: nothing of the test process's own. */
const AMBIENTE = { TOKEN: 'segredo-do-token', HOST: 'mcp.exemplo.com', NODE: '/usr/bin/node', VAZIA: '' };
const lerNo = (mcpServers: unknown, ambiente: Record<string, string> = AMBIENTE, resto: Record<string, unknown> = {}) =>
  lerConfiguracaoMcp(JSON.stringify({ mcpServers, ...resto }), ARQUIVO, ambiente);

describe('AGENTE_MCP_CONFIG as other clients write it', () => {
  it('reads the transport from "type" or "transport", as each client spells it', () => {
    const [sse, cursor, stdio, ambos] = lerNo({
      sse: { type: 'sse', url: 'http://h/sse' },
      cursor: { transport: 'streamableHttp', url: 'http://h/mcp' },
      stdio: { transport: 'stdio', command: 'x' },
      ambos: { type: 'http', transport: 'http', url: 'http://h/mcp' },
    }).servidores;
    assert.deepEqual(sse, { nome: 'sse', url: new URL('http://h/sse'), transporte: 'sse', headers: {} });
    assert.deepEqual(cursor, { nome: 'cursor', url: new URL('http://h/mcp'), transporte: 'streamable-http', headers: {} });
    assert.deepEqual(stdio, { nome: 'stdio', command: 'x', args: [], env: {} });
    assert.equal(ambos && 'transporte' in ambos && ambos.transporte, 'streamable-http');
    recusa(
      () => ler({ m: { type: 'http', transport: 'sse', url: 'http://h' } }),
      'servidor "m": "type" e "transport" dizem transportes diferentes',
    );
    recusa(
      () => ler({ m: { transport: 'stdio', url: 'http://h' } }),
      'servidor "m": campo "transport": esperado "http", "streamable-http" ou "sse" para um servidor com "url"',
    );
    recusa(() => ler({ m: { type: 1, command: 'x' } }), 'servidor "m": campo "type": esperado "stdio" para um servidor com "command"');
  });

  it('skips a server with "disabled": true, unchecked, and says so; false changes nothing', () => {
    const lido = lerNo({
      desligado: { disabled: true, comand: 'x', url: 'ftp://${NAO_DEFINIDA}' },
      'nome invalido': { disabled: true },
      ligado: { command: 'x', disabled: false },
    });
    assert.deepEqual(lido.servidores, [{ nome: 'ligado', command: 'x', args: [], env: {} }]);
    assert.deepEqual(lido.avisos, [
      { servidor: 'desligado', aviso: 'desativado (disabled: true), nao sera conectado' },
      { servidor: 'nome invalido', aviso: 'desativado (disabled: true), nao sera conectado' },
    ]);
    // A disabled server takes no name: another may differ from it only in case.
    assert.equal(lerNo({ Memoria: { command: 'x', disabled: true }, memoria: { command: 'y' } }).servidores.length, 1);
    recusa(() => ler({ m: { command: 'x', disabled: 'sim' } }), 'servidor "m": campo "disabled": esperado true ou false');
  });

  it('refuses a file whose servers are all disabled', () => {
    recusa(
      () => ler({ a: { command: 'x', disabled: true }, b: { url: 'http://h', disabled: true } }),
      'todos os servidores estao desativados ("disabled": true): ative pelo menos um',
    );
  });

  it('accepts the fields that change nothing here with one warning per server, and refuses those that would', () => {
    const lido = lerNo({
      cline: { command: 'x', autoApprove: ['buscar'], timeout: 60, alwaysAllow: [] },
      rotulado: { url: 'http://h/mcp', description: 'o servidor', title: 'T', name: 'n' },
      um: { command: 'x', description: 'so um' },
    });
    assert.equal(lido.servidores.length, 3);
    assert.deepEqual(lido.avisos, [
      {
        servidor: 'cline',
        aviso:
          'campos ignorados (nada aqui os usa): autoApprove, alwaysAllow, timeout; o prazo de cada pedido e AGENTE_MCP_TIMEOUT_SECONDS',
      },
      { servidor: 'rotulado', aviso: 'campos ignorados (nada aqui os usa): description, title, name' },
      { servidor: 'um', aviso: 'campo ignorado (nada aqui o usa): description' },
    ]);
    recusa(() => ler({ m: { command: 'x', disabledTools: ['a'] } }), 'servidor "m": campo desconhecido "disabledTools"');
    recusa(() => ler({ m: { url: 'http://h', oauth: {} } }), 'servidor "m": campo desconhecido "oauth"');
  });
});

describe('AGENTE_MCP_CONFIG, ${VAR} from the environment', () => {
  it('expands url and header values; a default is used when the variable is unset or empty, and is no secret', () => {
    const [web] = lerNo({
      web: {
        url: 'https://${HOST}/v1/mcp?k=${env:TOKEN}',
        headers: { Authorization: 'Bearer ${TOKEN}', 'X-Origem': '${ORIGEM:-ponte}', 'X-Vazia': '${VAZIA:-padrao}', 'X-Nada': '${VAZIA}' },
        tools: ['${TOKEN}'],
      },
    }).servidores;
    assert.deepEqual(web, {
      nome: 'web',
      url: new URL('https://mcp.exemplo.com/v1/mcp?k=segredo-do-token'),
      transporte: 'streamable-http',
      headers: { Authorization: 'Bearer segredo-do-token', 'X-Origem': 'ponte', 'X-Vazia': 'padrao', 'X-Nada': '' },
      // Names, not values: tools are never expanded.
      tools: ['${TOKEN}'],
      variaveis: { HOST: 'mcp.exemplo.com', TOKEN: 'segredo-do-token' },
      urlComoEscrita: 'https://${HOST}/v1/mcp',
    });
  });

  it('expands command, args, env values and cwd; env names never', () => {
    const [local] = lerNo({
      local: {
        command: '${NODE}',
        args: ['${BASE:-/srv}/servidor.js', '--token=${TOKEN}'],
        env: { API_KEY: '${TOKEN}', '${HOST}': 'literal' },
        cwd: '${DIR:-/tmp}',
      },
    }).servidores;
    assert.deepEqual(local, {
      nome: 'local',
      command: '/usr/bin/node',
      args: ['/srv/servidor.js', '--token=segredo-do-token'],
      env: { API_KEY: 'segredo-do-token', '${HOST}': 'literal' },
      cwd: '/tmp',
      variaveis: { NODE: '/usr/bin/node', TOKEN: 'segredo-do-token' },
      comandoComoEscrito: '${NODE}',
    });
  });

  it('shows a URL or command as written only where a variable stands in what messages show', () => {
    const [soNaQuery, noCaminho, soNoDiretorio, comandoComPadrao] = lerNo({
      a: { url: 'http://h/mcp?k=${TOKEN}' },
      b: { url: '${BASE:-http://h}/mcp/${TOKEN}#x' },
      c: { command: '${NODE}/../bin/servidor' },
      d: { command: '${NODE_BIN:-/usr/bin/node}' },
    }).servidores;
    assert.ok(soNaQuery && !('urlComoEscrita' in soNaQuery));
    assert.equal(noCaminho && 'url' in noCaminho && noCaminho.urlComoEscrita, '${BASE:-http://h}/mcp/${TOKEN}');
    assert.ok(soNoDiretorio && !('comandoComoEscrito' in soNoDiretorio));
    assert.equal(comandoComPadrao && 'command' in comandoComPadrao && comandoComPadrao.comandoComoEscrito, '${NODE_BIN:-/usr/bin/node}');
  });

  it('stops at an unset variable without a default, naming the server, the field and the variable', () => {
    recusa(
      () => lerNo({ web: { url: 'http://h/mcp', headers: { Authorization: 'Bearer ${TOKEN_DA_API}' } } }, { OUTRA: 'segredo' }),
      'servidor "web": campo "headers.Authorization": a variavel de ambiente TOKEN_DA_API nao esta definida; defina-a ou de um padrao: ${TOKEN_DA_API:-padrao}',
    );
    recusa(
      () => lerNo({ m: { command: 'x', args: ['-y', '--chave=${CHAVE}'] } }, {}),
      'servidor "m": campo "args.1": a variavel de ambiente CHAVE nao esta definida; defina-a ou de um padrao: ${CHAVE:-padrao}',
    );
    recusa(
      () => lerNo({ m: { command: 'x', env: { K: '${TOKEN}${CHAVE}' } } }),
      'servidor "m": campo "env.K": a variavel de ambiente CHAVE nao esta definida; defina-a ou de um padrao: ${CHAVE:-padrao}',
    );
  });

  it('refuses a reference that is not one, rather than sending it as written', () => {
    for (const url of ['http://h/${1X}', 'http://h/${X', 'http://${A:-${B}}/mcp', 'http://h/${env:}', 'http://h/${A B}'])
      recusa(() => lerNo({ web: { url } }), 'servidor "web": campo "url": referencia mal formada: escreva ${NOME} ou ${NOME:-padrao}');
  });

  it('refuses an expanded value that breaks a rule, without quoting it', () => {
    const ambiente = { QUEBRA: 'segredo\r\nX-Outro: 1', URL_RUIM: 'ftp://segredo/mcp', COM_SENHA: 'https://u:segredo@h/mcp' };
    recusa(
      () => lerNo({ web: { url: 'http://h', headers: { X: '${QUEBRA}' } } }, ambiente),
      'servidor "web": campo "headers.X": valor com quebra de linha',
    );
    recusa(() => lerNo({ web: { url: '${URL_RUIM}' } }, ambiente), 'servidor "web": campo "url": esperado uma URL http(s) absoluta');
    recusa(
      () => lerNo({ web: { url: '${COM_SENHA}' } }, ambiente),
      'servidor "web": campo "url": usuario ou senha na URL nao sao aceitos: ponha as credenciais em "headers"',
    );
  });
});

describe('AGENTE_MCP_CONFIG, agentCard', () => {
  const servidores = { a: { command: 'x' } };

  it('reads every field it knows; absent, it is empty', () => {
    assert.deepEqual(lerNo(servidores, AMBIENTE, { agentCard: CARD_DA_EQUIPE }).card, CARD_DA_EQUIPE);
    assert.deepEqual(lerNo(servidores, AMBIENTE, { agentCard: { name: 'So o nome' } }).card, { name: 'So o nome' });
    assert.deepEqual(lerNo(servidores).card, {});
  });

  it('refuses a field it does not know, or of the wrong shape, naming it', () => {
    const com = (agentCard: unknown) => () => lerNo(servidores, AMBIENTE, { agentCard });
    recusa(com({ ...CARD_DA_EQUIPE, skills: [] }), 'em "agentCard": campo desconhecido "skills"');
    recusa(com({ provider: { organization: 'x', url: 'https://x', email: 'e' } }), 'em "agentCard.provider": campo desconhecido "email"');
    recusa(com({ provider: { organization: 'x' } }), 'campo "agentCard.provider.url": obrigatorio');
    recusa(com({ iconUrl: 'file:///icone.png' }), 'campo "agentCard.iconUrl": esperado uma URL http(s) absoluta');
    recusa(com({ documentationUrl: 'docs' }), 'campo "agentCard.documentationUrl": esperado uma URL http(s) absoluta');
    recusa(com({ name: '' }), 'campo "agentCard.name": vazio');
    recusa(com({ version: 2 }), 'campo "agentCard.version": esperado texto');
    recusa(com('A Ponte'), 'campo "agentCard": esperado objeto');
  });
});
