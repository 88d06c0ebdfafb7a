/**
 * What leaves mcp/ names a server without its credentials (mcp/descricao.ts):
 * a stdio server's args and an HTTP URL's query reach neither the error a
 * call throws (a Task's message is made of it), nor the start-up failure
 * line, nor the log.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { Catalogo, fontesDe } from '../src/mcp/catalogo.js';
import { ClienteMcp, credenciaisRecusadas } from '../src/mcp/cliente.js';
import { lerServidores, type ServidorConfigurado } from '../src/mcp/configuracao.js';
import { limparErro, ondeEsta, semSegredos } from '../src/mcp/descricao.js';
import { ConexaoGenerica } from '../src/mcp/generica.js';
import { ChamadaNaoEnviada } from '../src/mcp/naoEnviada.js';
import { portaLivre } from './apoio.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const BANCO = 'postgresql://app:SENHA@db/prod';

const ler = (mcpServers: Record<string, unknown>, ambiente: Record<string, string> = {}) =>
  lerServidores(JSON.stringify({ mcpServers }), 'teste.json', ambiente);

/** A call to the server's tool, and what the caller and the log could see of it: the error inspected whole (causes, data, stack). */
async function chamarEmVao(servidor: ServidorConfigurado) {
  const linhas: string[] = [];
  const conexao = new ConexaoGenerica(servidor, (linha) => linhas.push(linha), 2_000);
  try {
    const erro = await conexao.chamar('consultar', {}, { traceparent: TRACEPARENT }).then(
      () => assert.fail('a chamada deveria falhar'),
      (erro: unknown) => erro,
    );
    assert.ok(erro instanceof Error);
    return { conexao, erro, inteiro: inspect(erro, { depth: null }), linhas };
  } finally {
    await conexao.fechar();
  }
}

/** The start-up failure line for this server, and the log. */
async function montarEmVao(servidor: ServidorConfigurado) {
  const linhas: string[] = [];
  const log = (linha: string) => linhas.push(linha);
  const erro = await Catalogo.montar(fontesDe([servidor], log, 2_000), log, TRACEPARENT).then(
    () => assert.fail('o catalogo deveria falhar'),
    (erro: unknown) => erro,
  );
  assert.ok(erro instanceof ConfiguracaoInvalida);
  return { mensagem: erro.message, linhas };
}

describe('a server named without its credentials', () => {
  it("stdio: by the command's file name and the server's name; its args reach no error and no log line", async () => {
    const [servidor] = ler({ banco: { command: '/nao/existe/servidor-pg', args: ['--url', BANCO] } });
    assert.ok(servidor);
    assert.equal(ondeEsta(servidor), 'stdio servidor-pg de banco');

    const { conexao, erro, inteiro, linhas } = await chamarEmVao(servidor);
    assert.equal(conexao.onde, 'stdio servidor-pg de banco');
    assert.ok(erro instanceof ChamadaNaoEnviada, 'nothing was sent: the child never started');
    assert.equal(erro.message, 'spawn /nao/existe/servidor-pg ENOENT');
    // The spawn failure itself stays the cause, without the args Node put on it.
    assert.equal((erro.cause as { code?: unknown } | undefined)?.code, 'ENOENT');
    for (const visto of [inteiro, ...linhas]) assert.ok(!visto.includes('SENHA'), visto);

    const partida = await montarEmVao(servidor);
    assert.equal(partida.mensagem, 'servidor MCP "banco" (stdio servidor-pg de banco) inacessivel: spawn /nao/existe/servidor-pg ENOENT');
    for (const visto of partida.linhas) assert.ok(!visto.includes('SENHA'), visto);
  });

  it('HTTP: by origin and path; its query reaches no error and no log line', async () => {
    const porta = await portaLivre();
    const [servidor] = ler({ web: { url: `http://127.0.0.1:${String(porta)}/mcp?token=abc` } });
    assert.ok(servidor);
    const onde = `http://127.0.0.1:${String(porta)}/mcp`;
    assert.equal(ondeEsta(servidor), onde);

    const { conexao, erro, inteiro, linhas } = await chamarEmVao(servidor);
    assert.equal(conexao.onde, onde);
    assert.ok(erro instanceof ChamadaNaoEnviada, 'nothing was sent: the session could not open');
    assert.match(erro.message, /fetch failed/);
    assert.ok(linhas.length > 0, 'the failed request is logged');
    for (const visto of [inteiro, ...linhas]) assert.ok(!visto.includes('abc'), visto);

    const partida = await montarEmVao(servidor);
    assert.match(
      partida.mensagem,
      new RegExp(`^servidor MCP "web" \\(${onde.replace(/[.?]/g, '\\$&')}\\) inacessivel: [^\\n]*fetch failed$`),
    );
    for (const visto of [partida.mensagem, ...partida.linhas]) assert.ok(!visto.includes('abc'), visto);
  });

  it("the room server's connection (MCP_URL) is shown the same way", () => {
    const url = new URL('http://127.0.0.1:3001/mcp?token=abc');
    assert.equal(new ClienteMcp(url, () => undefined).onde, 'http://127.0.0.1:3001/mcp');
    const recusa = credenciaisRecusadas(new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'HTTP 401', { status: 401 }), url);
    assert.equal(
      recusa,
      'O servidor MCP em http://127.0.0.1:3001/mcp recusou as credenciais do agente (HTTP 401): confira o MCP_TOKEN do agente e o MCP_TOKENS do servidor.',
    );
  });

  it('a URL that fetch quotes whole in its error (userinfo, which the configuration refuses) leaves described, in the error and the log', async () => {
    const porta = await portaLivre();
    const servidor = {
      nome: 'web',
      url: new URL(`http://app:SENHA@127.0.0.1:${String(porta)}/mcp?token=abc`),
      transporte: 'streamable-http' as const,
      headers: {},
    };
    const { erro, inteiro, linhas } = await chamarEmVao(servidor);
    assert.equal(
      erro.message,
      `Version negotiation probe failed: Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:${String(porta)}/mcp`,
    );
    assert.ok(linhas.some((linha) => linha.includes(`URL that includes credentials: http://127.0.0.1:${String(porta)}/mcp"`)));
    for (const visto of [inteiro, ...linhas]) assert.ok(!visto.includes('SENHA') && !visto.includes('abc'), visto);
  });

  it('semSegredos: the URL whole becomes its description; its query and fragment, anywhere, as written or decoded, go', () => {
    const [servidor] = ler({ web: { url: 'https://mcp.exemplo.com/mcp?token=a%20b#frag' } });
    assert.ok(servidor);
    const limpar = semSegredos(servidor);
    assert.equal(limpar('falhou em https://mcp.exemplo.com/mcp?token=a%20b#frag.'), 'falhou em https://mcp.exemplo.com/mcp.');
    assert.equal(limpar('POST /mcp?token=a%20b -> 502'), 'POST /mcp -> 502');
    assert.equal(limpar('parametro token=a b recusado'), 'parametro  recusado');
    assert.equal(limpar('nada a esconder'), 'nada a esconder');
    const [stdio] = ler({ banco: { command: 'servidor-pg', args: [BANCO] } });
    assert.ok(stdio);
    assert.equal(semSegredos(stdio)(`texto com ${BANCO}`), `texto com ${BANCO}`);
  });

  it('limparErro: the error and all it wraps, in place, its class and code kept; a spawn failure loses its args', () => {
    const [servidor] = ler({ web: { url: 'https://mcp.exemplo.com/mcp?token=abc' } });
    assert.ok(servidor);
    const url = 'https://mcp.exemplo.com/mcp?token=abc';
    const funda = Object.assign(new Error(`spawn x ENOENT (${url})`), { spawnargs: [BANCO] });
    const agregada = new AggregateError([funda], `varias: ${url}`);
    const doSdk = new SdkError(SdkErrorCode.EraNegotiationFailed, `probe: ${url}`, { cause: agregada });
    const erro = new ChamadaNaoEnviada(`nao foi: ${url}`, doSdk);
    limparErro(erro, semSegredos(servidor));
    assert.ok(erro instanceof ChamadaNaoEnviada && erro instanceof SdkError);
    assert.equal(erro.code, SdkErrorCode.EraNegotiationFailed);
    assert.equal(erro.cause, doSdk);
    assert.deepEqual(
      [erro.message, doSdk.message, agregada.message, funda.message],
      [
        'nao foi: https://mcp.exemplo.com/mcp',
        'probe: https://mcp.exemplo.com/mcp',
        'varias: https://mcp.exemplo.com/mcp',
        'spawn x ENOENT (https://mcp.exemplo.com/mcp)',
      ],
    );
    assert.ok(!('spawnargs' in funda));
    const inteiro = inspect(erro, { depth: null });
    assert.ok(!inteiro.includes('abc') && !inteiro.includes('SENHA'), inteiro);
    // An abort's DOMException, whose message is a getter, is cleared too.
    const abortada = new DOMException(`abortada em ${url}`, 'AbortError');
    limparErro(abortada, semSegredos(servidor));
    assert.equal(abortada.message, 'abortada em https://mcp.exemplo.com/mcp');
    assert.equal(abortada.name, 'AbortError');
  });

  it('a value from ${VAR}: where a server is shown, as the file writes it; in any other text, its reference', async () => {
    const porta = await portaLivre();
    const ambiente = { HOST: '127.0.0.1', PORTA: String(porta), CHAVE: 'chave-secreta-123', TOKEN: 'token-secreto-456', CURTA: 'v1' };
    const [servidor] = ler(
      { web: { url: 'http://${HOST}:${PORTA}/${CURTA}/${CHAVE}/mcp?k=${TOKEN}', headers: { 'X-Token': '${TOKEN}' } } },
      ambiente,
    );
    assert.ok(servidor);
    assert.equal(ondeEsta(servidor), 'http://${HOST}:${PORTA}/${CURTA}/${CHAVE}/mcp');
    const limpar = semSegredos(servidor);
    assert.equal(
      limpar(`falhou em http://127.0.0.1:${String(porta)}/v1/chave-secreta-123/mcp?k=token-secreto-456`),
      'falhou em http://${HOST}:${PORTA}/${CURTA}/${CHAVE}/mcp',
    );
    assert.equal(limpar('Cannot POST /v1/chave-secreta-123/mcp'), 'Cannot POST /v1/${CHAVE}/mcp');
    assert.equal(limpar('token invalido: token-secreto-456'), 'token invalido: ${TOKEN}');
    // Too short to be a credential, and likely in other words: shown only as the file writes it, where the server is named.
    assert.equal(limpar(`versao v1 na porta ${String(porta)}`), `versao v1 na porta ${String(porta)}`);

    const { conexao, erro, inteiro, linhas } = await chamarEmVao(servidor);
    assert.equal(conexao.onde, 'http://${HOST}:${PORTA}/${CURTA}/${CHAVE}/mcp');
    assert.ok(erro instanceof ChamadaNaoEnviada);
    for (const visto of [inteiro, ...linhas]) assert.ok(!/chave-secreta|token-secreto|127\.0\.0\.1/.test(visto), visto);
    const partida = await montarEmVao(servidor);
    assert.match(partida.mensagem, /^servidor MCP "web" \(http:\/\/\$\{HOST\}:\$\{PORTA\}\/\$\{CURTA\}\/\$\{CHAVE\}\/mcp\) inacessivel: /);
    for (const visto of [partida.mensagem, ...partida.linhas]) assert.ok(!/chave-secreta|token-secreto|127\.0\.0\.1/.test(visto), visto);
  });

  it('a command from ${VAR}: shown as the file writes it, and the spawn failure says its reference', async () => {
    const [servidor] = ler(
      { banco: { command: '${SERVIDOR_PG}', args: ['--url', '${BANCO}'] } },
      { SERVIDOR_PG: '/nao/existe/servidor-pg', BANCO },
    );
    assert.ok(servidor);
    assert.equal(ondeEsta(servidor), 'stdio ${SERVIDOR_PG} de banco');
    const { erro, inteiro, linhas } = await chamarEmVao(servidor);
    assert.equal(erro.message, 'spawn ${SERVIDOR_PG} ENOENT');
    for (const visto of [inteiro, ...linhas]) assert.ok(!visto.includes('SENHA') && !visto.includes('/nao/existe'), visto);
  });
});
