/**
 * Tools that run as MCP tasks (2025-11-25) as A2A Tasks: server-everything's
 * simulate-research-query (four stages of about a second; `ambiguous: true`
 * asks which interpretation with a oneOf), over Streamable HTTP and over
 * stdio, and the fixture tarefas-2025 (tasks that fail, or that the server
 * cancels), bridged by agents with AGENTE_MCP_CONFIG. The task's status
 * messages stream as WORKING updates, its question pauses the Task,
 * CancelTask cancels the server's task, a failure is FAILED in the server's
 * words. Every A2A exchange goes through the official client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { clienteOficial, comoTarefa, dados, dadosDe, nomeDoEstado, resumo, textoDe, todos } from './apoio/cliente-a2a.js';
import { leitor, rastro } from './apoio/fluxo-a2a.js';
import {
  card,
  EVERYTHING,
  everythingComAgente,
  ferramentasNoCard,
  iniciarAgenteGenerico,
  pastaTemporaria,
  tarefas2025,
  type Pasta,
} from './apoio/ponte-generica.js';
import type { Processo } from './apoio/processos.js';
import { MOTIVO_DA_FALHA } from './apoio/servidores/tarefas-2025.js';

const SKILL = 'everything.simulate-research-query';
const ESTAGIOS = ['Gathering sources...', 'Analyzing content...', 'Synthesizing findings...', 'Generating report...'];

const mensagemDe = (task: Task) => textoDe(task.status?.message?.parts);
const relatorio = (task: Task) => textoDe(task.artifacts.find(({ name }) => name === SKILL)?.parts);
/** The WORKING status messages of a stream, in order. */
const mensagensDeTrabalho = (eventos: readonly StreamResponse[]) =>
  eventos.flatMap(({ payload }) =>
    payload?.$case === 'statusUpdate' && payload.value.status?.state === TaskState.TASK_STATE_WORKING
      ? [textoDe(payload.value.status.message?.parts)].filter(Boolean)
      : [],
  );

describe('a tool that requires an MCP task (server-everything simulate-research-query)', () => {
  const processos = everythingComAgente();

  it('the card says the skill runs as a task (execution.taskSupport "required" in the mcp-tools extension)', async () => {
    const lido = await card(processos.agente.url);
    assert.ok(lido.skills.some(({ id }) => id === SKILL));
    assert.deepEqual(ferramentasNoCard(lido)[SKILL]?.execution, { taskSupport: 'required' });
  });

  it('non-blocking: SendMessage returns the Task at once, not yet ended; SubscribeToTask follows it to COMPLETED', async () => {
    const cliente = await clienteOficial(processos.agente.url, 'JSONRPC');
    const pedido = { ...dados({ name: SKILL, arguments: { topic: 'marés' } }), configuration: { returnImmediately: true } };
    const devolvida = comoTarefa(await cliente.sendMessage(pedido as Parameters<typeof cliente.sendMessage>[0]));
    assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(nomeDoEstado(devolvida)), nomeDoEstado(devolvida));
    const resto = await todos(cliente.resubscribeTask({ id: devolvida.id, tenant: '' }));
    assert.equal(resumo(resto.at(-1) ?? {}), 'TASK_STATE_COMPLETED');
    const lida = await cliente.getTask({ id: devolvida.id, tenant: '' });
    assert.match(relatorio(lida), /^# Research Report: marés\n/);
  });

  it('ambiguous: INPUT_REQUIRED with the interpretations the task asks; the answer continues it to a report on the one chosen', async () => {
    const cliente = await clienteOficial(processos.agente.url, 'JSONRPC');
    const pausa = comoTarefa(await cliente.sendMessage(dados({ name: SKILL, arguments: { topic: 'python', ambiguous: true } })));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const [pergunta] = dadosDe(pausa.status?.message?.parts) as {
      inputRequests: Record<string, { params: { requestedSchema: unknown } }>;
    }[];
    const [chave = '', questao] = Object.entries(pergunta?.inputRequests ?? {})[0] ?? [];
    assert.ok(questao, JSON.stringify(pergunta));
    const opcoes = JSON.stringify(questao.params.requestedSchema);
    assert.match(opcoes, /"oneOf"/);
    const [escolhida = ''] = /"const":"([^"]+)"/.exec(opcoes)?.slice(1) ?? [];
    assert.ok(escolhida, opcoes);

    const resposta = { inputResponses: { [chave]: { action: 'accept', content: { interpretation: escolhida } } } };
    const fim = comoTarefa(await cliente.sendMessage(dados(resposta, { taskId: pausa.id })));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    assert.ok(relatorio(fim).startsWith(`# Research Report: python (${escolhida})\n`), relatorio(fim));
  });

  it('CancelTask mid-task: CANCELED, and the server is told with tasks/cancel', async () => {
    const { agente } = processos;
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const { opcoes } = rastro();
    const fluxo = leitor(cliente.sendMessageStream(dados({ name: SKILL, arguments: { topic: 'vento' } }), opcoes));
    // The first stage proves the task runs on the server: the cancel comes after it, not at a guessed time.
    const ateOEstagio = await fluxo.ate(
      ({ payload }) => payload?.$case === 'statusUpdate' && textoDe(payload.value.status?.message?.parts) === ESTAGIOS[0],
    );
    const [primeiro] = ateOEstagio;
    assert.ok(primeiro?.payload?.$case === 'task');
    const cancelada = await cliente.cancelTask({ id: primeiro.payload.value.id, tenant: '', metadata: {} });
    assert.equal(nomeDoEstado(cancelada), 'TASK_STATE_CANCELED', mensagemDe(cancelada));
    assert.deepEqual((await fluxo.resto()).map(resumo).at(-1), 'TASK_STATE_CANCELED');
    await agente.esperarLinha(/^mcp-> servidor=everything sessao=\d+ metodo=tasks\/cancel .*resultado=complete /);
  });
});

describe('over stdio: server-everything and the fixture tarefas-2025, whose tasks end badly', () => {
  let pasta: Pasta | undefined;
  let agente: Processo | undefined;
  before(async () => {
    pasta = pastaTemporaria();
    agente = await iniciarAgenteGenerico(
      pasta.config({ everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, tarefas: tarefas2025() }),
    );
  });
  after(async () => {
    await agente?.parar();
    pasta?.apagar();
  });

  // Over stdio every status notification arrives (over HTTP they ride the session's GET stream, which a new session may not have yet).
  it('streamed: WORKING with each stage the task reports, in order, then the report as the artifact and COMPLETED', async () => {
    assert.ok(agente);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const eventos = await todos(cliente.sendMessageStream(dados({ name: SKILL, arguments: { topic: 'energia solar' } })));
    assert.deepEqual(mensagensDeTrabalho(eventos), ESTAGIOS);
    assert.deepEqual(eventos.slice(-2).map(resumo), [`artifact:${SKILL}`, 'TASK_STATE_COMPLETED']);
    const [primeiro] = eventos;
    assert.ok(primeiro?.payload?.$case === 'task');
    const lida = await cliente.getTask({ id: primeiro.payload.value.id, tenant: '' });
    assert.equal(nomeDoEstado(lida), 'TASK_STATE_COMPLETED', mensagemDe(lida));
    assert.match(relatorio(lida), /^# Research Report: energia solar\n/);
  });

  for (const [ferramenta, mensagem] of [
    ['quebrar', MOTIVO_DA_FALHA],
    ['desistir', 'A tarefa MCP foi cancelada pelo servidor.'],
  ] as const) {
    it(`${ferramenta}: FAILED, in the server's words, after its stage streamed as WORKING`, async () => {
      assert.ok(agente);
      const cliente = await clienteOficial(agente.url, 'JSONRPC');
      const eventos = await todos(cliente.sendMessageStream(dados({ name: `tarefas.${ferramenta}`, arguments: {} })));
      assert.deepEqual(mensagensDeTrabalho(eventos), ['Preparando...']);
      const ultimo = eventos.at(-1)?.payload;
      assert.ok(ultimo?.$case === 'statusUpdate');
      assert.equal(resumo(eventos.at(-1) ?? {}), 'TASK_STATE_FAILED');
      assert.equal(textoDe(ultimo.value.status?.message?.parts), mensagem);
    });
  }

  it("morrer: the server's process exits mid-task: FAILED saying the outcome is unknown, not as the tool's failure; the next call starts a new process", async () => {
    assert.ok(agente);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const morta = comoTarefa(await cliente.sendMessage(dados({ name: 'tarefas.morrer', arguments: {} })));
    assert.equal(nomeDoEstado(morta), 'TASK_STATE_FAILED', mensagemDe(morta));
    assert.match(mensagemDe(morta), /caiu durante morrer: o desfecho da chamada e desconhecido/);
    const depois = comoTarefa(await cliente.sendMessage(dados({ name: 'tarefas.quebrar', arguments: {} })));
    assert.equal(mensagemDe(depois), MOTIVO_DA_FALHA);
  });
});
