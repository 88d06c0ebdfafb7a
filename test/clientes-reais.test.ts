/**
 * Both servers driven by the ecosystem's own clients instead of raw HTTP:
 * the official MCP client and @a2a-js/sdk's client, plus our scripts
 * (npm start, npm run reservar) as a newcomer would run them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SendMessageRequest, TaskState, type SendMessageResult, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import {
  Client,
  isInputRequiredResult,
  specTypeSchemas,
  StreamableHTTPClientTransport,
  withInputRequired,
} from '@modelcontextprotocol/client';
import { ListaDeSalas, ResultadoDaReserva, REVISAO_MCP, URI_DA_POLITICA } from 'compartilhado/contrato';
import { objeto } from 'compartilhado/log';
import { iniciar } from '../scripts/processos.js';
import { ambosOsProcessos, segredoDeTeste } from './apoio/processos.js';
import { textoDe } from './apoio/cliente-a2a.js';

/** A SendMessage answered with a Task; an answer that is a bare Message fails here. */
function comoTarefa(resultado: SendMessageResult): Task {
  if ('status' in resultado) return resultado;
  assert.fail(`expected a Task, got a Message: ${textoDe(resultado.parts)}`);
}

/** The `sala` field of a JSON object written as text (an artifact, the client's stdout). */
function salaDoJson(json: string): unknown {
  const valor: unknown = JSON.parse(json);
  assert.ok(typeof valor === 'object' && valor !== null && 'sala' in valor, `no sala in ${json}`);
  return valor.sala;
}

describe('official clients against the real processes', () => {
  const processos = ambosOsProcessos();

  it('@modelcontextprotocol/client: discover, list, read, input_required, retry on a new id', async () => {
    const cliente = new Client(
      { name: 'teste', version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: REVISAO_MCP } },
        inputRequired: { autoFulfill: false },
      },
    );
    // The JSON-RPC id of every tools/call the client sends, read off the wire.
    const idsDasChamadas: unknown[] = [];
    const registrar: typeof fetch = (entrada, init) => {
      const corpo: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      if (objeto(corpo)?.method === 'tools/call') idsDasChamadas.push(objeto(corpo)?.id);
      return fetch(entrada, init);
    };
    await cliente.connect(new StreamableHTTPClientTransport(new URL(processos.mcp.url), { fetch: registrar }));
    try {
      const { tools } = await cliente.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['consultar_disponibilidade', 'listar_salas', 'reservar_sala']);
      const { contents } = await cliente.readResource({ uri: URI_DA_POLITICA });
      const [politica] = contents;
      assert.ok(politica && 'text' in politica, 'the policy has a text content');
      assert.match(politica.text, /^versao: 2026-11-01\n/);
      const salas = await cliente.callTool({ name: 'listar_salas', arguments: {} });
      assert.equal(ListaDeSalas.parse(salas.structuredContent).salas.length, 5);

      const args = { sala: 'sala-garagem', inicio: '2026-11-03T14:00:00-03:00', fim: '2026-11-03T15:00:00-03:00', responsavel: 'Marty' };
      // callTool() validates even an input_required answer against the tool's
      // outputSchema and throws, so the raw request is the way (see docs/sdk.md).
      await assert.rejects(cliente.callTool({ name: 'reservar_sala', arguments: args }, { allowInputRequired: true }), /output schema/);
      // withInputRequired() types the answer as CallToolResult | InputRequiredResult, as the agent reads it.
      const chamar = (params: Record<string, unknown>) =>
        cliente.request(
          { method: 'tools/call', params: { name: 'reservar_sala', arguments: args, ...params } },
          withInputRequired(specTypeSchemas.CallToolResult),
          { allowInputRequired: true },
        );
      const pausa = await chamar({});
      assert.ok(isInputRequiredResult(pausa), `expected input_required, got ${JSON.stringify(pausa)}`);
      assert.equal(pausa.resultType, 'input_required');
      const [chave] = Object.keys(pausa.inputRequests ?? {});
      assert.ok(chave !== undefined, 'the pause carries an input request');
      const fim = await chamar({
        inputResponses: { [chave]: { action: 'accept', content: { sala: 'sala-fusca' } } },
        requestState: pausa.requestState,
      });
      assert.ok(!isInputRequiredResult(fim), `expected a result, got ${JSON.stringify(fim)}`);
      const reserva = ResultadoDaReserva.parse(fim.structuredContent);
      assert.equal(reserva.sala, 'sala-fusca');
      assert.equal(reserva.reservado, true);
      const [idDaPausa, idDaRetomada] = idsDasChamadas.slice(-2);
      assert.ok(idDaPausa !== undefined && idDaRetomada !== undefined, JSON.stringify(idsDasChamadas));
      assert.notEqual(idDaRetomada, idDaPausa, 'the retry goes on a new JSON-RPC id');
    } finally {
      await cliente.close();
    }
  });

  it('@a2a-js/sdk client: card discovery, SendMessage, pause, continuation, GetTask', async () => {
    const cliente = await new ClientFactory().createFromUrl(processos.agente.url);
    const enviar = async (conteudo: string, taskId?: string) =>
      comoTarefa(
        await cliente.sendMessage(
          SendMessageRequest.fromJSON({
            message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: conteudo }], ...(taskId ? { taskId } : {}) },
          }),
        ),
      );
    const pedido = 'reservar sala=sala-garagem inicio=2026-11-06T14:00:00-03:00 fim=2026-11-06T15:00:00-03:00 responsavel=George';
    assert.equal((await enviar(pedido)).status?.state, TaskState.TASK_STATE_COMPLETED);
    const pausa = await enviar(pedido);
    assert.equal(pausa.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const pergunta = pausa.status.message;
    assert.ok(pergunta, 'the paused Task carries a status message');
    assert.equal(textoDe(pergunta.parts), 'alternativas: sala-fusca, sala-mirante');
    const fim = await enviar('escolha=sala-mirante', pausa.id);
    assert.equal(fim.status?.state, TaskState.TASK_STATE_COMPLETED);
    const lida = await cliente.getTask({ id: pausa.id, historyLength: undefined, tenant: '' });
    assert.equal(lida.status?.state, TaskState.TASK_STATE_COMPLETED);
    const [artefato] = lida.artifacts;
    assert.ok(artefato, 'the completed Task carries an artifact');
    assert.equal(salaDoJson(textoDe(artefato.parts)), 'sala-mirante');
  });

  it('npm run reservar with --escolha: the terminal client completes a paused booking', async () => {
    const pedido = 'reservar sala=sala-garagem inicio=2026-11-05T14:00:00-03:00 fim=2026-11-05T15:00:00-03:00 responsavel=Lorraine';
    const args = ['--import', 'tsx', 'scripts/reservar.ts', '--agente', processos.agente.url, '--escolha', 'sala-fusca', pedido];
    // First make the room taken so that the client meets a pause.
    const primeira = spawn(process.execPath, [...args.slice(0, 5), pedido], { stdio: 'pipe' });
    assert.equal(await new Promise((r) => primeira.once('exit', r)), 0);
    const filho = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let saida = '',
      erro = '';
    filho.stdout.on('data', (p: Buffer) => (saida += p.toString()));
    filho.stderr.on('data', (p: Buffer) => (erro += p.toString()));
    assert.equal(await new Promise((r) => filho.once('exit', r)), 0, erro);
    assert.match(erro, /TASK_STATE_INPUT_REQUIRED: alternativas: sala-fusca, sala-mirante/);
    assert.equal(salaDoJson(saida), 'sala-fusca');
  });

  it('npm run reservar says clearly when the agent is down', async () => {
    const filho = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/reservar.ts', '--agente', 'http://127.0.0.1:9', 'reservar sala=a inicio=b fim=c responsavel=d'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let erro = '';
    filho.stderr.on('data', (p: Buffer) => (erro += p.toString()));
    assert.equal(await new Promise((r) => filho.once('exit', r)), 1);
    assert.match(erro, /nao consegui falar com o agente em http:\/\/127\.0\.0\.1:9/);
  });
});

it('npm start: both processes up, prefixed logs, one SIGTERM stops both', async () => {
  const inicio = await iniciar('scripts/iniciar.ts', { MCP_PORT: '0', AGENTE_PORT: '0', REQUEST_STATE_SECRET: segredoDeTeste() });
  const pronto = await inicio.esperarLinha(/^pronto: agente em http/);
  assert.ok(inicio.linhas.some((l) => l.startsWith('[mcp] servidor-mcp ouvindo em')));
  assert.ok(inicio.linhas.some((l) => l.startsWith('[agente] agente ouvindo em')));
  const [, agente] = /agente em (\S+)/.exec(pronto) ?? [];
  assert.ok(agente, `no agent URL in: ${pronto}`);
  const card = await fetch(`${agente}/.well-known/agent-card.json`);
  assert.equal(card.status, 200);
  assert.equal(await inicio.parar('SIGTERM'), 0);
  assert.ok(inicio.linhas.some((l) => l === '[mcp] servidor-mcp: SIGTERM, encerrando'));
  assert.ok(inicio.linhas.some((l) => l === '[agente] agente: SIGTERM, encerrando'));
});
