/**
 * Both servers driven by the ecosystem's own clients instead of raw HTTP:
 * the official MCP client and @a2a-js/sdk's client, plus our scripts
 * (npm start, npm run reservar) as a newcomer would run them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SendMessageRequest, TaskState, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REVISAO_MCP, URI_DA_POLITICA } from 'compartilhado/contrato';
import { iniciar } from '../scripts/processos.js';
import { ambosOsProcessos, segredoDeTeste } from './apoio/processos.js';

const texto = (partes: Part[] = []) => partes.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');

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
    await cliente.connect(new StreamableHTTPClientTransport(new URL(processos.mcp.url)));
    try {
      const { tools } = await cliente.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['consultar_disponibilidade', 'listar_salas', 'reservar_sala']);
      const { contents } = await cliente.readResource({ uri: URI_DA_POLITICA });
      assert.match((contents[0] as { text: string }).text, /^versao: 2026-11-01\n/);
      const salas = await cliente.callTool({ name: 'listar_salas', arguments: {} });
      assert.equal((salas.structuredContent as { salas: unknown[] }).salas.length, 5);

      const args = { sala: 'sala-garagem', inicio: '2026-11-03T14:00:00-03:00', fim: '2026-11-03T15:00:00-03:00', responsavel: 'Marty' };
      // callTool() validates even an input_required answer against the tool's
      // outputSchema and throws, so the raw request is the way (see README).
      await assert.rejects(cliente.callTool({ name: 'reservar_sala', arguments: args }, { allowInputRequired: true }), /output schema/);
      const chamar = (params: Record<string, unknown>) =>
        cliente.request(
          { method: 'tools/call', params: { name: 'reservar_sala', arguments: args, ...params } },
          { allowInputRequired: true },
        ) as Promise<any>;
      const pausa = await chamar({});
      assert.equal(pausa.resultType, 'input_required');
      const [chave] = Object.keys(pausa.inputRequests);
      const fim = await chamar({
        inputResponses: { [chave!]: { action: 'accept', content: { sala: 'sala-fusca' } } },
        requestState: pausa.requestState,
      });
      assert.equal(fim.structuredContent.sala, 'sala-fusca');
      assert.equal(fim.structuredContent.reservado, true);
    } finally {
      await cliente.close();
    }
  });

  it('@a2a-js/sdk client: card discovery, SendMessage, pause, continuation, GetTask', async () => {
    const cliente = await new ClientFactory().createFromUrl(processos.agente.url);
    const enviar = async (conteudo: string, taskId?: string) =>
      (await cliente.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: conteudo }], ...(taskId ? { taskId } : {}) },
        }),
      )) as Task;
    const pedido = 'reservar sala=sala-garagem inicio=2026-11-06T14:00:00-03:00 fim=2026-11-06T15:00:00-03:00 responsavel=George';
    assert.equal((await enviar(pedido)).status!.state, TaskState.TASK_STATE_COMPLETED);
    const pausa = await enviar(pedido);
    assert.equal(pausa.status!.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.equal(texto(pausa.status!.message!.parts), 'alternativas: sala-fusca, sala-mirante');
    const fim = await enviar('escolha=sala-mirante', pausa.id);
    assert.equal(fim.status!.state, TaskState.TASK_STATE_COMPLETED);
    const lida = await cliente.getTask({ id: pausa.id, historyLength: undefined, tenant: '' });
    assert.equal(lida.status!.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(JSON.parse(texto(lida.artifacts[0]!.parts)).sala, 'sala-mirante');
  });

  it('npm run reservar with --escolha: the terminal client completes a paused booking', async () => {
    const args = [
      '--import',
      'tsx',
      'scripts/reservar.ts',
      '--agente',
      processos.agente.url,
      '--escolha',
      'sala-fusca',
      'reservar sala=sala-garagem inicio=2026-11-05T14:00:00-03:00 fim=2026-11-05T15:00:00-03:00 responsavel=Lorraine',
    ];
    // First make the room taken so that the client meets a pause.
    const primeira = spawn(process.execPath, [...args.slice(0, 5), args.at(-1)!], { stdio: 'pipe' });
    assert.equal(await new Promise((r) => primeira.once('exit', r)), 0);
    const filho = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let saida = '',
      erro = '';
    filho.stdout.on('data', (p: Buffer) => (saida += p));
    filho.stderr.on('data', (p: Buffer) => (erro += p));
    assert.equal(await new Promise((r) => filho.once('exit', r)), 0, erro);
    assert.match(erro, /TASK_STATE_INPUT_REQUIRED: alternativas: sala-fusca, sala-mirante/);
    assert.equal(JSON.parse(saida).sala, 'sala-fusca');
  });

  it('npm run reservar says clearly when the agent is down', async () => {
    const filho = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/reservar.ts', '--agente', 'http://127.0.0.1:9', 'reservar sala=a inicio=b fim=c responsavel=d'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let erro = '';
    filho.stderr.on('data', (p: Buffer) => (erro += p));
    assert.equal(await new Promise((r) => filho.once('exit', r)), 1);
    assert.match(erro, /nao consegui falar com o agente em http:\/\/127\.0\.0\.1:9/);
  });
});

it('npm start: both processes up, prefixed logs, one SIGTERM stops both', async () => {
  const inicio = await iniciar('scripts/iniciar.ts', { MCP_PORT: '0', AGENTE_PORT: '0', REQUEST_STATE_SECRET: segredoDeTeste() });
  const pronto = await inicio.esperarLinha(/^pronto: agente em http/);
  assert.ok(inicio.linhas.some((l) => l.startsWith('[mcp] servidor-mcp ouvindo em')));
  assert.ok(inicio.linhas.some((l) => l.startsWith('[agente] agente ouvindo em')));
  const card = await fetch(`${/agente em (\S+)/.exec(pronto)![1]}/.well-known/agent-card.json`);
  assert.equal(card.status, 200);
  assert.equal(await inicio.parar('SIGTERM'), 0);
  assert.ok(inicio.linhas.some((l) => l === '[mcp] servidor-mcp: SIGTERM, encerrando'));
  assert.ok(inicio.linhas.some((l) => l === '[agente] agente: SIGTERM, encerrando'));
});
