/** The bridge against a fake MCP client: the translation rules, one by one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/client';
import type { ClienteMcp, Continuacao, ResultadoDaFerramenta } from '../src/mcp-cliente.js';
import { ExclusaoLocal } from '../src/exclusao.js';
import { MENSAGEM_DE_PAUSA_EXPIRADA, PausasLimitadas } from '../src/limites.js';
import { PausasEmMemoria } from '../src/pausas.js';
import { MENSAGEM_SEM_PAUSA, Ponte } from '../src/ponte.js';
import { MENSAGEM_ESCOLHA_FORA_DO_FORMATO } from '../src/intencao.js';
import { objeto } from 'compartilhado/log';
import { novoTrace } from '../src/trace.js';
import { DONO_ANONIMO } from '../src/escopo.js';
import type { Entrada } from '../src/intencao.js';

const PEDIDO: Entrada = {
  texto: 'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty',
};
const POLITICA = 'versao: 2026-11-01\n\n- regras\n';

/** An input_required as the MCP SDK types it: a choice of `sala` among `alternativas`. */
const pausa = (alternativas: string[], requestState = 'estado-opaco'): ResultadoDaFerramenta => ({
  resultType: 'input_required',
  inputRequests: {
    chave_do_servidor: {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'm',
        requestedSchema: { type: 'object', properties: { sala: { type: 'string', enum: alternativas } }, required: ['sala'] },
      },
    },
  },
  requestState,
});
/** A question outside the SDK's types, as another server could send it: the bridge must check it at run time. */
const perguntaDoFio = (sala: object): ResultadoDaFerramenta =>
  JSON.parse(
    JSON.stringify({
      resultType: 'input_required',
      inputRequests: {
        chave_do_servidor: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: { sala } } },
        },
      },
      requestState: 'estado-opaco',
    }),
  ) as ResultadoDaFerramenta;
const reservada = (sala: string): ResultadoDaFerramenta => ({
  content: [],
  structuredContent: {
    reserva: 'res-0009',
    reservado: true,
    sala,
    inicio: 'i',
    fim: 'f',
    responsavel: 'Marty',
    politica: '2026-11-01',
    motivo: null,
  },
});

class McpFalso implements Pick<ClienteMcp, 'ferramentas' | 'lerTexto' | 'chamar' | 'url'> {
  readonly url = new URL('http://mcp.test/mcp');
  readonly chamadas: { name: string; args: Record<string, unknown>; traceparent: string; continuacao?: Continuacao }[] = [];
  ferramentasListadas = 0;
  constructor(
    private readonly respostas: (ResultadoDaFerramenta | Error)[],
    private readonly nomes = ['reservar_sala'],
  ) {}
  ferramentas(): Promise<Tool[]> {
    this.ferramentasListadas++;
    return Promise.resolve(this.nomes.map((name) => ({ name, inputSchema: { type: 'object' } })));
  }
  lerTexto(): Promise<string> {
    return Promise.resolve(POLITICA);
  }
  chamar(name: string, args: Record<string, unknown>, traceparent: string, continuacao?: Continuacao): Promise<ResultadoDaFerramenta> {
    this.chamadas.push({ name, args, traceparent, continuacao });
    const resposta = this.respostas.shift();
    if (!resposta) return Promise.reject(new Error('chamada inesperada'));
    if (resposta instanceof Error) return Promise.reject(resposta);
    return Promise.resolve(resposta);
  }
}

/** Step 5 as the executor runs it, counting how often the Task was set working. */
let tomadas = 0;
const responder = (ponte: Ponte, taskId: string, resposta: string | Entrada) =>
  ponte.retomar(taskId, typeof resposta === 'string' ? { texto: resposta } : resposta, undefined, () => void (tomadas += 1));

const montar = (respostas: (ResultadoDaFerramenta | Error)[], ferramentas?: string[]) => {
  const mcp = new McpFalso(respostas, ferramentas);
  const pausas = new PausasLimitadas(new PausasEmMemoria(), { maxPausadas: 100, validadeMs: 60_000 }, async () => {}, new ExclusaoLocal());
  return { mcp, pausas, ponte: new Ponte(mcp, pausas) };
};

describe('Ponte', () => {
  it('a request outside the format fails with the format, without calling MCP', async () => {
    const { mcp, ponte } = montar([]);
    const desfecho = await ponte.atender('t', { texto: 'quero uma sala' }, novoTrace(), DONO_ANONIMO);
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome>/);
    assert.equal(mcp.chamadas.length + mcp.ferramentasListadas, 0);
  });

  it('discovers the tool before calling it, and fails clearly when it is missing', async () => {
    const { mcp, ponte } = montar([], ['listar_salas']);
    const desfecho = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.deepEqual(desfecho, { estado: 'falhou', mensagem: 'O servidor MCP nao oferece a ferramenta reservar_sala.' });
    assert.equal(mcp.ferramentasListadas, 1);
  });

  it('a tool error fails the Task with the exact text', async () => {
    const { ponte } = montar([{ content: [{ type: 'text', text: 'Sala inexistente: sala-x' }], isError: true }]);
    assert.deepEqual(await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO), {
      estado: 'falhou',
      mensagem: 'Sala inexistente: sala-x',
    });
  });

  it('a booking completes with the artifact and the policy version read from the resource', async () => {
    const { ponte } = montar([reservada('sala-garagem')]);
    const desfecho = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.equal(desfecho.estado, 'concluida');
    assert.equal(desfecho.artefato.nome, 'reserva');
    assert.deepEqual(desfecho.artefato.dados, {
      reserva: 'res-0009',
      sala: 'sala-garagem',
      inicio: 'i',
      fim: 'f',
      responsavel: 'Marty',
      politica: '2026-11-01',
    });
  });

  it('input_required pauses with the enum in order; a const, or titled options, count as alternatives', async () => {
    for (const [resultado, linha] of [
      [pausa(['sala-fusca', 'sala-mirante']), 'alternativas: sala-fusca, sala-mirante'],
      [perguntaDoFio({ type: 'string', const: 'sala-mirante' }), 'alternativas: sala-mirante'],
      [
        perguntaDoFio({
          type: 'string',
          oneOf: [
            { const: 'sala-fusca', title: 'Fusca' },
            { const: 'sala-mirante', title: 'Mirante' },
          ],
        }),
        'alternativas: sala-fusca, sala-mirante',
      ],
    ] as const) {
      const { ponte } = montar([resultado]);
      const desfecho = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
      assert.ok(desfecho.estado === 'pausada', desfecho.mensagem);
      assert.equal(desfecho.mensagem, linha);
      assert.deepEqual(desfecho.dados.alternativas, linha.replace('alternativas: ', '').split(', '));
      // The question as the server wrote it, for clients that render it themselves; never the requestState.
      assert.deepEqual(
        desfecho.dados.pergunta,
        objeto(objeto(objeto(objeto(resultado.inputRequests)?.chave_do_servidor)?.params)?.requestedSchema),
      );
      assert.ok(!JSON.stringify(desfecho).includes('estado-opaco'));
    }
  });

  it('the answer repeats the original call with inputResponses under the same key and the state unchanged', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante']), reservada('sala-mirante')]);
    const trace = novoTrace();
    await ponte.atender('t', PEDIDO, trace, DONO_ANONIMO);
    const desfecho = await responder(ponte, 't', 'escolha=sala-mirante');
    assert.equal(desfecho.estado, 'concluida');
    const [primeira, retry] = mcp.chamadas;
    assert.ok(primeira && retry, 'MCP was called twice');
    assert.deepEqual(retry.args, primeira.args);
    assert.deepEqual(retry.continuacao, {
      inputResponses: { chave_do_servidor: { action: 'accept', content: { sala: 'sala-mirante' } } },
      requestState: 'estado-opaco',
    });
    assert.equal(retry.traceparent.split('-')[1], trace.traceId, 'a continuation without traceparent keeps the Task trace');
  });

  it('an answer in a data part is relayed like its text', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante']), reservada('sala-mirante')]);
    await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.equal((await responder(ponte, 't', { texto: '', dados: { escolha: 'sala-mirante' } })).estado, 'concluida');
    assert.deepEqual(mcp.chamadas[1]?.continuacao?.inputResponses, {
      chave_do_servidor: { action: 'accept', content: { sala: 'sala-mirante' } },
    });
  });

  it('recusar declines and cancels', async () => {
    const { mcp, ponte } = montar([
      pausa(['sala-fusca']),
      {
        content: [],
        structuredContent: {
          reserva: null,
          reservado: false,
          sala: null,
          inicio: null,
          fim: null,
          responsavel: null,
          politica: null,
          motivo: 'recusado',
        },
      },
    ]);
    await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.equal((await responder(ponte, 't', 'escolha=recusar')).estado, 'cancelada');
    assert.deepEqual(mcp.chamadas[1]?.continuacao?.inputResponses, { chave_do_servidor: { action: 'decline' } });
  });

  it('a choice outside the list, or other text, repeats the question without calling MCP, keeping the pause as it was', async () => {
    const { mcp, ponte, pausas } = montar([pausa(['sala-fusca', 'sala-mirante'])]);
    await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    const antes = await pausas.tomar('t');
    assert.ok(antes, 'the Task is paused');
    await pausas.devolver('t', antes.pausa);
    const casos: [string | Entrada, string][] = [
      ['escolha=sala-aquario', '"sala-aquario" nao esta entre as alternativas.'],
      ['sim', MENSAGEM_ESCOLHA_FORA_DO_FORMATO],
      ['', MENSAGEM_ESCOLHA_FORA_DO_FORMATO],
      [{ texto: '', dados: { escolha: 'sala-aquario' } }, '"sala-aquario" nao esta entre as alternativas.'],
      [{ texto: '', dados: { sala: 'sala-fusca' } }, 'Resposta em dados: falta o campo "escolha"; campo desconhecido "sala".'],
    ];
    for (const [resposta, erro] of casos) {
      const desfecho = await responder(ponte, 't', resposta);
      assert.ok(desfecho.estado === 'pausada', desfecho.mensagem);
      assert.equal(desfecho.mensagem, 'alternativas: sala-fusca, sala-mirante');
      assert.equal(desfecho.dados.erro, erro);
    }
    assert.equal(mcp.chamadas.length, 1);
    assert.deepEqual(await pausas.tomar('t'), antes);
  });

  it('a retry answered with input_required pauses again with the new list and state', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante']), pausa(['sala-mirante'], 'estado-2'), reservada('sala-mirante')]);
    await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    const outra = await responder(ponte, 't', 'escolha=sala-fusca');
    assert.deepEqual([outra.estado, outra.mensagem], ['pausada', 'alternativas: sala-mirante']);
    await responder(ponte, 't', 'escolha=sala-mirante');
    assert.equal(mcp.chamadas[2]?.continuacao?.requestState, 'estado-2');
  });

  it('two answers racing past the Task turn: only one takes the pause and reaches MCP', async () => {
    const { mcp, ponte } = montar([pausa(['a', 'b']), reservada('a')]);
    await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    tomadas = 0;
    const desfechos = await Promise.all([responder(ponte, 't', 'escolha=a'), responder(ponte, 't', 'escolha=b')]);
    assert.deepEqual(desfechos.map((d) => d.estado).sort(), ['concluida', 'falhou']);
    assert.ok(desfechos.some((d) => d.mensagem === MENSAGEM_SEM_PAUSA));
    assert.equal(mcp.chamadas.length, 2);
    assert.equal(tomadas, 1, 'only the taker sets the Task working');
  });

  it('paused state is per Task', async () => {
    const { mcp, ponte } = montar([pausa(['a'], 'sa'), pausa(['b'], 'sb'), reservada('b'), reservada('a')]);
    await ponte.atender('A', PEDIDO, novoTrace(), DONO_ANONIMO);
    await ponte.atender('B', PEDIDO, novoTrace(), DONO_ANONIMO);
    await responder(ponte, 'B', 'escolha=b');
    await responder(ponte, 'A', 'escolha=a');
    assert.deepEqual(
      mcp.chamadas.slice(2).map((c) => c.continuacao?.requestState),
      ['sb', 'sa'],
    );
  });

  it('an MCP failure ends the Task with a clear message and clears the pause', async () => {
    const { ponte, pausas } = montar([pausa(['a']), new TypeError('fetch failed')]);
    await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    const desfecho = await responder(ponte, 't', 'escolha=a');
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /^Servidor MCP indisponivel em http:\/\/mcp\.test\/mcp: fetch failed/);
    assert.equal(await pausas.tomar('t'), undefined);
  });

  it('a booking result outside the contract fails the Task instead of inventing a booking', async () => {
    const { ponte } = montar([{ content: [], structuredContent: { reservado: true, sala: 7 } }]);
    const desfecho = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /^O servidor MCP respondeu reservar_sala fora do contrato/);
  });

  it('an elicitation it cannot relay fails instead of guessing', async () => {
    const { ponte } = montar([perguntaDoFio({ type: 'string' })]);
    assert.equal((await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO)).estado, 'falhou');
  });
});

describe('Ponte, read-only skills', () => {
  const livre = { sala: 'sala-fusca', livre: true, conflitos: [] };
  const ocupada = { sala: 'sala-fusca', livre: false, conflitos: [{ id: 'res-0001', inicio: 'a', fim: 'b', responsavel: 'Doc' }] };
  const TODAS = ['listar_salas', 'consultar_disponibilidade', 'reservar_sala'];
  const consulta: Entrada = { texto: 'consultar sala=sala-fusca inicio=a fim=b' };

  it('listar salas: one call without arguments, COMPLETED with the artifact salas exactly as the tool wrote it', async () => {
    // Keys out of the contract's order: the artifact keeps the server's JSON as it came.
    const escrito = { salas: [{ recursos: ['tv'], capacidade: 12, nome: 'Fusca', id: 'sala-fusca' }] };
    const { mcp, ponte } = montar([{ content: [], structuredContent: escrito }], TODAS);
    const desfecho = await ponte.atender('t', { texto: 'listar salas' }, novoTrace(), DONO_ANONIMO);
    assert.deepEqual(desfecho, { estado: 'concluida', mensagem: '1 salas: sala-fusca.', artefato: { nome: 'salas', dados: escrito } });
    assert.ok(desfecho.estado === 'concluida');
    assert.equal(JSON.stringify(desfecho.artefato.dados), JSON.stringify(escrito));
    assert.deepEqual(
      mcp.chamadas.map((c) => [c.name, c.args]),
      [['listar_salas', {}]],
    );
  });

  it('consultar: the three fields as arguments, COMPLETED with the artifact disponibilidade, free or taken', async () => {
    for (const [resultado, mensagem] of [
      [livre, 'sala-fusca livre de a a b.'],
      [ocupada, 'sala-fusca ocupada de a a b: res-0001.'],
    ] as const) {
      const { mcp, ponte } = montar([{ content: [], structuredContent: resultado }], TODAS);
      assert.deepEqual(await ponte.atender('t', consulta, novoTrace(), DONO_ANONIMO), {
        estado: 'concluida',
        mensagem,
        artefato: { nome: 'disponibilidade', dados: resultado },
      });
      assert.deepEqual(mcp.chamadas[0]?.args, { sala: 'sala-fusca', inicio: 'a', fim: 'b' });
    }
  });

  it("a tool error fails with the tool's exact text; a result outside the contract, or a question, fails clearly", async () => {
    const erro = { content: [{ type: 'text' as const, text: 'Sala inexistente: sala-x' }], isError: true };
    assert.deepEqual(await montar([erro], TODAS).ponte.atender('t', consulta, novoTrace(), DONO_ANONIMO), {
      estado: 'falhou',
      mensagem: 'Sala inexistente: sala-x',
    });
    const fora = await montar([{ content: [], structuredContent: { salas: 'nenhuma' } }], TODAS).ponte.atender(
      't',
      { texto: 'listar salas' },
      novoTrace(),
      DONO_ANONIMO,
    );
    assert.match(fora.mensagem, /^O servidor MCP respondeu listar_salas fora do contrato/);
    const pergunta = await montar([pausa(['a'])], TODAS).ponte.atender('t', { texto: 'listar salas' }, novoTrace(), DONO_ANONIMO);
    assert.deepEqual(pergunta, { estado: 'falhou', mensagem: 'O servidor MCP fez uma pergunta que este agente nao sabe repassar.' });
  });

  it('a tool the server does not offer fails without calling it', async () => {
    const { mcp, ponte } = montar([], ['reservar_sala']);
    assert.deepEqual(await ponte.atender('t', { texto: '', dados: { skill: 'listar-salas' } }, novoTrace(), DONO_ANONIMO), {
      estado: 'falhou',
      mensagem: 'O servidor MCP nao oferece a ferramenta listar_salas.',
    });
    assert.equal(mcp.chamadas.length, 0);
  });
});

describe('Ponte and the pause lifetime', () => {
  it('an answer after the pause expired ends the Task with "send it again", without calling MCP', async () => {
    let agora = 0;
    const mcp = new McpFalso([pausa(['sala-fusca'])]);
    const pausas = new PausasLimitadas(
      new PausasEmMemoria(),
      { maxPausadas: 10, validadeMs: 600_000 },
      async () => {},
      new ExclusaoLocal(),
      () => agora,
    );
    const ponte = new Ponte(mcp, pausas);
    await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    agora += 600_000;
    assert.deepEqual(await responder(ponte, 't', 'escolha=sala-fusca'), { estado: 'falhou', mensagem: MENSAGEM_DE_PAUSA_EXPIRADA });
    assert.equal(mcp.chamadas.length, 1);
    assert.equal(await pausas.tomar('t'), undefined);
  });

  it('an answer to a Task whose pause is gone fails it with "send it again" instead of leaving it waiting', async () => {
    const { mcp, ponte } = montar([]);
    tomadas = 0;
    assert.deepEqual(await responder(ponte, 'sem-pausa', 'escolha=sala-fusca'), { estado: 'falhou', mensagem: MENSAGEM_SEM_PAUSA });
    assert.equal(mcp.chamadas.length + tomadas, 0);
  });
});
