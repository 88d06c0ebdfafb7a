/**
 * Both real processes, talking HTTP: every A2A and bridge acceptance
 * criterion of the spec and the evaluator's steps 5-10, read from the
 * responses and from the MCP server's stderr. Each test books on its own day.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod';
import { a2a, artefato, enviar, estado, mensagem, obter, pedido, reservaDe, tarefa, type RespostaA2A } from '../../test/apoio/a2a.js';
import { intermediario } from '../../test/apoio/intermediario.js';
import { Disponibilidade } from 'compartilhado/contrato';
import { chamar, estruturado } from '../../test/apoio/mcp.js';
import {
  ambosOsProcessos,
  iniciarAgente,
  iniciarServidorMcp,
  linhasAte,
  segredoDeTeste,
  type Processo,
} from '../../test/apoio/processos.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const dia = (n: number) => `2027-02-${String(n).padStart(2, '0')}`;

/** Every MCP stderr line of the requests answered so far. */
const logDoMcp = (mcp: Processo) => linhasAte(mcp, (id) => chamar(mcp.url, { metodo: 'tools/list', id }));
/** MCP stderr lines of tools/call, in order. */
const chamadasDeFerramenta = async (mcp: Processo) => (await logDoMcp(mcp)).filter((linha) => linha.includes('metodo=tools/call'));
const idDe = (linha: string) => {
  const id = /\bid=(\S+)/.exec(linha)?.[1];
  assert.ok(id !== undefined, `no id= in ${linha}`);
  return id;
};

/** The Agent Card as far as these tests read it; what the assertions compare stays unknown, so they decide. */
const CartaoNoFio = z.looseObject({
  name: z.unknown(),
  supportedInterfaces: z.array(z.unknown()),
  capabilities: z.unknown(),
  defaultInputModes: z.unknown(),
  skills: z.array(z.looseObject({ id: z.unknown(), description: z.unknown(), examples: z.array(z.string()).optional() })),
});
/** What the evaluator compares with the course's example card (exemplos/wire/07-a2a-agent-card.json), copied from it. */
const DO_EXEMPLO = {
  interfaceJsonRpc: { protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  reservarSala: {
    id: 'reservar-sala',
    name: 'Reservar sala',
    tags: ['salas', 'agenda'],
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
    primeiroExemplo: 'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty',
  },
};

/** The JSON object in the first text part of a Task's first artifact, as written: no key dropped, none reordered. */
function jsonDoArtefato(resposta: RespostaA2A): object {
  const texto = artefato(resposta).parts[0]?.text;
  assert.ok(texto !== undefined, resposta.texto);
  const valor: unknown = JSON.parse(texto);
  assert.ok(typeof valor === 'object' && valor !== null, texto);
  return valor;
}

describe('agente + servidor-mcp', () => {
  const processos = ambosOsProcessos();

  /** Occupies garagem 14-15 on day d, then asks for it over A2A: a paused Task offering fusca and mirante. */
  const pausar = async (d: string, responsavel = 'Biff', opcoes = {}) => {
    assert.equal(estado(await enviar(processos.agente.url, pedido('sala-garagem', d, '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
    const pausa = await enviar(processos.agente.url, pedido('sala-garagem', d, '14:00', '15:00', responsavel), opcoes);
    assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED', pausa.texto);
    return pausa;
  };

  describe('Agent Card', () => {
    it('keeps what the evaluator compares with exemplos/wire/07; adds REST, streaming, push and two skills', async () => {
      const resposta = await fetch(new URL('/.well-known/agent-card.json', processos.agente.url));
      assert.equal(resposta.status, 200);
      assert.equal(resposta.headers.get('access-control-allow-origin'), '*');
      const card = CartaoNoFio.parse(await resposta.json());
      const [jsonRpc, rest, ...outras] = card.supportedInterfaces;
      assert.deepEqual(jsonRpc, { url: `${processos.agente.url}/a2a`, ...DO_EXEMPLO.interfaceJsonRpc }, 'first, as in the example');
      assert.deepEqual(rest, { url: `${processos.agente.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
      assert.deepEqual(outras, []);
      assert.equal(card.name, 'Central de Salas');
      assert.deepEqual(card.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false });
      assert.deepEqual(card.defaultInputModes, ['text/plain', 'application/json']);
      const { primeiroExemplo, ...campos } = DO_EXEMPLO.reservarSala;
      const reservar = card.skills.find((s) => s.id === 'reservar-sala');
      assert.ok(reservar, 'the reservar-sala skill');
      assert.deepEqual(Object.fromEntries(Object.keys(campos).map((campo) => [campo, reservar[campo]])), campos);
      assert.equal(reservar.examples?.[0], primeiroExemplo);
      assert.deepEqual(
        card.skills.map((s) => s.id),
        ['reservar-sala', 'listar-salas', 'consultar-disponibilidade'],
      );
    });
  });

  describe('Tasks', () => {
    it('a free room: COMPLETED with the artifact reserva and the policy version; GetTask shows it all', async () => {
      const resposta = await enviar(processos.agente.url, pedido('sala-porao', dia(1), '09:00', '10:00'), { traceparent: TRACEPARENT });
      assert.equal(resposta.status, 200);
      assert.equal(estado(resposta), 'TASK_STATE_COMPLETED');
      const task = tarefa(resposta);
      assert.ok(task.id && task.contextId && task.id !== task.contextId);
      assert.equal(artefato(resposta).name, 'reserva');
      // The raw JSON, not reservaDe's parse: a schema would drop extra keys and set its own key order.
      const escrita = jsonDoArtefato(resposta);
      // The text part first, as the course's clients read it; the same object beside it as data.
      assert.deepEqual(artefato(resposta).parts.slice(1), [{ data: escrita, mediaType: 'application/json' }]);
      assert.deepEqual(Object.keys(escrita), ['reserva', 'sala', 'inicio', 'fim', 'responsavel', 'politica']);
      assert.deepEqual(
        { ...escrita, reserva: undefined },
        {
          reserva: undefined,
          sala: 'sala-porao',
          inicio: `${dia(1)}T09:00:00-03:00`,
          fim: `${dia(1)}T10:00:00-03:00`,
          responsavel: 'Doc',
          politica: '2026-11-01',
        },
      );
      const reserva = reservaDe(resposta);
      assert.match(reserva.reserva, /^res-\d{4}$/);
      assert.equal(mensagem(resposta), `Reserva ${reserva.reserva} confirmada na sala-porao.`);
      const lida = await obter(processos.agente.url, task.id);
      assert.deepEqual([tarefa(lida).id, tarefa(lida).contextId, estado(lida)], [task.id, task.contextId, 'TASK_STATE_COMPLETED']);
      assert.deepEqual(artefato(lida), artefato(resposta));
    });

    it('an unknown room: FAILED with the exact tool text in the history', async () => {
      const resposta = await enviar(processos.agente.url, pedido('sala-inexistente', dia(1), '09:00', '10:00'));
      assert.equal(estado(resposta), 'TASK_STATE_FAILED');
      assert.equal(mensagem(resposta), 'Sala inexistente: sala-inexistente');
      const historico = tarefa(await obter(processos.agente.url, tarefa(resposta).id)).history ?? [];
      assert.ok(historico.some((m) => m.role === 'ROLE_AGENT' && m.parts[0]?.text === 'Sala inexistente: sala-inexistente'));
    });

    it('a request outside the format: FAILED with the expected format, and no MCP call', async () => {
      const antes = (await chamadasDeFerramenta(processos.mcp)).length;
      const resposta = await enviar(processos.agente.url, 'reserva a garagem amanha');
      assert.equal(estado(resposta), 'TASK_STATE_FAILED');
      assert.match(mensagem(resposta), /reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome>/);
      assert.equal((await chamadasDeFerramenta(processos.mcp)).length, antes);
    });

    it('terminal states are final: COMPLETED, FAILED and CANCELED Tasks refuse a new message', async () => {
      const concluida = await enviar(processos.agente.url, pedido('sala-aquario', dia(2), '09:00', '10:00'));
      const falha = await enviar(processos.agente.url, pedido('sala-x', dia(2), '09:00', '10:00'));
      const pausa = await pausar(dia(2));
      const cancelada = await enviar(processos.agente.url, 'escolha=recusar', { taskId: tarefa(pausa).id });
      assert.equal(estado(cancelada), 'TASK_STATE_CANCELED');
      for (const resposta of [concluida, falha, cancelada]) {
        const id = tarefa(resposta).id;
        const de_novo = await enviar(processos.agente.url, 'escolha=sala-mirante', { taskId: id });
        assert.ok(de_novo.corpo.error, de_novo.texto);
        assert.equal(estado(await obter(processos.agente.url, id)), estado(resposta));
      }
    });

    it('an unknown task is an error, not a new Task', async () => {
      const resposta = await enviar(processos.agente.url, 'escolha=sala-fusca', { taskId: 'task-que-nao-existe' });
      assert.equal(resposta.corpo.error?.code, -32001);
    });

    it('works without an A2A-Version header, and refuses an unsupported one', async () => {
      const feita = await enviar(processos.agente.url, pedido('sala-aquario', dia(24), '09:00', '10:00'));
      const id: string = tarefa(feita).id;
      assert.equal(estado(await obter(processos.agente.url, id)), 'TASK_STATE_COMPLETED', 'no header: read as 1.0');
      assert.equal(estado(await a2a(processos.agente.url, 'GetTask', { id }, { 'A2A-Version': '1.0' })), 'TASK_STATE_COMPLETED');
      // The same read of a Task that exists, in a version this agent does not speak: refused for the version alone.
      const velho = await a2a(processos.agente.url, 'GetTask', { id }, { 'A2A-Version': '0.9' });
      assert.equal(velho.corpo.error?.code, -32009, velho.texto);
    });
  });

  describe('the bridge', () => {
    it('a taken room pauses with exactly "alternativas: <ids>" in enum order', async () => {
      const pausa = await pausar(dia(3));
      assert.equal(mensagem(pausa), 'alternativas: sala-fusca, sala-mirante');
      const [linha, ...resto] = tarefa(pausa).status.message?.parts ?? [];
      assert.deepEqual(linha, { text: 'alternativas: sala-fusca, sala-mirante' }, 'the text part first, and alone in it');
      assert.deepEqual(
        resto.map((parte) => Object.keys(parte.data ?? {})),
        [['alternativas', 'pergunta', 'inputRequests']],
      );
      assert.equal(estado(await obter(processos.agente.url, tarefa(pausa).id)), 'TASK_STATE_INPUT_REQUIRED');
    });

    it('escolha=<id> repeats the tools/call on a new id and completes in the chosen room', async () => {
      const pausa = await pausar(dia(4), 'Biff', { traceparent: TRACEPARENT });
      const antes = (await chamadasDeFerramenta(processos.mcp)).length;
      const fim = await enviar(processos.agente.url, 'escolha=sala-mirante', { taskId: tarefa(pausa).id });
      assert.equal(estado(fim), 'TASK_STATE_COMPLETED');
      const reserva = reservaDe(fim);
      assert.equal(reserva.sala, 'sala-mirante');
      assert.equal(reserva.responsavel, 'Biff');
      const chamadas = await chamadasDeFerramenta(processos.mcp);
      const retry = chamadas[antes];
      const original = chamadas[antes - 1];
      assert.ok(retry !== undefined && original !== undefined, chamadas.join('\n'));
      assert.match(original, /resultado=input_required/);
      assert.match(retry, /resultado=complete/);
      assert.notEqual(idDe(retry), idDe(original));
      // Evaluator step 6 and the trace: the continuation carried no traceparent, the Task's trace goes on.
      assert.ok(original.includes(`traceparent=00-${TRACE_ID}-`) && retry.includes(`traceparent=00-${TRACE_ID}-`));
    });

    it('escolha=recusar ends CANCELED and books nothing', async () => {
      const pausa = await pausar(dia(5));
      const fim = await enviar(processos.agente.url, 'escolha=recusar', { taskId: tarefa(pausa).id });
      assert.equal(estado(fim), 'TASK_STATE_CANCELED');
      // The Task's first artifact, read without artefato(), which fails on a Task that has none.
      assert.equal(tarefa(fim).artifacts?.[0], undefined);
      for (const sala of ['sala-fusca', 'sala-mirante']) {
        const consulta = await chamar(processos.mcp.url, {
          metodo: 'tools/call',
          params: {
            name: 'consultar_disponibilidade',
            arguments: { sala, inicio: `${dia(5)}T14:00:00-03:00`, fim: `${dia(5)}T15:00:00-03:00` },
          },
        });
        assert.equal(estruturado(consulta, Disponibilidade).livre, true, `${sala} stays free`);
      }
    });

    it('a choice outside the enum, or any other text, keeps INPUT_REQUIRED with the same line and calls nothing', async () => {
      const pausa = await pausar(dia(6));
      const antes = (await chamadasDeFerramenta(processos.mcp)).length;
      for (const texto of ['escolha=sala-aquario', 'escolha=sala-garagem', 'talvez', '']) {
        const resposta = await enviar(processos.agente.url, texto, { taskId: tarefa(pausa).id });
        assert.equal(estado(resposta), 'TASK_STATE_INPUT_REQUIRED');
        assert.equal(mensagem(resposta), 'alternativas: sala-fusca, sala-mirante');
      }
      assert.equal((await chamadasDeFerramenta(processos.mcp)).length, antes);
      assert.equal(estado(await enviar(processos.agente.url, 'escolha=sala-fusca', { taskId: tarefa(pausa).id })), 'TASK_STATE_COMPLETED');
    });

    it('CancelTask on a paused Task ends it CANCELED for good', async () => {
      const pausa = await pausar(dia(7));
      const cancelada = await a2a(processos.agente.url, 'CancelTask', { id: tarefa(pausa).id });
      assert.equal(estado(cancelada), 'TASK_STATE_CANCELED');
      assert.ok((await enviar(processos.agente.url, 'escolha=sala-fusca', { taskId: tarefa(pausa).id })).corpo.error);
    });

    it('many paused Tasks at once, continued in reverse order, each finish with their own booking', async () => {
      const dias = [8, 9, 10, 11, 12].map(dia);
      const pausas = await Promise.all(dias.map((d, i) => pausar(d, `Pessoa ${i}`)));
      const fins: RespostaA2A[] = [];
      for (const [i, pausa] of [...pausas.entries()].reverse()) {
        fins[i] = await enviar(processos.agente.url, `escolha=${i % 2 ? 'sala-fusca' : 'sala-mirante'}`, { taskId: tarefa(pausa).id });
      }
      const reservas = fins.map(reservaDe);
      reservas.forEach((reserva, i) => {
        assert.equal(reserva.inicio, `${dias[i]}T14:00:00-03:00`);
        assert.equal(reserva.responsavel, `Pessoa ${i}`);
        assert.equal(reserva.sala, i % 2 ? 'sala-fusca' : 'sala-mirante');
      });
      assert.equal(new Set(reservas.map((r) => r.reserva)).size, reservas.length);
    });

    it('is deterministic: the same request twice gives the same pause text', async () => {
      await enviar(processos.agente.url, pedido('sala-porao', dia(13), '09:00', '10:00'));
      const a = await enviar(processos.agente.url, pedido('sala-porao', dia(13), '09:00', '10:00'));
      const b = await enviar(processos.agente.url, pedido('sala-porao', dia(13), '09:00', '10:00'));
      assert.equal(mensagem(a), mensagem(b));
      assert.match(mensagem(a), /^alternativas: /);
    });

    it('with a traceparent header, every MCP request of the Task carries its trace-id with a new span-id', async () => {
      const marca = (await logDoMcp(processos.mcp)).length;
      await enviar(processos.agente.url, pedido('sala-fusca', dia(14), '09:00', '10:00'), { traceparent: TRACEPARENT });
      const linhas = (await logDoMcp(processos.mcp)).slice(marca).filter((l) => l.includes('metodo=tools/call'));
      assert.ok(linhas.length >= 1);
      for (const linha of linhas) {
        assert.ok(linha.includes(`traceparent=00-${TRACE_ID}-`), linha);
        assert.ok(!linha.includes('00f067aa0ba902b7'), 'a new span-id');
      }
    });

    it('without one, the agent starts its own trace and keeps it across the continuation', async () => {
      const marca = (await logDoMcp(processos.mcp)).length;
      const pausa = await pausar(dia(15));
      await enviar(processos.agente.url, 'escolha=sala-fusca', { taskId: tarefa(pausa).id });
      const chamadas = (await logDoMcp(processos.mcp))
        .slice(marca)
        .filter((l) => l.includes('metodo=tools/call'))
        .slice(-2);
      const traces = chamadas.map((l) => /traceparent=00-([0-9a-f]{32})-/.exec(l)?.[1]);
      assert.equal(traces.length, 2);
      assert.ok(traces[0] && traces[0] === traces[1], chamadas.join('\n'));
    });
  });
});

describe('agente on its own processes', () => {
  it('evaluator step 5: its first tools/call comes after a tools/list in the MCP log', async () => {
    const mcp = await iniciarServidorMcp();
    const agente = await iniciarAgente(mcp.url);
    try {
      assert.equal(estado(await enviar(agente.url, pedido('sala-aquario', dia(21), '09:00', '10:00'))), 'TASK_STATE_COMPLETED');
      const doAgente = (await logDoMcp(mcp)).filter((l) => /traceparent=00-/.test(l));
      const lista = doAgente.findIndex((l) => l.includes('metodo=tools/list'));
      const chamada = doAgente.findIndex((l) => l.includes('metodo=tools/call'));
      assert.ok(chamada >= 0, doAgente.join('\n'));
      assert.ok(lista >= 0 && lista < chamada, doAgente.slice(0, 3).join('\n'));
    } finally {
      await agente.parar();
      await mcp.parar();
    }
  });

  it('a paused Task survives a restart of the MCP server, even on another port', async () => {
    const segredo = segredoDeTeste();
    const primeiro = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo });
    const frente = await intermediario(primeiro.url);
    const agente = await iniciarAgente(frente.url);
    let segundo: Processo | undefined;
    try {
      assert.equal(estado(await enviar(agente.url, pedido('sala-garagem', dia(22), '14:00', '15:00', 'Marty'))), 'TASK_STATE_COMPLETED');
      const pausa = await enviar(agente.url, pedido('sala-garagem', dia(22), '14:00', '15:00', 'Biff'));
      assert.equal(estado(pausa), 'TASK_STATE_INPUT_REQUIRED');
      assert.equal(await primeiro.parar(), 0);
      segundo = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo });
      frente.apontar(segundo.url);
      const fim = await enviar(agente.url, 'escolha=sala-mirante', { taskId: tarefa(pausa).id });
      assert.equal(estado(fim), 'TASK_STATE_COMPLETED', fim.texto);
      assert.equal(reservaDe(fim).sala, 'sala-mirante');
    } finally {
      await agente.parar();
      await frente.fechar();
      await segundo?.parar();
      await primeiro.parar();
    }
  });

  it('with the MCP server down: the Task fails with a clear message, the agent keeps serving, and recovers when MCP is back', async () => {
    const frente = await intermediario(undefined);
    const agente = await iniciarAgente(frente.url);
    const mcp = await iniciarServidorMcp();
    try {
      const resposta = await enviar(agente.url, pedido('sala-aquario', dia(20), '09:00', '10:00'));
      assert.equal(estado(resposta), 'TASK_STATE_FAILED');
      assert.ok(mensagem(resposta).startsWith(`Servidor MCP indisponivel em ${frente.url}`), mensagem(resposta));
      assert.equal((await fetch(new URL('/.well-known/agent-card.json', agente.url))).status, 200);
      frente.apontar(mcp.url);
      assert.equal(estado(await enviar(agente.url, pedido('sala-aquario', dia(20), '09:00', '10:00'))), 'TASK_STATE_COMPLETED');
    } finally {
      await agente.parar();
      await frente.fechar();
      await mcp.parar();
    }
  });

  it('no A2A response of a whole round (pause, wrong choice, answer, read, refusal) carries a requestState', async () => {
    const mcp = await iniciarServidorMcp();
    const agente = await iniciarAgente(mcp.url);
    try {
      const respostas = [await enviar(agente.url, pedido('sala-garagem', dia(23), '14:00', '15:00', 'Marty'))];
      const pausa = await enviar(agente.url, pedido('sala-garagem', dia(23), '14:00', '15:00', 'Biff'));
      const outra = await enviar(agente.url, pedido('sala-garagem', dia(23), '14:00', '15:00', 'Lorraine'));
      respostas.push(pausa, outra);
      respostas.push(await enviar(agente.url, 'escolha=sala-aquario', { taskId: tarefa(pausa).id }));
      respostas.push(await enviar(agente.url, 'escolha=sala-fusca', { taskId: tarefa(pausa).id }));
      respostas.push(await obter(agente.url, tarefa(pausa).id));
      respostas.push(await enviar(agente.url, 'escolha=recusar', { taskId: tarefa(outra).id }));
      respostas.push(await a2a(agente.url, 'ListTasks', {}));
      assert.deepEqual(respostas.slice(1, 5).map(estado), [
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_COMPLETED',
      ]);
      for (const { texto } of respostas) assert.doesNotMatch(texto, /v1\.[\w-]{20,}\.[\w-]{20,}|requestState|inputResponses/);
    } finally {
      await agente.parar();
      await mcp.parar();
    }
  });
});
