/**
 * The mcpServers file as other MCP clients write it (issue 32), on the real
 * agent process: the transport named by `type` (SSE included), a server
 * switched off with `disabled`, fields that change nothing here, `${VAR}`
 * and `${VAR:-padrao}` read from the agent's environment, and `agentCard`
 * over the generic card, signed. Then `npm start` with a servers file: the
 * agent alone. Every process on a free port; a token made here.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import * as z from 'zod';
import { clienteOficial, comoTarefa, dados, nomeDoEstado, textoDe } from './apoio/cliente-a2a.js';
import {
  iniciarAgenteGenerico,
  iniciarEverything,
  memoria,
  pastaTemporaria,
  portaLivre,
  type Pasta,
  type ServidorExterno,
} from './apoio/ponte-generica.js';
import { iniciarServidorMcp, type Processo } from './apoio/processos.js';
import { iniciar } from '../scripts/processos.js';
import { CARD_DA_EQUIPE } from './apoio/card-da-equipe.js';

const CARD = '/.well-known/agent-card.json';

/** Whether something accepts TCP connections on the port (the connection is closed at once, sending nothing). */
const aceita = (porta: number) =>
  new Promise<boolean>((resolver) => {
    const conexao = connect(porta, '127.0.0.1');
    conexao.once('connect', () => {
      conexao.destroy();
      resolver(true);
    });
    conexao.once('error', () => resolver(false));
  });

/** A refused connection (the port not open), as undici reports it. */
const recusada = (erro: unknown) => erro instanceof TypeError && (erro.cause as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';

const Card = z.looseObject({
  name: z.string(),
  description: z.string(),
  version: z.string(),
  skills: z.array(z.looseObject({ id: z.string() })),
  signatures: z.array(z.object({ protected: z.string(), signature: z.string() })).optional(),
});

async function lerCard(base: string): Promise<{ texto: string; card: z.infer<typeof Card>; json: unknown }> {
  const resposta = await fetch(new URL(CARD, base));
  assert.equal(resposta.status, 200);
  const texto = await resposta.text();
  const json: unknown = JSON.parse(texto);
  return { texto, card: Card.parse(json), json };
}

/** A file in `pasta` with this JSON, its path returned (the whole file: mcpServers and agentCard). */
function arquivo(pasta: Pasta, conteudo: unknown, nome = 'mcp.json'): string {
  const caminho = join(pasta.caminho, nome);
  writeFileSync(caminho, JSON.stringify(conteudo, null, 2));
  return caminho;
}

describe('a file as other clients write it: a header from ${VAR}, a server disabled, fields ignored, agentCard', () => {
  // A Bearer token of the room server's MCP_TOKENS: it answers only when the header the agent sends carries it.
  const token = randomBytes(24).toString('base64url');
  let pasta: Pasta | undefined;
  let mcp: Processo | undefined;
  let agente: Processo | undefined;
  before(async () => {
    pasta = pastaTemporaria();
    mcp = await iniciarServidorMcp({ MCP_TOKENS: `ponte:${token}` });
    const chave = join(pasta.caminho, 'card.pem');
    writeFileSync(chave, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 });
    const config = arquivo(pasta, {
      mcpServers: {
        salas: {
          type: 'streamableHttp',
          // Unset in the agent's environment: the default is the URL.
          url: `\${SALAS_URL:-${mcp.url}}`,
          headers: { Authorization: 'Bearer ${TOKEN_DAS_SALAS}' },
          autoApprove: ['listar_salas'],
          timeout: 60,
        },
        // Never read: its unset variable and its command that does not exist stop nothing.
        desligado: { command: '/nao/existe', args: ['${NAO_DEFINIDA}'], disabled: true },
      },
      agentCard: CARD_DA_EQUIPE,
    });
    agente = await iniciarAgenteGenerico(config, { TOKEN_DAS_SALAS: token, AGENTE_CHAVE_CARD: chave });
  });
  after(async () => {
    await agente?.parar();
    await mcp?.parar();
    pasta?.apagar();
  });
  const iniciados = () => {
    assert.ok(agente && mcp, 'both processes started');
    return { agente, mcp };
  };

  it('the MCP server receives the expanded header: it names the identity of the token, for tools/list and tools/call', async () => {
    const { agente, mcp } = iniciados();
    await mcp.esperarLinha(/metodo=tools\/list .* quem=ponte /);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const task = comoTarefa(await cliente.sendMessage(dados({ name: 'salas.listar_salas', arguments: {} })));
    assert.equal(nomeDoEstado(task), 'TASK_STATE_COMPLETED', textoDe(task.status?.message?.parts));
    await mcp.esperarLinha(/metodo=tools\/call .* quem=ponte /);
  });

  it("says once, in the file's order, that it ignores the fields that change nothing and skipped the disabled server", () => {
    const { agente } = iniciados();
    const avisos = agente.linhas.filter((linha) => linha.startsWith('mcp! ') && linha.includes(' aviso='));
    assert.deepEqual(avisos, [
      'mcp! servidor=salas aviso="campos ignorados (nada aqui os usa): autoApprove, timeout; o prazo de cada pedido e AGENTE_MCP_TIMEOUT_SECONDS"',
      'mcp! servidor=desligado aviso="desativado (disabled: true), nao sera conectado"',
    ]);
    assert.ok(!agente.linhas.some((linha) => linha.includes('desligado') && !avisos.includes(linha)), agente.linhas.join('\n'));
  });

  it('serves the card with the agentCard fields, signed: the SDK verifies it against the JWKS', async (t) => {
    const { agente } = iniciados();
    const { card, json } = await lerCard(agente.url);
    const { name, description, version, provider, documentationUrl, iconUrl } = card;
    assert.deepEqual({ name, description, version, provider, documentationUrl, iconUrl }, CARD_DA_EQUIPE);
    assert.ok(
      card.skills.some(({ id }) => id === 'salas.listar_salas'),
      'the skills are still the tools',
    );
    assert.equal(card.signatures?.length, 1);
    // The SDK's verifier tells each failed signature to console.debug.
    t.mock.method(console, 'debug', () => undefined);
    const verificar = verifyAgentCardSignature(async (kid, jku) => {
      assert.equal(jku, new URL('/.well-known/jwks.json', agente.url).href);
      const { keys } = z
        .object({ keys: z.array(z.looseObject({ kid: z.string() })) })
        .parse(await (await fetch(new URL('/.well-known/jwks.json', agente.url))).json());
      const chave = keys.find((lida) => lida.kid === kid);
      assert.ok(chave, `the JWKS has the key ${kid}`);
      return createPublicKey({ key: chave, format: 'jwk' });
    });
    // The JSON form as served, which the verifier reads through AgentCard.fromJSON.
    await verificar(json as AgentCard);
    await assert.rejects(verificar({ ...(json as object), name: 'Outro' } as AgentCard), /No valid signatures found on agent card/);
  });

  it('no log line and no card shows the token', async () => {
    const { agente } = iniciados();
    const { texto } = await lerCard(agente.url);
    assert.ok(!texto.includes(token));
    for (const linha of agente.linhas) assert.ok(!linha.includes(token), linha);
  });
});

describe('type "sse": server-everything over the HTTP+SSE transport', () => {
  let pasta: Pasta | undefined;
  let everything: ServidorExterno | undefined;
  let agente: Processo | undefined;
  before(async () => {
    pasta = pastaTemporaria();
    everything = await iniciarEverything(20_000, 'sse');
    agente = await iniciarAgenteGenerico(arquivo(pasta, { mcpServers: { everything: { type: 'sse', url: everything.url } } }));
  });
  after(async () => {
    await agente?.parar();
    await everything?.parar();
    pasta?.apagar();
  });

  it('its tools are skills, and a call goes over the stream and its POSTs', async () => {
    assert.ok(agente && everything);
    const { card } = await lerCard(agente.url);
    assert.ok(
      card.skills.some(({ id }) => id === 'everything.echo'),
      card.skills.map(({ id }) => id).join(', '),
    );
    const cliente = await clienteOficial(agente.url, 'HTTP+JSON');
    const task = comoTarefa(await cliente.sendMessage(dados({ name: 'everything.echo', arguments: { message: 'pela ponte' } })));
    assert.equal(nomeDoEstado(task), 'TASK_STATE_COMPLETED', textoDe(task.status?.message?.parts));
    assert.equal(textoDe(task.status?.message?.parts), 'Echo: pela ponte');
    // The server's own log: a session opened by GET on /sse, messages POSTed to it.
    assert.ok(everything.linhas.some((linha) => linha.startsWith('Client Connected')));
    await agente.esperarLinha(/^mcp-> servidor=everything sessao=\d+ metodo=tools\/call .* nome=echo .*resultado=complete/);
  });
});

describe('a file the agent refuses at start: exit code 1, one line naming the server, the field and the variable', () => {
  let pasta: Pasta;
  before(() => {
    pasta = pastaTemporaria();
  });
  after(() => pasta.apagar());

  /** The agent's start with this file and environment, which must fail: its "nao subiu" line. */
  async function recusa(conteudo: unknown, env: Record<string, string> = {}): Promise<string> {
    const config = arquivo(pasta, conteudo, `${randomBytes(4).toString('hex')}.json`);
    const erro = await iniciarAgenteGenerico(config, env).then(
      () => assert.fail('o agente nao deveria subir'),
      (erro: unknown) => erro,
    );
    assert.ok(erro instanceof Error);
    assert.match(erro.message, /agente\/dist\/main\.js saiu \(1\) antes de/);
    const [linha, ...outras] = erro.message.split('\n').filter((lida) => lida.startsWith('agente nao subiu: '));
    assert.ok(linha, erro.message);
    assert.deepEqual(outras, []);
    return linha.replace(`AGENTE_MCP_CONFIG=${config}: `, '');
  }

  it("an unset variable without a default, never with another variable's value", async () => {
    const segredo = randomBytes(16).toString('hex');
    const linha = await recusa(
      { mcpServers: { web: { url: 'http://127.0.0.1:9/mcp?k=${CHAVE_DA_URL}', headers: { Authorization: 'Bearer ${TOKEN_AUSENTE}' } } } },
      { CHAVE_DA_URL: segredo },
    );
    assert.equal(
      linha,
      'agente nao subiu: servidor "web": campo "headers.Authorization": a variavel de ambiente TOKEN_AUSENTE nao esta definida; defina-a ou de um padrao: ${TOKEN_AUSENTE:-padrao}',
    );
    assert.ok(!linha.includes(segredo));
  });

  it('a file whose servers are all disabled', async () => {
    const linha = await recusa({ mcpServers: { a: { command: 'x', disabled: true } } });
    assert.equal(linha, 'agente nao subiu: todos os servidores estao desativados ("disabled": true): ative pelo menos um');
  });
});

/** Whether a port on loopback is free: something listening there makes the bind fail. */
const livre = (porta: number) =>
  new Promise<boolean>((resolver) => {
    const teste = createServer()
      .once('error', () => resolver(false))
      .listen(porta, '127.0.0.1', () => teste.close(() => resolver(true)));
  });

describe('npm start with a servers file', () => {
  it("starts the agent alone, on the file's servers: no room server, none on the MCP port; SIGTERM stops it", async () => {
    const pasta = pastaTemporaria();
    const portaMcp = await portaLivre();
    try {
      pasta.config({ memoria: memoria(join(pasta.caminho, 'grafo.jsonl')) }, 'servidores.json');
      // A relative path means the folder npm start was typed in (npm tells it in INIT_CWD).
      const inicio = await iniciar(
        'scripts/iniciar.ts',
        { MCP_PORT: String(portaMcp), INIT_CWD: pasta.caminho, REQUEST_STATE_SECRET: randomBytes(32).toString('hex') },
        { argumentos: ['--config', 'servidores.json', '--porta-agente', '0'] },
      );
      try {
        const pronto = await inicio.esperarLinha(/^pronto: agente em http/);
        const [, base] = /agente em (\S+)/.exec(pronto) ?? [];
        assert.ok(base, pronto);
        assert.equal(
          pronto,
          `pronto: agente em ${base} (card em ${base}${CARD}), servidores MCP de ${join(pasta.caminho, 'servidores.json')}. Ctrl-C para parar.`,
        );
        const { card } = await lerCard(base);
        assert.ok(
          card.skills.some(({ id }) => id === 'memoria.read_graph'),
          'the card is the generic one, of server-memory',
        );
        assert.ok(!inicio.linhas.some((linha) => linha.startsWith('[mcp]')), inicio.linhas.join('\n'));
        assert.ok(await livre(portaMcp), `nothing listens on MCP_PORT ${String(portaMcp)}`);
      } finally {
        assert.equal(await inicio.parar('SIGTERM'), 0);
      }
      assert.ok(inicio.linhas.includes('[agente] agente: SIGTERM, encerrando'));
    } finally {
      pasta.apagar();
    }
  });

  it('SIGTERM while the agent is still starting (a stdio server that never answers): the agent is stopped too, not left behind', async () => {
    const pasta = pastaTemporaria();
    const porta = await portaLivre();
    // A process that never speaks MCP: the agent waits for it up to AGENTE_MCP_TIMEOUT_SECONDS, logging nothing.
    // Like any stdio server, it ends when its stdin does (when the agent is gone).
    const mudo = "process.stdin.on('end', () => process.exit(0)).resume()";
    const config = pasta.config({ mudo: { command: process.execPath, args: ['-e', mudo] } });
    // Not through iniciar(): that waits for the ready line, and this test is about the time before it.
    const inicio = spawn(process.execPath, ['--import', 'tsx', 'scripts/iniciar.ts', '--config', config, '--porta-agente', String(porta)], {
      env: { ...process.env, REQUEST_STATE_SECRET: randomBytes(32).toString('hex'), AGENTE_MCP_TIMEOUT_SECONDS: '120' },
      stdio: 'ignore',
    });
    const saida = once(inicio, 'exit');
    const card = new URL(CARD, `http://127.0.0.1:${String(porta)}`);
    try {
      // The agent's port accepts while its server starts, answering 503: npm start has not said it is ready.
      const pedirCard = async () => {
        try {
          return await fetch(card);
        } catch (erro) {
          if (recusada(erro)) return undefined;
          throw erro;
        }
      };
      let resposta = await pedirCard();
      while (!resposta) resposta = await pedirCard();
      assert.equal(resposta.status, 503);
      inicio.kill('SIGTERM');
      await saida;
      // The agent goes with it: its port stops accepting (left behind, it would wait its 120 s for the server).
      // Asked by a bare TCP connection, not a request: one the agent logs would make an orphan die of its
      // closed stderr and pass for stopped.
      const limite = Date.now() + 20_000;
      let fechada = false;
      while (!fechada && Date.now() < limite) fechada = !(await aceita(porta));
      assert.ok(fechada, `the agent still answers on ${String(porta)} after npm start exited`);
    } finally {
      if (inicio.exitCode === null) inicio.kill('SIGKILL');
      pasta.apagar();
    }
  });

  it('refuses --porta-mcp with a servers file, and an unknown argument, with the usage', async () => {
    for (const [argumentos, esperado] of [
      [
        ['--config', 'x.json', '--porta-mcp', '7401'],
        '--porta-mcp nao vale com um arquivo de servidores: so o agente sobe, sem o servidor de salas',
      ],
      [['--porta'], 'argumento desconhecido: --porta'],
      [['--porta-agente', 'setenta'], '--porta-agente=setenta: esperado um inteiro entre 0 e 65535'],
    ] as const) {
      const erro = await iniciar('scripts/iniciar.ts', {}, { argumentos }).then(
        () => assert.fail('nao deveria subir'),
        (erro: unknown) => erro,
      );
      assert.ok(erro instanceof Error);
      assert.match(erro.message, /scripts\/iniciar\.ts saiu \(2\) antes de/);
      const linhas = erro.message.split('\n');
      assert.ok(linhas.includes(esperado), erro.message);
      assert.ok(
        linhas.some((linha) => linha.startsWith('uso: npm start')),
        erro.message,
      );
    }
  });
});
