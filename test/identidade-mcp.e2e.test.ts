/**
 * Identity on the MCP side, opt-in: with MCP_TOKENS every /mcp request needs
 * a Bearer token of a configured identity (the SDK's bearer-auth pieces, a
 * static verifier), the 401 points at the RFC 9728 metadata document, the
 * Server Card says authorization is required, and the agent calls with its
 * own MCP_TOKEN. Real processes, over HTTP. Tokens never reach a log line.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { Identidades } from 'compartilhado/identidade';
import * as z from 'zod';
import { chamar } from './apoio/mcp.js';
import { enviar, estado, mensagem } from './apoio/a2a.js';
import { postarCru } from './apoio/http-cru.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';

const token = () => randomBytes(24).toString('base64url');

describe('Identidades: MCP_TOKENS and AGENTE_TOKENS as read at start', () => {
  const ler = (valor: string) => Identidades.ler({ TOKENS: valor }, 'TOKENS');
  it('unset or empty is no authentication', () => {
    assert.equal(Identidades.ler({}, 'TOKENS'), undefined);
    assert.equal(ler('  '), undefined);
  });
  it('finds the name of a token, and only of a whole token', () => {
    const [a, b] = [token(), token()];
    const identidades = ler(` ana:${a} , bia:${b}`);
    assert.ok(identidades);
    assert.deepEqual(identidades.nomes, ['ana', 'bia']);
    assert.equal(identidades.quem(a), 'ana');
    assert.equal(identidades.quem(b), 'bia');
    assert.equal(identidades.quem(a.slice(1)), undefined);
    assert.equal(identidades.quem(''), undefined);
  });
  it('refuses a malformed list in one line naming the entry, never quoting a token', () => {
    const segredo = token();
    const casos: [string, RegExp][] = [
      [`:${segredo}`, /^TOKENS: a entrada 1 nao tem nome;/],
      [`ana:${segredo},${token()}`, /^TOKENS: a entrada 2 nao tem nome;/],
      [`ana:curto`, /^TOKENS: o token da a entrada 1 tem menos de 32 caracteres;/],
      [`ana:${segredo},ana:${token()}`, /^TOKENS: as entradas 1 e 2 tem o mesmo nome;/],
      [`ana:${segredo},bia:${segredo}`, /^TOKENS: as entradas 1 e 2 tem o mesmo token;/],
      [`a na:${segredo}`, /^TOKENS: a entrada 1 tem um nome com mais de 31 caracteres ou fora/],
      [`ana:${segredo} ${segredo}`, /^TOKENS: o token da a entrada 1 tem caracteres que um cabecalho Bearer nao leva;/],
      // Written backwards: the token is where the name goes, and is never quoted.
      [`${segredo}:ana`, /^TOKENS: a entrada 1 tem um nome com mais de 31 caracteres/],
      [`unknown:${segredo}`, /^TOKENS: a entrada 1 usa o nome reservado "unknown";/],
    ];
    for (const [valor, esperado] of casos)
      assert.throws(
        () => ler(valor),
        (erro: unknown) => erro instanceof ConfiguracaoInvalida && esperado.test(erro.message) && !erro.message.includes(segredo),
        valor,
      );
  });
});

describe('MCP_TOKENS on the MCP server', () => {
  const doAgente = token();
  const daAna = token();
  let mcp: Processo;
  before(async () => {
    mcp = await iniciarServidorMcp({ MCP_TOKENS: `agente:${doAgente},ana:${daAna}` });
  });
  after(() => mcp.parar());

  const metadados = () => new URL('/.well-known/oauth-protected-resource/mcp', mcp.url).href;

  it('refuses a missing, unknown, short or malformed Authorization with 401 and the Bearer challenge', async () => {
    const casos: [string, Record<string, string>, string][] = [
      ['sem cabecalho', {}, 'Missing Authorization header'],
      ['Bearer sem token', { authorization: 'Bearer' }, "Invalid Authorization header format, expected 'Bearer TOKEN'"],
      ['outro esquema', { authorization: `Basic ${daAna}` }, "Invalid Authorization header format, expected 'Bearer TOKEN'"],
      ['token curto', { authorization: 'Bearer curto' }, 'Token desconhecido'],
      ['token desconhecido', { authorization: `Bearer ${token()}` }, 'Token desconhecido'],
      [
        'token bom seguido de lixo',
        { authorization: `Bearer ${daAna} lixo` },
        "Invalid Authorization header format, expected 'Bearer TOKEN'",
      ],
    ];
    for (const [caso, headers, descricao] of casos) {
      const resposta = await chamar(mcp.url, { metodo: 'tools/list', headers });
      assert.equal(resposta.status, 401, caso);
      assert.equal(
        resposta.headers.get('www-authenticate'),
        `Bearer error="invalid_token", error_description="${descricao}", resource_metadata="${metadados()}"`,
        caso,
      );
      assert.deepEqual(JSON.parse(resposta.texto), { error: 'invalid_token', error_description: descricao }, caso);
    }
    // The log line says why, never with the header's value.
    await mcp.esperarLinha(/http=401 resultado=- motivo="Missing Authorization header"/);
    assert.ok(!mcp.linhas.some((l) => l.includes(daAna)), 'no token in any line');
  });

  it('refuses two Authorization headers, even when the first is good', async () => {
    const status = await postarCru(
      new URL(mcp.url),
      ['content-type', 'application/json', 'authorization', `Bearer ${daAna}`, 'authorization', `Bearer ${doAgente}`],
      '{}',
    );
    assert.equal(status, 401);
    await mcp.esperarLinha(/http=401/);
  });

  it('serves a known token, names the caller in the log line, and never writes a token', async () => {
    const resposta = await chamar(mcp.url, { metodo: 'tools/list', headers: { authorization: `Bearer ${daAna}` }, id: 'com-token' });
    assert.equal(resposta.status, 200, resposta.texto);
    assert.ok(resposta.corpo?.result, resposta.texto);
    const linha = await mcp.esperarLinha(/id="com-token"/);
    assert.match(linha, / quem=ana /);
    assert.ok(!mcp.linhas.some((l) => l.includes(daAna) || l.includes(doAgente)), 'no token in any line');
  });

  it('publishes the Protected Resource Metadata (RFC 9728) without a token, and the card says a token is required', async () => {
    const resposta = await fetch(metadados());
    assert.equal(resposta.status, 200);
    assert.equal(resposta.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await resposta.json(), {
      resource: mcp.url,
      bearer_methods_supported: ['header'],
      resource_name: 'Central de Salas da Hill Valley Tech (MCP)',
    });
    const card = z
      .looseObject({ authentication: z.unknown() })
      .parse(await (await fetch(new URL('/.well-known/mcp/server-card.json', mcp.url))).json());
    assert.deepEqual(card.authentication, { required: true, schemes: ['bearer'] });
  });

  it('the agent calls with its MCP_TOKEN; without it, or with another, the Task fails naming the MCP server and never the token', async () => {
    const comToken = await iniciarAgente(mcp.url, { MCP_TOKEN: doAgente });
    const semToken = await iniciarAgente(mcp.url);
    const errado = token();
    const comOutro = await iniciarAgente(mcp.url, { MCP_TOKEN: errado });
    try {
      const servida = await enviar(comToken.url, 'listar salas');
      assert.equal(estado(servida), 'TASK_STATE_COMPLETED', mensagem(servida));
      await mcp.esperarLinha(/metodo=tools\/call .* quem=agente /);
      for (const agente of [semToken, comOutro]) {
        const recusada = await enviar(agente.url, 'listar salas');
        assert.equal(estado(recusada), 'TASK_STATE_FAILED');
        assert.equal(
          mensagem(recusada),
          `O servidor MCP em ${mcp.url} recusou as credenciais do agente (HTTP 401): confira o MCP_TOKEN do agente e o MCP_TOKENS do servidor.`,
        );
      }
      for (const processo of [comToken, semToken, comOutro, mcp])
        assert.ok(!processo.linhas.some((l) => l.includes(doAgente) || l.includes(errado)), 'no token in any log line');
    } finally {
      await Promise.all([comToken.parar(), semToken.parar(), comOutro.parar()]);
    }
  });
});

describe('identity configuration at start', () => {
  it('a malformed MCP_TOKENS or MCP_TOKEN stops the process with one clear line', async () => {
    const segredo = token();
    await assert.rejects(iniciarServidorMcp({ MCP_TOKENS: `ana:${segredo},ana:${token()}` }), (erro: Error) => {
      assert.match(erro.message, /servidor-mcp nao subiu: MCP_TOKENS: as entradas 1 e 2 tem o mesmo nome;/);
      assert.doesNotMatch(erro.message, new RegExp(segredo));
      return true;
    });
    await assert.rejects(
      iniciarAgente('http://localhost:1/mcp', { MCP_TOKEN: 'curto' }),
      /agente nao subiu: MCP_TOKEN: esperado um token Bearer/,
    );
  });

  it('with MCP_TOKENS, MCP_URL must be the /mcp URL without query or fragment, and a wildcard host needs it', async () => {
    for (const url of [
      'https://salas.example/api/mcp',
      'https://salas.example/mcp?x=1',
      'https://salas.example/mcp#f',
      'salas.example/mcp',
    ])
      await assert.rejects(
        iniciarServidorMcp({ MCP_TOKENS: `ana:${token()}`, MCP_URL: url }),
        /MCP_URL=.*: esperado http\(s\):\/\/host\[:porta\]\/mcp/,
      );
    await assert.rejects(
      iniciarServidorMcp({ MCP_TOKENS: `ana:${token()}`, MCP_HOST: '0.0.0.0' }),
      /MCP_TOKENS com MCP_HOST=0\.0\.0\.0: defina MCP_URL/,
    );
  });

  it('without MCP_TOKENS nothing asks for a token, MCP_URL is not read, and no metadata document exists (the course default)', async () => {
    const mcp = await iniciarServidorMcp({ MCP_URL: 'nem-e-url' });
    try {
      const resposta = await chamar(mcp.url, { metodo: 'tools/list' });
      assert.equal(resposta.status, 200);
      assert.equal((await fetch(new URL('/.well-known/oauth-protected-resource/mcp', mcp.url))).status, 404);
      assert.doesNotMatch(mcp.linhas.join('\n'), /quem=/);
    } finally {
      await mcp.parar();
    }
  });

  it('MCP_URL names the resource as clients reach it', async () => {
    const mcp = await iniciarServidorMcp({ MCP_TOKENS: `ana:${token()}`, MCP_URL: 'https://salas.hillvalley.example/mcp' });
    try {
      const resposta = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', mcp.url));
      assert.equal(z.looseObject({ resource: z.string() }).parse(await resposta.json()).resource, 'https://salas.hillvalley.example/mcp');
      const recusa = await chamar(mcp.url, { metodo: 'tools/list' });
      assert.match(
        recusa.headers.get('www-authenticate') ?? '',
        /resource_metadata="https:\/\/salas\.hillvalley\.example\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
    } finally {
      await mcp.parar();
    }
  });
});
