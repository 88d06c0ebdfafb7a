/** The bridge against a fake MCP client: the translation rules, one by one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/client';
import type { ClienteMcp, Continuacao, ResultadoDaFerramenta } from '../src/mcp/cliente.js';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { META_IDEMPOTENCIA } from 'compartilhado/contrato';
import { Ponte, type Desfecho } from '../src/ponte/ponte.js';
import { MENSAGEM_ESCOLHA_FORA_DO_FORMATO } from '../src/salas/intencao.js';
import { objeto } from 'compartilhado/log';
import { novoTrace } from '../src/ponte/trace.js';
import { DONO_ANONIMO } from '../src/a2a/escopo.js';
import type { Entrada } from '../src/salas/intencao.js';

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
  readonly chamadas: {
    name: string;
    args: Record<string, unknown>;
    traceparent: string;
    continuacao?: Continuacao;
    meta?: Readonly<Record<string, string>>;
  }[] = [];
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
  chamar(
    name: string,
    args: Record<string, unknown>,
    traceparent: string,
    continuacao?: Continuacao,
    meta?: Readonly<Record<string, string>>,
  ): Promise<ResultadoDaFerramenta> {
    this.chamadas.push({ name, args, traceparent, continuacao, meta });
    const resposta = this.respostas.shift();
    if (!resposta) return Promise.reject(new Error('chamada inesperada'));
    if (resposta instanceof Error) return Promise.reject(resposta);
    return Promise.resolve(resposta);
  }
}

/** The question a paused outcome hands over, as the executor keeps it. */
function pausaDe(desfecho: Desfecho) {
  assert.ok(desfecho.estado === 'pausada' && desfecho.pergunta, `not a new question: ${desfecho.mensagem}`);
  return { ...desfecho.pergunta, criadaEm: 0 };
}

/** Step 5 as the executor runs it: the choice read against the pause, then the call with the answer. */
const responder = (ponte: Ponte, pausada: Desfecho, resposta: string | Entrada, trace?: ReturnType<typeof novoTrace>) => {
  const pausa = pausaDe(pausada);
  const escolha = ponte.escolher(pausa, typeof resposta === 'string' ? { texto: resposta } : resposta);
  return 'estado' in escolha ? Promise.resolve(escolha) : ponte.responder(pausa, escolha.resposta, trace ?? pausa.trace);
};

const montar = (respostas: (ResultadoDaFerramenta | Error)[], ferramentas?: string[]) => {
  const mcp = new McpFalso(respostas, ferramentas);
  return { mcp, ponte: new Ponte(mcp) };
};

/** A failure of the network layer with the code Node gives it (ECONNREFUSED, ECONNRESET, ...). */
const falhaDeRede = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

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
      // What the Task shows never carries the state; only the question kept apart does.
      assert.ok(!JSON.stringify([desfecho.mensagem, desfecho.dados]).includes('estado-opaco'));
      assert.equal(desfecho.pergunta?.requestState, 'estado-opaco');
    }
  });

  it('the answer repeats the original call with inputResponses under the same key and the state unchanged', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante']), reservada('sala-mirante')]);
    const trace = novoTrace();
    const pausada = await ponte.atender('t', PEDIDO, trace, DONO_ANONIMO);
    const desfecho = await responder(ponte, pausada, 'escolha=sala-mirante');
    assert.equal(desfecho.estado, 'concluida');
    const [primeira, retry] = mcp.chamadas;
    assert.ok(primeira && retry, 'MCP was called twice');
    assert.deepEqual(retry.args, primeira.args);
    // The first call is keyed by its Task, so a replay returns its booking; the retry is keyed by its state.
    assert.deepEqual(primeira.meta, { [META_IDEMPOTENCIA]: 't' });
    assert.equal(retry.meta, undefined);
    assert.deepEqual(retry.continuacao, {
      inputResponses: { chave_do_servidor: { action: 'accept', content: { sala: 'sala-mirante' } } },
      requestState: 'estado-opaco',
    });
    assert.equal(retry.traceparent.split('-')[1], trace.traceId, 'a continuation without traceparent keeps the Task trace');
  });

  it('an answer in a data part is relayed like its text', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante']), reservada('sala-mirante')]);
    const pausada = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.equal((await responder(ponte, pausada, { texto: '', dados: { escolha: 'sala-mirante' } })).estado, 'concluida');
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
    const pausada = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.equal((await responder(ponte, pausada, 'escolha=recusar')).estado, 'cancelada');
    assert.deepEqual(mcp.chamadas[1]?.continuacao?.inputResponses, { chave_do_servidor: { action: 'decline' } });
  });

  it('a choice outside the list, or other text, repeats the question without calling MCP and without a new pause', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante'])]);
    const pausada = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    const casos: [string | Entrada, string][] = [
      ['escolha=sala-aquario', '"sala-aquario" nao esta entre as alternativas.'],
      ['sim', MENSAGEM_ESCOLHA_FORA_DO_FORMATO],
      ['', MENSAGEM_ESCOLHA_FORA_DO_FORMATO],
      [{ texto: '', dados: { escolha: 'sala-aquario' } }, '"sala-aquario" nao esta entre as alternativas.'],
      [{ texto: '', dados: { sala: 'sala-fusca' } }, 'Resposta em dados: falta o campo "escolha"; campo desconhecido "sala".'],
    ];
    for (const [resposta, erro] of casos) {
      const desfecho = await responder(ponte, pausada, resposta);
      assert.ok(desfecho.estado === 'pausada', desfecho.mensagem);
      assert.equal(desfecho.mensagem, 'alternativas: sala-fusca, sala-mirante');
      assert.equal(desfecho.dados.erro, erro);
      assert.equal(desfecho.pergunta, undefined, 'the pause the Task has stays as it was');
    }
    assert.equal(mcp.chamadas.length, 1);
  });

  it('a retry answered with input_required pauses again with the new list and state', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante']), pausa(['sala-mirante'], 'estado-2'), reservada('sala-mirante')]);
    const pausada = await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    const outra = await responder(ponte, pausada, 'escolha=sala-fusca');
    assert.deepEqual([outra.estado, outra.mensagem], ['pausada', 'alternativas: sala-mirante']);
    await responder(ponte, outra, 'escolha=sala-mirante');
    assert.equal(mcp.chamadas[2]?.continuacao?.requestState, 'estado-2');
  });

  it('a booking whose outcome never arrived is uncertain, never failed: a timeout, a connection lost after sending, an internal error', async () => {
    for (const falha of [
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'),
      falhaDeRede('ECONNRESET'),
      falhaDeRede('UND_ERR_SOCKET'),
      new ProtocolError(ProtocolErrorCode.InternalError, 'Banco de reservas indisponivel'),
    ]) {
      const primeira = await montar([falha]).ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
      assert.equal(primeira.estado, 'incerto', primeira.mensagem);
      assert.match(primeira.mensagem, /^Sem desfecho do servidor MCP em http:\/\/mcp\.test\/mcp \(.+\): a reserva pode ter sido feita\./);
      const { ponte } = montar([pausa(['a']), falha]);
      const continuacao = await responder(ponte, await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO), 'escolha=a');
      assert.equal(continuacao.estado, 'incerto', continuacao.mensagem);
    }
  });

  it('an answer that provably did nothing keeps the question, saying why and that it can be sent again', async () => {
    for (const [falha, motivo] of [
      [falhaDeRede('ECONNREFUSED'), /^O servidor MCP esta inalcancavel em http:\/\/mcp\.test\/mcp \(fetch failed\)\./],
      [new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found'), /^O servidor MCP nao concluiu a resposta \(-32601/],
    ] as const) {
      const { ponte } = montar([pausa(['a', 'b']), falha]);
      const desfecho = await responder(ponte, await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO), 'escolha=a');
      assert.ok(desfecho.estado === 'pausada', desfecho.mensagem);
      assert.equal(desfecho.pergunta, undefined, 'the same question stays');
      assert.match(desfecho.dados.erro ?? '', motivo);
      assert.match(desfecho.dados.erro ?? '', /Nada foi reservado: envie a resposta de novo\.$/);
      assert.equal(desfecho.mensagem, `alternativas: a, b\n${desfecho.dados.erro ?? ''}`);
    }
  });

  it("a replay's own failure proves nothing of the earlier attempt: the booking stays uncertain, never failed or released", async () => {
    for (const falha of [
      falhaDeRede('ECONNREFUSED'),
      new ProtocolError(ProtocolErrorCode.InternalError, 'Banco de reservas indisponivel'),
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'),
    ]) {
      const primeira = await montar([falha]).ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO, true);
      assert.equal(primeira.estado, 'incerto', primeira.mensagem);
      const { ponte } = montar([pausa(['a']), falha]);
      const pausa1 = pausaDe(await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO));
      const resposta = await ponte.responder(pausa1, { action: 'accept', content: { sala: 'a' } }, pausa1.trace, true);
      assert.equal(resposta.estado, 'incerto', resposta.mensagem);
    }
    // A refused state is final even on a replay; a read-only request has nothing to be uncertain about.
    const { ponte } = montar([pausa(['a']), new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState invalido')]);
    const pausa2 = pausaDe(await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO));
    assert.equal((await ponte.responder(pausa2, { action: 'accept', content: { sala: 'a' } }, pausa2.trace, true)).estado, 'falhou');
    // The tool gone from the list before the replay: the earlier attempt may still have booked.
    const semFerramenta = await montar([], ['listar_salas']).ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO, true);
    assert.equal(semFerramenta.estado, 'incerto', semFerramenta.mensagem);
    const listar = await montar([falhaDeRede('ECONNREFUSED')], ['listar_salas']).ponte.atender(
      't',
      { texto: 'listar salas' },
      novoTrace(),
      DONO_ANONIMO,
      true,
    );
    assert.equal(listar.estado, 'falhou');
  });

  it('a refused state ends the Task: answering again cannot help', async () => {
    const { ponte } = montar([pausa(['a']), new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState invalido')]);
    const desfecho = await responder(ponte, await ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO), 'escolha=a');
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /A pergunta pode ter expirado: envie o pedido de novo\.$/);
  });

  it('a first call that never reached the server fails the Task: nothing was booked', async () => {
    const desfecho = await montar([falhaDeRede('ECONNREFUSED')]).ponte.atender('t', PEDIDO, novoTrace(), DONO_ANONIMO);
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /^Servidor MCP indisponivel em http:\/\/mcp\.test\/mcp: fetch failed/);
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
