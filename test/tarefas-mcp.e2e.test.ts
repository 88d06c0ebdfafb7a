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
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
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
  iniciarEverything,
  iniciarTarefas2026,
  tarefas2025,
  type Pasta,
  type ServidorExterno,
} from './apoio/ponte-generica.js';
import type { Processo } from './apoio/processos.js';
import { MOTIVO_DA_FALHA } from './apoio/servidores/tarefas-2025.js';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';

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

describe('a blocking SendMessage on a task longer than a claim', () => {
  it('answers with the Task as it stands (WORKING) once a claim has passed; the task goes on to COMPLETED', async () => {
    const pasta = pastaTemporaria();
    // A claim lasts 3 × 1 + 5 = 8 s; the task, 10 s.
    const agente = await iniciarAgenteGenerico(pasta.config({ tarefas: tarefas2025() }), { AGENTE_MCP_TIMEOUT_SECONDS: '1' });
    try {
      const cliente = await clienteOficial(agente.url, 'JSONRPC');
      const respondida = comoTarefa(await cliente.sendMessage(dados({ name: 'tarefas.demorar', arguments: { segundos: 10 } })));
      assert.equal(nomeDoEstado(respondida), 'TASK_STATE_WORKING', mensagemDe(respondida));
      assert.equal(mensagemDe(respondida), 'Esperando 10 s...');
      await esperarAte(
        async () => nomeDoEstado(await cliente.getTask({ id: respondida.id, tenant: '' })) === 'TASK_STATE_COMPLETED',
        'a tarefa concluida depois da resposta',
      );
      const fim = await cliente.getTask({ id: respondida.id, tenant: '' });
      assert.equal(textoDe(fim.artifacts[0]?.parts), 'pronto depois de 10 s');
    } finally {
      await agente.parar();
      pasta.apagar();
    }
  });
});

describe('two agents on PostgreSQL: the one following an MCP task killed with kill -9, the other follows the same task to its end', () => {
  let postgres: Postgres | undefined;
  let pasta: Pasta | undefined;
  before(async () => {
    postgres = await iniciarPostgres();
    pasta = pastaTemporaria();
  });
  after(async () => {
    await postgres?.parar();
    pasta?.apagar();
  });

  /** server-everything, a fresh database, two agents on it; the first one's Task held with its MCP task kept as its step. */
  async function seguidaPeloPrimeiro(topic: string) {
    if (!postgres || !pasta) throw new Error('postgres nao subiu');
    const everything = await iniciarEverything();
    const config = pasta.config({ everything: { url: everything.url } }, `everything-${String(everything.porta)}.json`);
    const { url, primeiro, segundo } = await doisAgentes(postgres, config);
    const cliente = await clienteOficial(primeiro.url, 'JSONRPC');
    const pedido = { ...dados({ name: SKILL, arguments: { topic } }), configuration: { returnImmediately: true } };
    const { id } = comoTarefa(await cliente.sendMessage(pedido as Parameters<typeof cliente.sendMessage>[0]));
    // Held at a known point: the MCP task is the Task's step in the database, and the server stands still.
    await esperarAte(async () => (await passoDe(url, id))?.includes('"tarefaMcp"') === true, `o passo da Task ${id} seguindo a tarefa MCP`);
    everything.filho.kill('SIGSTOP');
    return { url, everything, primeiro, segundo, id };
  }

  // kill -9: the claim runs out. SIGTERM: the agent leaves the task running on the server (no tasks/cancel, its session kept), for the sweep.
  for (const sinal of ['SIGKILL', 'SIGTERM'] as const)
    it(`${sinal} to the follower: the survivor sweep follows the same task (tools/call went out once), its subscriber sees the report and COMPLETED`, async () => {
      const { url, everything, primeiro, segundo, id } = await seguidaPeloPrimeiro(`correntes ${sinal}`);
      try {
        const doSegundo = await clienteOficial(segundo.url, 'JSONRPC');
        const inscrito = todos(doSegundo.resubscribeTask({ id, tenant: '' }));
        await primeiro.parar(sinal);
        everything.filho.kill('SIGCONT');
        const eventos = await inscrito;
        assert.deepEqual(eventos.slice(-2).map(resumo), [`artifact:${SKILL}`, 'TASK_STATE_COMPLETED']);
        const fim = await doSegundo.getTask({ id, tenant: '' });
        assert.equal(relatorio(fim).split('\n')[0], `# Research Report: correntes ${sinal}`);
        await segundo.esperarLinha(new RegExp(`^varredura: tarefa MCP da Task ${id} seguida de novo, desfecho concluida$`));
        const chamadas = (processo: Processo) => processo.linhas.filter((linha) => /^mcp-> .*metodo=tools\/call /.test(linha)).length;
        assert.equal(chamadas(primeiro), 1, 'the first agent started the task');
        assert.ok(!primeiro.linhas.some((linha) => /metodo=tasks\/cancel /.test(linha)), 'and never cancelled it');
        assert.equal(chamadas(segundo), 0, 'the second one never called the tool');
        assert.ok(segundo.linhas.some((linha) => /^mcp-> .*metodo=tasks\/get .*resultado=complete /.test(linha)));
        assert.equal(await passoDe(url, id), undefined, 'no step left open');
      } finally {
        everything.filho.kill('SIGCONT');
        await Promise.all([primeiro.parar('SIGKILL'), segundo.parar(), everything.parar()]);
      }
    });

  it('a task silent for longer than the call deadline and the lease, its turn lost with its connection: the follower renews its claim, nobody takes over', async () => {
    if (!postgres || !pasta) throw new Error('postgres nao subiu');
    const { url, primeiro, segundo } = await doisAgentes(postgres, pasta.config({ tarefas: tarefas2025() }, 'tarefas-longa.json'));
    try {
      const cliente = await clienteOficial(primeiro.url, 'JSONRPC');
      // 14 s of silence after its first status: past the 2 s deadline, past the 11 s claim.
      const fluxo = leitor(cliente.sendMessageStream(dados({ name: 'tarefas.demorar', arguments: { segundos: 14 } })));
      const ateOInicio = await fluxo.ate(
        ({ payload }) => payload?.$case === 'statusUpdate' && mensagensDeTrabalho([{ payload }]).length > 0,
      );
      const [inicio] = ateOInicio;
      assert.ok(inicio?.payload?.$case === 'task');
      const { id } = inicio.payload.value;
      await esperarAte(
        async () => (await passoDe(url, id))?.includes('"tarefaMcp"') === true,
        `o passo da Task ${id} seguindo a tarefa MCP`,
      );
      // The first agent's turn is held by a database connection: terminated, the second agent could take the step, if its claim ran out.
      const terminadas = await consultar<number>(
        url,
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'agente' AND pid <> pg_backend_pid()`,
      );
      assert.ok((terminadas ?? 0) > 0);
      const eventos = [...ateOInicio, ...(await fluxo.resto())];
      assert.deepEqual(mensagensDeTrabalho(eventos), ['Esperando 14 s...']);
      assert.equal(resumo(eventos.at(-1) ?? {}), 'TASK_STATE_COMPLETED');
      assert.ok(
        !segundo.linhas.some((linha) => linha.startsWith('varredura:')),
        segundo.linhas.filter((linha) => linha.startsWith('varredura:')).join('\n'),
      );
    } finally {
      await Promise.all([primeiro.parar(), segundo.parar()]);
    }
  });

  it("a stdio server's task ends with the agent whose child ran it: the survivor says so (FAILED), and calls nothing", async () => {
    if (!postgres || !pasta) throw new Error('postgres nao subiu');
    const { url, primeiro, segundo } = await doisAgentes(postgres, pasta.config({ tarefas: tarefas2025() }, 'tarefas-stdio.json'));
    try {
      const cliente = await clienteOficial(primeiro.url, 'JSONRPC');
      const pedido = { ...dados({ name: 'tarefas.demorar', arguments: { segundos: 60 } }), configuration: { returnImmediately: true } };
      const { id } = comoTarefa(await cliente.sendMessage(pedido as Parameters<typeof cliente.sendMessage>[0]));
      await esperarAte(
        async () => (await passoDe(url, id))?.includes('"tarefaMcp"') === true,
        `o passo da Task ${id} seguindo a tarefa MCP`,
      );
      await primeiro.parar('SIGKILL');
      await segundo.esperarLinha(new RegExp(`^varredura: tarefa MCP da Task ${id} seguida de novo, desfecho falhou$`), 30_000);
      const fim = await (await clienteOficial(segundo.url, 'JSONRPC')).getTask({ id, tenant: '' });
      assert.equal(nomeDoEstado(fim), 'TASK_STATE_FAILED');
      assert.match(
        mensagemDe(fim),
        /^A tarefa MCP \w+ rodava em stdio node de tarefas, processo filho do agente que a comecou, e terminou com ele/,
      );
      assert.ok(!segundo.linhas.some((linha) => /^mcp-> .*metodo=tools\/call /.test(linha)));
    } finally {
      await Promise.all([primeiro.parar('SIGKILL'), segundo.parar()]);
    }
  });

  it('a task its server forgot (restarted, the session gone): FAILED saying so, and nothing is called again', async () => {
    const { everything, primeiro, segundo, id } = await seguidaPeloPrimeiro('marés vivas');
    let novo: ServidorExterno | undefined;
    try {
      await primeiro.parar('SIGKILL');
      everything.filho.kill('SIGKILL');
      await everything.parar();
      novo = await iniciarEverything(20_000, 'streamableHttp', everything.porta);
      await segundo.esperarLinha(new RegExp(`^varredura: tarefa MCP da Task ${id} seguida de novo, desfecho falhou$`), 30_000);
      const fim = await (await clienteOficial(segundo.url, 'JSONRPC')).getTask({ id, tenant: '' });
      assert.equal(nomeDoEstado(fim), 'TASK_STATE_FAILED');
      assert.match(mensagemDe(fim), /^A sessao MCP em que a tarefa \w+ rodava nao existe mais no servidor \(HTTP 40[04]\)/);
      assert.ok(!segundo.linhas.some((linha) => /^mcp-> .*metodo=tools\/call /.test(linha)));
    } finally {
      await Promise.all([primeiro.parar('SIGKILL'), segundo.parar(), everything.parar(), novo?.parar()]);
    }
  });
});

const PESQUISAR = 'pesquisa.pesquisar';
/** The example server's stages, each 1.5 s: three of its 500 ms polls, so the follower sees every one. */
const ETAPA_MS = 1500;

/** The INPUT_REQUIRED question of a paused Task: its key and the interpretations it offers. */
function perguntaDe(pausa: Task): { chave: string; opcoes: string } {
  const [pergunta] = dadosDe(pausa.status?.message?.parts) as { inputRequests: Record<string, { params: { requestedSchema: unknown } }> }[];
  const [chave = '', questao] = Object.entries(pergunta?.inputRequests ?? {})[0] ?? [];
  assert.ok(questao, JSON.stringify(pergunta));
  return { chave, opcoes: JSON.stringify(questao.params.requestedSchema) };
}

describe('the 2026 generation (io.modelcontextprotocol/tasks): exemplos/tarefas-2026.ts, bridged by one agent', () => {
  let pasta: Pasta | undefined;
  let servidor: Processo | undefined;
  let agente: Processo | undefined;
  before(async () => {
    pasta = pastaTemporaria();
    servidor = await iniciarTarefas2026();
    agente = await iniciarAgenteGenerico(pasta.config({ pesquisa: { url: servidor.url } }));
  });
  after(async () => {
    await agente?.parar();
    await servidor?.parar();
    pasta?.apagar();
  });

  it('streamed: the server answers tools/call with a task; each stage a WORKING update, then the report and COMPLETED', async () => {
    assert.ok(agente);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const eventos = await todos(cliente.sendMessageStream(dados({ name: PESQUISAR, arguments: { tema: 'mares', etapaMs: ETAPA_MS } })));
    assert.deepEqual(mensagensDeTrabalho(eventos), ['Reunindo fontes...', 'Analisando o tema...', 'Escrevendo o relatorio...']);
    assert.deepEqual(eventos.slice(-2).map(resumo), [`artifact:${PESQUISAR}`, 'TASK_STATE_COMPLETED']);
    assert.ok(agente.linhas.some((linha) => /^mcp-> servidor=pesquisa .*metodo=tasks\/get .*resultado=complete /.test(linha)));
  });

  it('a question inside the task: INPUT_REQUIRED with the server key; a declined answer: FAILED in the server words', async () => {
    assert.ok(agente);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const pausa = comoTarefa(await cliente.sendMessage(dados({ name: PESQUISAR, arguments: { tema: 'java', ambigua: true, etapaMs: 0 } })));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const { chave, opcoes } = perguntaDe(pausa);
    assert.equal(chave, 'interpretacao-1');
    assert.match(opcoes, /"enum":\["historica","atual"\]/);
    const fim = comoTarefa(await cliente.sendMessage(dados({ inputResponses: { [chave]: { action: 'decline' } } }, { taskId: pausa.id })));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_FAILED');
    assert.match(mensagemDe(fim), /ficou sem uma interpretacao valida \(decline\): nada foi pesquisado/);
  });

  it('CancelTask while the task waits on its question (nobody following it): CANCELED, and the server is told with tasks/cancel', async () => {
    assert.ok(agente);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const pausa = comoTarefa(await cliente.sendMessage(dados({ name: PESQUISAR, arguments: { tema: 'go', ambigua: true, etapaMs: 0 } })));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const cancelamentos = () =>
      (agente?.linhas ?? []).filter((linha) => /^mcp-> servidor=pesquisa .*metodo=tasks\/cancel .*resultado=complete /.test(linha)).length;
    const antes = cancelamentos();
    const cancelada = await cliente.cancelTask({ id: pausa.id, tenant: '', metadata: {} });
    assert.equal(nomeDoEstado(cancelada), 'TASK_STATE_CANCELED');
    await esperarAte(() => Promise.resolve(cancelamentos() > antes), 'o tasks/cancel da tarefa que esperava a resposta');
  });

  it('CancelTask mid-task: CANCELED, and the server is told with tasks/cancel', async () => {
    assert.ok(agente);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const fluxo = leitor(cliente.sendMessageStream(dados({ name: PESQUISAR, arguments: { tema: 'vento', etapaMs: 60_000 } })));
    const ateOEstagio = await fluxo.ate(
      ({ payload }) => payload?.$case === 'statusUpdate' && mensagensDeTrabalho([{ payload }]).length > 0,
    );
    const [primeiro] = ateOEstagio;
    assert.ok(primeiro?.payload?.$case === 'task');
    const cancelada = await cliente.cancelTask({ id: primeiro.payload.value.id, tenant: '', metadata: {} });
    assert.equal(nomeDoEstado(cancelada), 'TASK_STATE_CANCELED', mensagemDe(cancelada));
    assert.equal((await fluxo.resto()).map(resumo).at(-1), 'TASK_STATE_CANCELED');
    await agente.esperarLinha(/^mcp-> servidor=pesquisa .*metodo=tasks\/cancel .*resultado=complete /);
  });
});

describe('the 2026 generation on PostgreSQL: any agent answers the task question, and follows a task whose follower died', () => {
  let postgres: Postgres | undefined;
  let pasta: Pasta | undefined;
  let servidor: Processo | undefined;
  before(async () => {
    postgres = await iniciarPostgres();
    pasta = pastaTemporaria();
    servidor = await iniciarTarefas2026();
  });
  after(async () => {
    await servidor?.parar();
    await postgres?.parar();
    pasta?.apagar();
  });

  const agentesDaPesquisa = () => {
    if (!pasta || !servidor) throw new Error('o servidor nao subiu');
    return doisAgentes(postgres, pasta.config({ pesquisa: { url: servidor.url } }, 'pesquisa.json'));
  };

  it('paused on the first agent, answered on the second (nobody polled the task meanwhile): COMPLETED with the interpretation chosen', async () => {
    const { primeiro, segundo } = await agentesDaPesquisa();
    try {
      const pausa = comoTarefa(
        await (
          await clienteOficial(primeiro.url, 'JSONRPC')
        ).sendMessage(dados({ name: PESQUISAR, arguments: { tema: 'python', ambigua: true, etapaMs: 0 } })),
      );
      assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
      const { chave } = perguntaDe(pausa);
      const resposta = { inputResponses: { [chave]: { action: 'accept', content: { interpretacao: 'atual' } } } };
      const fim = comoTarefa(await (await clienteOficial(segundo.url, 'JSONRPC')).sendMessage(dados(resposta, { taskId: pausa.id })));
      assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
      assert.equal(textoDe(fim.artifacts[0]?.parts).split('\n')[0], '# Relatorio: python (atual)');
      assert.ok(segundo.linhas.some((linha) => /^mcp-> servidor=pesquisa .*metodo=tasks\/update .*resultado=complete /.test(linha)));
    } finally {
      await Promise.all([primeiro.parar(), segundo.parar()]);
    }
  });

  it('kill -9 of the follower: the survivor sweep follows the same task (no session to join in 2026) to COMPLETED', async () => {
    const { url, primeiro, segundo } = await agentesDaPesquisa();
    try {
      const cliente = await clienteOficial(primeiro.url, 'JSONRPC');
      const pedido = {
        ...dados({ name: PESQUISAR, arguments: { tema: 'correntes', etapaMs: 4000 } }),
        configuration: { returnImmediately: true },
      };
      const { id } = comoTarefa(await cliente.sendMessage(pedido as Parameters<typeof cliente.sendMessage>[0]));
      await esperarAte(
        async () => (await passoDe(url, id))?.includes('"generation":"v2"') === true,
        `o passo da Task ${id} seguindo a tarefa MCP`,
      );
      const inscrito = todos((await clienteOficial(segundo.url, 'JSONRPC')).resubscribeTask({ id, tenant: '' }));
      await primeiro.parar('SIGKILL');
      const eventos = await inscrito;
      assert.equal(resumo(eventos.at(-1) ?? {}), 'TASK_STATE_COMPLETED');
      await segundo.esperarLinha(new RegExp(`^varredura: tarefa MCP da Task ${id} seguida de novo, desfecho concluida$`));
      assert.ok(!segundo.linhas.some((linha) => /^mcp-> .*metodo=tools\/call /.test(linha)), 'the survivor never called the tool');
    } finally {
      await Promise.all([primeiro.parar('SIGKILL'), segundo.parar()]);
    }
  });
});

/** Short leases: a claim lasts 3 × 2 + 5 = 11 s, the sweep runs every second. */
const RAPIDO = { AGENTE_MCP_TIMEOUT_SECONDS: '2', AGENTE_SWEEP_SECONDS: '1' };

/** A fresh database on `postgres` and two agents on it, bridging the servers of `config`. */
async function doisAgentes(postgres: Postgres | undefined, config: string) {
  if (!postgres) throw new Error('postgres nao subiu');
  const url = await postgres.novoBanco(`tarefas_${randomUUID().replaceAll('-', '')}`);
  const [primeiro, segundo] = await Promise.all([
    iniciarAgenteGenerico(config, { TASKS_DB: url, ...RAPIDO }),
    iniciarAgenteGenerico(config, { TASKS_DB: url, ...RAPIDO }),
  ]);
  return { url, primeiro, segundo };
}

/** The first column of the first row of `sql`, on a connection of its own. */
async function consultar<T>(url: string, sql: string, valores: unknown[] = []): Promise<T | undefined> {
  const cliente = new pg.Client(url);
  await cliente.connect();
  try {
    const [linha] = (await cliente.query<Record<string, T>>(sql, valores)).rows;
    return linha && Object.values(linha)[0];
  } finally {
    await cliente.end();
  }
}

/** The Task's open step as the agents stored it (JSON text), or undefined. */
const passoDe = (url: string, taskId: string) => consultar<string>(url, 'SELECT dados FROM a2a_pausas WHERE task_id = $1', [taskId]);

/** Polls `condicao` until it holds, bounded in time: readiness read from the system itself. */
async function esperarAte(condicao: () => Promise<boolean>, descricao: string, ms = 30_000): Promise<void> {
  const limite = Date.now() + ms;
  while (!(await condicao())) {
    if (Date.now() > limite) throw new Error(`nao aconteceu em ${String(ms)} ms: ${descricao}`);
    await new Promise((resolver) => setTimeout(resolver, 50));
  }
}
