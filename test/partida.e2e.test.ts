/**
 * No request left unanswered while a process starts (issue 31, item 5).
 * The agent's port accepts before its store and its configured MCP servers
 * are ready; a stdio server that takes 3 s to serve (a fixture whose wait is
 * its own behaviour) holds the agent's start that long. Every request made
 * in that window is answered within a second, 503 with Retry-After in its
 * binding's form (on the JSON-RPC binding HTTP 200 with -32603 under the
 * request's id), and logged. The MCP server attaches its app in the turn it
 * starts listening: the first connection it accepts is already served.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, type Processo } from '../scripts/processos.js';
import { pastaTemporaria, portaLivre, servidorLento } from './apoio/ponte-generica.js';
import { segredoDeTeste } from './apoio/processos.js';

const PRAZO_DA_RESPOSTA_MS = 1_000;

/** A refused connection (the port not yet open), as undici reports it. */
const recusada = (erro: unknown) => erro instanceof TypeError && (erro.cause as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';

/**
 * The first answer to a request made as soon as the port accepts: asked
 * again at once while the connection is refused, until the process is ready
 * or gone (`iniciado` settles). Each try gets a second to be answered.
 */
async function primeiraResposta(url: URL, iniciado: Promise<Processo>, init: RequestInit = {}): Promise<Response> {
  const partida = { terminada: false };
  const terminar = () => (partida.terminada = true);
  void iniciado.then(terminar, terminar);
  for (;;) {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(PRAZO_DA_RESPOSTA_MS) });
    } catch (erro) {
      if (!recusada(erro) || partida.terminada) throw erro;
    }
  }
}

const pedir = (url: URL, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(PRAZO_DA_RESPOSTA_MS) });

describe('the agent while a configured stdio server takes 3 s to start', () => {
  it('answers the card, a JSON-RPC call and an HTTP+JSON route within a second each, says it is starting, and logs each', async () => {
    const pasta = pastaTemporaria();
    const porta = await portaLivre();
    const config = pasta.config({ lento: servidorLento(pasta) });
    const iniciado = iniciar(ARQUIVO_DO_AGENTE, { AGENTE_PORT: String(porta), AGENTE_MCP_CONFIG: config });
    const base = `http://127.0.0.1:${String(porta)}`;
    try {
      const card = await primeiraResposta(new URL('/.well-known/agent-card.json', base), iniciado);
      assert.equal(card.status, 503, await card.clone().text());
      assert.equal(card.headers.get('retry-after'), '1');
      assert.match(((await card.json()) as { error: { message: string } }).error.message, /^O agente esta iniciando/);

      const jsonRpc = await pedir(new URL('/a2a', base), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'partida-1', method: 'GetTask', params: { id: 'x' } }),
      });
      assert.equal(jsonRpc.status, 200);
      assert.equal(jsonRpc.headers.get('retry-after'), '1');
      const erro = (await jsonRpc.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
      assert.deepEqual([erro.jsonrpc, erro.id, erro.error.code], ['2.0', 'partida-1', -32603]);
      assert.match(erro.error.message, /^O agente esta iniciando/);

      const rest = await pedir(new URL('/rest/tasks', base));
      assert.equal(rest.status, 503);
      assert.equal(rest.headers.get('retry-after'), '1');
      assert.equal(((await rest.json()) as { error: { status: string } }).error.status, 'UNAVAILABLE');

      const agente = await iniciado;
      assert.equal((await pedir(new URL('/.well-known/agent-card.json', base))).status, 200, 'served once started');
      await agente.esperarLinha(/^GET \/\.well-known\/agent-card\.json metodo=- id=null task=- estado="erro -32603" .*http=503 /);
      await agente.esperarLinha(/^POST \/a2a metodo=GetTask id="partida-1" task=x estado="erro -32603" .*http=200 /);
      await agente.esperarLinha(/^GET \/rest\/tasks .*http=503 /);
    } finally {
      await (await iniciado.catch(() => undefined))?.parar();
      pasta.apagar();
    }
  });
});

describe('the MCP server while it starts', () => {
  it('serves the first connection it accepts', async () => {
    const porta = await portaLivre();
    const iniciado = iniciar(ARQUIVO_DO_MCP, { MCP_PORT: String(porta), REQUEST_STATE_SECRET: segredoDeTeste() });
    try {
      const card = await primeiraResposta(new URL(`http://127.0.0.1:${String(porta)}/.well-known/mcp/server-card.json`), iniciado);
      assert.equal(card.status, 200);
    } finally {
      await (await iniciado.catch(() => undefined))?.parar();
    }
  });
});
