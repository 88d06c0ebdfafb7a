/** The bridge against a fake MCP client: the translation rules, one by one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  UrlElicitationRequiredError,
  type InputRequiredResult,
  type Tool,
} from '@modelcontextprotocol/client';
import { ClienteMcp } from '../src/mcp/cliente.js';
import {
  idDaSkill,
  type ConexaoMcp,
  type Continuacao,
  type Era,
  type OpcoesDaChamada,
  type ResultadoDaFerramenta,
} from '../src/mcp/conexao.js';
import { META_IDEMPOTENCIA } from 'compartilhado/contrato';
import { perfilGenerico, type Skills } from '../src/ponte/generico.js';
import { MAXIMO_DE_RODADAS, MENSAGEM_SESSAO_PERDIDA, Ponte, type OpcoesDoPasso } from '../src/ponte/ponte.js';
import { ChamadasVivas } from '../src/ponte/vivas.js';
import { perfilDeSalas } from '../src/salas/perfil.js';
import { MENSAGEM_ESCOLHA_FORA_DO_FORMATO } from '../src/salas/intencao.js';
import { objeto } from 'compartilhado/log';
import { novoTrace, type Trace } from '../src/ponte/trace.js';
import { DONO_ANONIMO } from '../src/armazenamento/escopo.js';
import type { Desfecho, Entrada, Pausa, Questao, Respostas } from '../src/ponte/tipos.js';

/** One skill, as Skills lists it. */
type Skill = ReturnType<Skills['lista']>[number];

const PEDIDO: Entrada = {
  texto: 'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty',
};
const POLITICA = 'versao: 2026-11-01\n\n- regras\n';

/** An input_required as the MCP SDK types it: a choice of `sala` among `alternativas`. */
const pausa = (alternativas: string[], requestState = 'estado-opaco'): InputRequiredResult => ({
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
const perguntaDoFio = (sala: object): InputRequiredResult =>
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
  ) as InputRequiredResult;
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

/**
 * The room server as the room profile reaches it: the real ClienteMcp's
 * name, URL and era ('moderna'), with the three requests it makes answered
 * by the test (it never connects).
 */
class McpFalso extends ClienteMcp {
  readonly chamadas: {
    name: string;
    args: Record<string, unknown>;
    traceparent: string;
    continuacao?: Continuacao | undefined;
    meta?: Readonly<Record<string, string>> | undefined;
  }[] = [];
  ferramentasListadas = 0;
  constructor(
    private readonly roteiro: (ResultadoDaFerramenta | Error)[],
    private readonly nomes = ['reservar_sala'],
  ) {
    super(new URL('http://mcp.test/mcp'), () => undefined);
  }
  override conectar(): Promise<void> {
    return Promise.reject(new Error('the fake never connects'));
  }
  override ferramentas(): Promise<Tool[]> {
    this.ferramentasListadas++;
    return Promise.resolve(this.nomes.map((name) => ({ name, inputSchema: { type: 'object' } })));
  }
  override lerTexto(): Promise<string> {
    return Promise.resolve(POLITICA);
  }
  override chamar(name: string, args: Record<string, unknown>, opcoes: OpcoesDaChamada): Promise<ResultadoDaFerramenta> {
    const { traceparent, continuacao, meta } = opcoes;
    this.chamadas.push({ name, args, traceparent, continuacao, meta });
    const resposta = this.roteiro.shift();
    if (!resposta) return Promise.reject(new Error('chamada inesperada'));
    if (resposta instanceof Error) return Promise.reject(resposta);
    return Promise.resolve(resposta);
  }
}

/** A new Task's request as the executor hands it to the bridge. */
const pedido = (entrada: Entrada, trace: Trace = novoTrace()) => ({ pedido: entrada, trace, dono: DONO_ANONIMO });
const REPETICAO: OpcoesDoPasso = { repeticao: true };
/** The room question's answer, keyed as the server keyed the question. */
const aceita = (sala: string) => ({ chave_do_servidor: { action: 'accept' as const, content: { sala } } });

/** The question a paused outcome hands over, as the executor keeps it. */
function pausaDe(desfecho: Desfecho): Pausa {
  assert.ok(desfecho.estado === 'pausada' && desfecho.pergunta, `not a new question: ${desfecho.mensagem}`);
  return { ...desfecho.pergunta, criadaEm: 0 };
}

/** Step 5 as the executor runs it: the choice read against the pause, then the call with the answer. */
const responder = (ponte: Ponte, pausada: Desfecho, resposta: string | Entrada, trace?: Trace) => {
  const pausa = pausaDe(pausada);
  const escolha = ponte.escolher('t', pausa, typeof resposta === 'string' ? { texto: resposta } : resposta);
  return 'estado' in escolha ? Promise.resolve(escolha) : ponte.responder('t', pausa, escolha.respostas, trace ?? pausa.trace);
};

const montar = (roteiro: (ResultadoDaFerramenta | Error)[], ferramentas?: string[]) => {
  const mcp = new McpFalso(roteiro, ferramentas);
  return { mcp, ponte: new Ponte(perfilDeSalas(mcp), new ChamadasVivas('este', 600_000)) };
};

/** The reason a paused outcome gives for not taking the last answer. */
function erroDe(desfecho: Desfecho): string {
  assert.ok(desfecho.estado === 'pausada', desfecho.mensagem);
  const { erro } = desfecho.dados;
  assert.ok(typeof erro === 'string', 'the pause says why');
  return erro;
}

/** A failure of the network layer with the code Node gives it (ECONNREFUSED, ECONNRESET, ...). */
const falhaDeRede = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

describe('Ponte', () => {
  it('a request outside the format fails with the format, without calling MCP', async () => {
    const { mcp, ponte } = montar([]);
    const desfecho = await ponte.atender('t', pedido({ texto: 'quero uma sala' }));
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome>/);
    assert.equal(mcp.chamadas.length + mcp.ferramentasListadas, 0);
  });

  it('discovers the tool before calling it, and fails clearly when it is missing', async () => {
    const { mcp, ponte } = montar([], ['listar_salas']);
    const desfecho = await ponte.atender('t', pedido(PEDIDO));
    assert.deepEqual(desfecho, { estado: 'falhou', mensagem: 'O servidor MCP nao oferece a ferramenta reservar_sala.' });
    assert.equal(mcp.ferramentasListadas, 1);
  });

  it('a tool error fails the Task with the exact text', async () => {
    const { ponte } = montar([{ content: [{ type: 'text', text: 'Sala inexistente: sala-x' }], isError: true }]);
    assert.deepEqual(await ponte.atender('t', pedido(PEDIDO)), {
      estado: 'falhou',
      mensagem: 'Sala inexistente: sala-x',
    });
  });

  it('a booking completes with the artifact and the policy version read from the resource', async () => {
    const { ponte } = montar([reservada('sala-garagem')]);
    const desfecho = await ponte.atender('t', pedido(PEDIDO));
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
      const desfecho = await ponte.atender('t', pedido(PEDIDO));
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
    const pausada = await ponte.atender('t', pedido(PEDIDO, trace));
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
    const pausada = await ponte.atender('t', pedido(PEDIDO));
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
    const pausada = await ponte.atender('t', pedido(PEDIDO));
    assert.equal((await responder(ponte, pausada, 'escolha=recusar')).estado, 'cancelada');
    assert.deepEqual(mcp.chamadas[1]?.continuacao?.inputResponses, { chave_do_servidor: { action: 'decline' } });
  });

  it('a choice outside the list, or other text, repeats the question without calling MCP and without a new pause', async () => {
    const { mcp, ponte } = montar([pausa(['sala-fusca', 'sala-mirante'])]);
    const pausada = await ponte.atender('t', pedido(PEDIDO));
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
    const pausada = await ponte.atender('t', pedido(PEDIDO));
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
      const primeira = await montar([falha]).ponte.atender('t', pedido(PEDIDO));
      assert.equal(primeira.estado, 'incerto', primeira.mensagem);
      assert.match(primeira.mensagem, /^Sem desfecho do servidor MCP em http:\/\/mcp\.test\/mcp \(.+\): a reserva pode ter sido feita\./);
      const { ponte } = montar([pausa(['a']), falha]);
      const continuacao = await responder(ponte, await ponte.atender('t', pedido(PEDIDO)), 'escolha=a');
      assert.equal(continuacao.estado, 'incerto', continuacao.mensagem);
    }
  });

  it('an answer that provably did nothing keeps the question, saying why and that it can be sent again', async () => {
    for (const [falha, motivo] of [
      [falhaDeRede('ECONNREFUSED'), /^O servidor MCP esta inalcancavel em http:\/\/mcp\.test\/mcp \(fetch failed\)\./],
      [new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found'), /^O servidor MCP nao concluiu a resposta \(-32601/],
    ] as const) {
      const { ponte } = montar([pausa(['a', 'b']), falha]);
      const desfecho = await responder(ponte, await ponte.atender('t', pedido(PEDIDO)), 'escolha=a');
      assert.ok(desfecho.estado === 'pausada', desfecho.mensagem);
      assert.equal(desfecho.pergunta, undefined, 'the same question stays');
      assert.match(erroDe(desfecho), motivo);
      assert.match(erroDe(desfecho), /Nada foi reservado: envie a resposta de novo\.$/);
      assert.equal(desfecho.mensagem, `alternativas: a, b\n${erroDe(desfecho)}`);
    }
  });

  it("a replay's own failure proves nothing of the earlier attempt: the booking stays uncertain, never failed or released", async () => {
    for (const falha of [
      falhaDeRede('ECONNREFUSED'),
      new ProtocolError(ProtocolErrorCode.InternalError, 'Banco de reservas indisponivel'),
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'),
    ]) {
      const primeira = await montar([falha]).ponte.atender('t', pedido(PEDIDO), REPETICAO);
      assert.equal(primeira.estado, 'incerto', primeira.mensagem);
      const { ponte } = montar([pausa(['a']), falha]);
      const pausa1 = pausaDe(await ponte.atender('t', pedido(PEDIDO)));
      const resposta = await ponte.responder('t', pausa1, aceita('a'), pausa1.trace, REPETICAO);
      assert.equal(resposta.estado, 'incerto', resposta.mensagem);
    }
    // A refused state is final even on a replay; a read-only request has nothing to be uncertain about.
    const { ponte } = montar([pausa(['a']), new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState invalido')]);
    const pausa2 = pausaDe(await ponte.atender('t', pedido(PEDIDO)));
    assert.equal((await ponte.responder('t', pausa2, aceita('a'), pausa2.trace, REPETICAO)).estado, 'falhou');
    // The tool gone from the list before the replay: the earlier attempt may still have booked.
    const semFerramenta = await montar([], ['listar_salas']).ponte.atender('t', pedido(PEDIDO), REPETICAO);
    assert.equal(semFerramenta.estado, 'incerto', semFerramenta.mensagem);
    const listar = await montar([falhaDeRede('ECONNREFUSED')], ['listar_salas']).ponte.atender(
      't',
      pedido({ texto: 'listar salas' }),
      REPETICAO,
    );
    assert.equal(listar.estado, 'falhou');
  });

  it('a refused state ends the Task: answering again cannot help', async () => {
    const { ponte } = montar([pausa(['a']), new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState invalido')]);
    const desfecho = await responder(ponte, await ponte.atender('t', pedido(PEDIDO)), 'escolha=a');
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /A pergunta pode ter expirado: envie o pedido de novo\.$/);
  });

  it('a first call that never reached the server fails the Task: nothing was booked', async () => {
    const desfecho = await montar([falhaDeRede('ECONNREFUSED')]).ponte.atender('t', pedido(PEDIDO));
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /^Servidor MCP indisponivel em http:\/\/mcp\.test\/mcp: fetch failed/);
  });

  it('a booking result outside the contract fails the Task instead of inventing a booking', async () => {
    const { ponte } = montar([{ content: [], structuredContent: { reservado: true, sala: 7 } }]);
    const desfecho = await ponte.atender('t', pedido(PEDIDO));
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /^O servidor MCP respondeu reservar_sala fora do contrato/);
  });

  it('an elicitation it cannot relay fails instead of guessing', async () => {
    const { ponte } = montar([perguntaDoFio({ type: 'string' })]);
    assert.equal((await ponte.atender('t', pedido(PEDIDO))).estado, 'falhou');
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
    const desfecho = await ponte.atender('t', pedido({ texto: 'listar salas' }));
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
      assert.deepEqual(await ponte.atender('t', pedido(consulta)), {
        estado: 'concluida',
        mensagem,
        artefato: { nome: 'disponibilidade', dados: resultado },
      });
      assert.deepEqual(mcp.chamadas[0]?.args, { sala: 'sala-fusca', inicio: 'a', fim: 'b' });
    }
  });

  it("a tool error fails with the tool's exact text; a result outside the contract fails clearly", async () => {
    const erro = { content: [{ type: 'text' as const, text: 'Sala inexistente: sala-x' }], isError: true };
    assert.deepEqual(await montar([erro], TODAS).ponte.atender('t', pedido(consulta)), {
      estado: 'falhou',
      mensagem: 'Sala inexistente: sala-x',
    });
    const fora = await montar([{ content: [], structuredContent: { salas: 'nenhuma' } }], TODAS).ponte.atender(
      't',
      pedido({ texto: 'listar salas' }),
    );
    assert.match(fora.mensagem, /^O servidor MCP respondeu listar_salas fora do contrato/);
  });

  it('a question from a read-only tool fails clearly', async () => {
    const pergunta = await montar([pausa(['a'])], TODAS).ponte.atender('t', pedido({ texto: 'listar salas' }));
    assert.deepEqual(pergunta, { estado: 'falhou', mensagem: 'O servidor MCP fez uma pergunta que este agente nao sabe repassar.' });
  });

  it('a tool the server does not offer fails without calling it', async () => {
    const { mcp, ponte } = montar([], ['reservar_sala']);
    assert.deepEqual(await ponte.atender('t', pedido({ texto: '', dados: { skill: 'listar-salas' } })), {
      estado: 'falhou',
      mensagem: 'O servidor MCP nao oferece a ferramenta listar_salas.',
    });
    assert.equal(mcp.chamadas.length, 0);
  });
});

describe('Ponte, the generic core: any server, either era', () => {
  const FERRAMENTAS: Tool[] = [
    { name: 'perguntar', inputSchema: { type: 'object' } },
    { name: 'contar', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } },
    { name: 'ler', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  ];
  type Passo = (opcoes: OpcoesDaChamada) => Promise<ResultadoDaFerramenta>;

  /** A configured server whose tools/call answers are the test's script, one step per call. */
  class ConexaoFalsa implements ConexaoMcp {
    readonly nome = 'falso';
    readonly onde = 'node falso.js';
    readonly chamadas: { nome: string; argumentos: Record<string, unknown>; opcoes: OpcoesDaChamada }[] = [];
    constructor(
      private readonly eraDela: Era,
      private readonly roteiro: Passo[],
    ) {}
    era(): Era {
      return this.eraDela;
    }
    conectar(): Promise<void> {
      return Promise.resolve();
    }
    ferramentas(): Promise<Tool[]> {
      return Promise.resolve(FERRAMENTAS);
    }
    chamar(nome: string, argumentos: Record<string, unknown>, opcoes: OpcoesDaChamada): Promise<ResultadoDaFerramenta> {
      this.chamadas.push({ nome, argumentos, opcoes });
      const passo = this.roteiro.shift();
      return passo ? passo(opcoes) : Promise.reject(new Error('chamada inesperada'));
    }
    aoMudarFerramentas(): void {}
    fechar(): Promise<void> {
      return Promise.resolve();
    }
  }

  const montarGenerico = (era: Era, roteiro: Passo[], vivas = new ChamadasVivas('este', 600_000)) => {
    const conexao = new ConexaoFalsa(era, roteiro);
    const lista: Skill[] = FERRAMENTAS.map((ferramenta) => ({ id: idDaSkill(conexao.nome, ferramenta.name), conexao, ferramenta }));
    const skills: Skills = {
      skill: (id) => lista.find((skill) => skill.id === id),
      lista: () => lista,
      conexao: (nome) => (nome === conexao.nome ? conexao : undefined),
    };
    return { conexao, ponte: new Ponte(perfilGenerico(skills), vivas) };
  };
  /** A request for the fake server's tool, by its skill id. */
  const chamar = (ferramenta: string) => pedido({ texto: '', dados: { name: idDaSkill('falso', ferramenta), arguments: { x: 1 } } });
  const NOME: Questao = {
    mode: 'form',
    message: 'Seu nome?',
    requestedSchema: { type: 'object', properties: { nome: { type: 'string' } }, required: ['nome'] },
  };
  const IDADE: Questao = {
    mode: 'form',
    message: 'Sua idade?',
    requestedSchema: { type: 'object', properties: { idade: { type: 'integer' } }, required: ['idade'] },
  };
  const perguntou =
    (inputRequests: Record<string, Questao>, requestState: string): Passo =>
    () =>
      Promise.resolve({
        resultType: 'input_required',
        inputRequests: Object.fromEntries(
          Object.entries(inputRequests).map(([chave, params]) => [chave, { method: 'elicitation/create' as const, params }]),
        ),
        requestState,
      });
  const disse =
    (text: string): Passo =>
    () =>
      Promise.resolve({ content: [{ type: 'text', text }] });
  const inputResponses = (respostas: Respostas): Entrada => ({ texto: '', dados: { inputResponses: respostas } });
  /** Step 5 as the executor runs it, for the Task `t`. */
  const continuar = (ponte: Ponte, pausada: Desfecho, entrada: Entrada) => {
    const pausa = pausaDe(pausada);
    const escolha = ponte.escolher('t', pausa, entrada);
    return 'estado' in escolha ? Promise.resolve(escolha) : ponte.responder('t', pausa, escolha.respostas, pausa.trace);
  };

  it("a 2026 server's input_required pauses with every question under the server's keys; the answers continue the call with the state", async () => {
    const { conexao, ponte } = montarGenerico('moderna', [perguntou({ nome: NOME, idade: IDADE }, 's1'), disse('ola Marty, 88')]);
    const pausada = await ponte.atender('t', chamar('perguntar'));
    assert.ok(pausada.estado === 'pausada' && pausada.pergunta, pausada.mensagem);
    assert.equal(pausada.mensagem, 'Seu nome?\nSua idade?');
    assert.equal(pausada.url, undefined);
    assert.deepEqual(pausada.dados, {
      inputRequests: { nome: { method: 'elicitation/create', params: NOME }, idade: { method: 'elicitation/create', params: IDADE } },
    });
    assert.deepEqual(
      { ...pausada.pergunta, trace: undefined },
      {
        skill: 'falso.perguntar',
        servidor: 'falso',
        ferramenta: 'perguntar',
        argumentos: { x: 1 },
        perguntas: { nome: NOME, idade: IDADE },
        requestState: 's1',
        rodada: 1,
        trace: undefined,
        dono: DONO_ANONIMO,
      },
    );
    const respostas = {
      nome: { action: 'accept' as const, content: { nome: 'Marty' } },
      idade: { action: 'accept' as const, content: { idade: 88 } },
    };
    assert.deepEqual(await continuar(ponte, pausada, inputResponses(respostas)), {
      estado: 'concluida',
      mensagem: 'ola Marty, 88',
      artefato: { nome: 'falso.perguntar', partes: [{ texto: 'ola Marty, 88' }] },
    });
    const [primeira, segunda] = conexao.chamadas;
    assert.equal(primeira?.opcoes.continuacao, undefined);
    assert.deepEqual([segunda?.nome, segunda?.argumentos], ['perguntar', { x: 1 }]);
    assert.deepEqual(segunda?.opcoes.continuacao, { inputResponses: respostas, requestState: 's1' });
  });

  it('an answer the questions refuse asks them again with the reason, calling nothing', async () => {
    const { conexao, ponte } = montarGenerico('moderna', [perguntou({ idade: IDADE }, 's1')]);
    const pausada = await ponte.atender('t', chamar('perguntar'));
    const desfecho = await continuar(ponte, pausada, inputResponses({ idade: { action: 'accept', content: { idade: 'velho' } } }));
    assert.ok(desfecho.estado === 'pausada', desfecho.mensagem);
    assert.equal(desfecho.pergunta, undefined, 'the pause the Task has stays as it was');
    const erro = 'Resposta recusada: a resposta a "idade" nao confere com o que foi pedido: data/idade must be integer';
    assert.equal(desfecho.mensagem, `Sua idade?\n${erro}`);
    assert.equal(desfecho.dados.erro, erro);
    assert.equal(conexao.chamadas.length, 1);
  });

  it('a 2025 server asks during the call: the call waits in this process, named by the pause, and the answer reaches it', async () => {
    const vivas = new ChamadasVivas('este', 600_000);
    const ouvidas: unknown[] = [];
    const { conexao, ponte } = montarGenerico(
      'sessao',
      [
        async (opcoes) => {
          assert.ok(opcoes.aoPerguntar, 'a session-era call hears its questions');
          ouvidas.push(await opcoes.aoPerguntar(NOME));
          return { content: [{ type: 'text', text: 'ola' }] };
        },
      ],
      vivas,
    );
    const pausada = await ponte.atender('t', chamar('perguntar'));
    assert.ok(pausada.estado === 'pausada' && pausada.pergunta, pausada.mensagem);
    assert.deepEqual(pausada.pergunta.perguntas, { 'pergunta-1': NOME });
    assert.equal(pausada.pergunta.sessao, 'este');
    assert.equal(pausada.pergunta.requestState, undefined);
    const resposta = { action: 'accept' as const, content: { nome: 'Marty' } };
    const desfecho = await continuar(ponte, pausada, inputResponses({ 'pergunta-1': resposta }));
    assert.equal(desfecho.estado, 'concluida', desfecho.mensagem);
    assert.deepEqual(ouvidas, [resposta]);
    assert.equal(conexao.chamadas.length, 1, 'the same call, answered: never a second one');
    assert.equal(vivas.tem('t', 'este'), false, 'taken by the answer');
  });

  it("a 2025 server's question left unanswered past the pause's lifetime: the call is told cancel and let go", async () => {
    // The lifetime is short here; what the test waits for is the call hearing cancel, not a timer.
    const vivas = new ChamadasVivas('este', 5);
    let ouvida: (resposta: unknown) => void = () => undefined;
    const respostaOuvida = new Promise((resolver) => (ouvida = resolver));
    const { ponte } = montarGenerico(
      'sessao',
      [
        async (opcoes) => {
          ouvida(await opcoes.aoPerguntar?.(NOME));
          return { content: [{ type: 'text', text: 'cancelada' }] };
        },
      ],
      vivas,
    );
    const pausada = await ponte.atender('t', chamar('perguntar'));
    assert.ok(pausada.estado === 'pausada' && pausada.pergunta, pausada.mensagem);
    assert.deepEqual(await respostaOuvida, { action: 'cancel' });
    assert.equal(vivas.tem('t', 'este'), false, 'nothing left for a late answer to reach');
  });

  it('answers reach the server as checked: own keys only, each rebuilt as its action and content', async () => {
    const { conexao, ponte } = montarGenerico('moderna', [perguntou({ nome: NOME }, 's1'), disse('ola')]);
    const pausada = await ponte.atender('t', chamar('perguntar'));
    const herdada = await continuar(ponte, pausada, {
      texto: '',
      dados: { inputResponses: JSON.parse('{"constructor": {"action": "decline"}}') as unknown },
    });
    assert.ok(herdada.estado === 'pausada', 'a key the server never asked is refused, inherited names too');
    assert.match(String(herdada.dados.erro), /nao ha pergunta "constructor" pendente/);
    const resposta = { action: 'accept', content: { nome: 'Marty' }, extra: 'nao vai', _meta: { x: 1 } };
    const fim = await continuar(ponte, pausada, { texto: '', dados: { inputResponses: { nome: resposta } } });
    assert.equal(fim.estado, 'concluida', fim.mensagem);
    assert.deepEqual(conexao.chamadas[1]?.opcoes.continuacao?.inputResponses, { nome: { action: 'accept', content: { nome: 'Marty' } } });
  });

  it('a 2025 call that ends while its Task is paused keeps its outcome: the answer finds it, never a wait for ever', async () => {
    let terminar: (resultado: ResultadoDaFerramenta) => void = () => undefined;
    const { ponte } = montarGenerico('sessao', [
      (opcoes) =>
        new Promise((resolver) => {
          terminar = resolver;
          // The tool's own wait for the answer gives up: the call ends on its own while the Task is paused.
          void opcoes.aoPerguntar?.(NOME);
        }),
    ]);
    const pausada = await ponte.atender('t', chamar('perguntar'));
    assert.ok(pausada.estado === 'pausada', pausada.mensagem);
    terminar({ content: [{ type: 'text', text: 'sem resposta a tempo' }] });
    const desfecho = await continuar(ponte, pausada, { texto: 'recusar' });
    assert.deepEqual({ estado: desfecho.estado, mensagem: desfecho.mensagem }, { estado: 'concluida', mensagem: 'sem resposta a tempo' });
  });

  it('two questions a 2025 server asks at once reach the Task one after the other, each answer to its own question', async () => {
    const ouvidas: [string, unknown][] = [];
    const { ponte } = montarGenerico('sessao', [
      async (opcoes) => {
        const perguntar = opcoes.aoPerguntar;
        assert.ok(perguntar);
        const [nome, idade] = await Promise.all([perguntar(NOME), perguntar(IDADE)]);
        ouvidas.push(['nome', nome], ['idade', idade]);
        return { content: [{ type: 'text', text: 'pronto' }] };
      },
    ]);
    const primeira = await ponte.atender('t', chamar('perguntar'));
    assert.ok(primeira.estado === 'pausada' && primeira.pergunta, primeira.mensagem);
    assert.equal(primeira.mensagem, 'Seu nome?');
    const segunda = await continuar(ponte, primeira, inputResponses({ 'pergunta-1': { action: 'accept', content: { nome: 'Marty' } } }));
    assert.ok(segunda.estado === 'pausada' && segunda.pergunta, segunda.mensagem);
    assert.equal(segunda.mensagem, 'Sua idade?');
    const fim = await continuar(ponte, segunda, inputResponses({ 'pergunta-2': { action: 'accept', content: { idade: 17 } } }));
    assert.equal(fim.estado, 'concluida', fim.mensagem);
    assert.deepEqual(ouvidas, [
      ['nome', { action: 'accept', content: { nome: 'Marty' } }],
      ['idade', { action: 'accept', content: { idade: 17 } }],
    ]);
  });

  it('a 2025 call given up (its Task cancelled) is aborted, and a question it asks later is answered cancel at once', async () => {
    const vivas = new ChamadasVivas('este', 600_000);
    let perguntouDeNovo: (depois: { resposta: Promise<unknown> }) => void = () => undefined;
    const segunda = new Promise<{ resposta: Promise<unknown> }>((resolver) => (perguntouDeNovo = resolver));
    let sinal: AbortSignal | undefined;
    const { ponte } = montarGenerico(
      'sessao',
      [
        async (opcoes) => {
          sinal = opcoes.sinal;
          await opcoes.aoPerguntar?.(NOME);
          perguntouDeNovo({ resposta: opcoes.aoPerguntar?.(IDADE) ?? Promise.resolve() });
          return { content: [] };
        },
      ],
      vivas,
    );
    const pausada = await ponte.atender('t', chamar('perguntar'));
    assert.ok(pausada.estado === 'pausada', pausada.mensagem);
    ponte.cancelar('t');
    assert.equal(sinal?.aborted, true, 'the call is aborted: the SDK tells the server');
    assert.deepEqual(await (await segunda).resposta, { action: 'cancel' });
    assert.equal(vivas.tem('t', 'este'), false);
  });

  /** A generic bridge over a 2025 server whose call asks one question on its session, paused at it. */
  const pausadaNumaSessao = async () => {
    const { ponte } = montarGenerico('sessao', [
      async (opcoes) => {
        await opcoes.aoPerguntar?.(NOME);
        return { content: [] };
      },
    ]);
    return { ponte, pausa: pausaDe(await ponte.atender('t', chamar('perguntar'))) };
  };

  it("a replayed answer to a 2025 server's question says the outcome is unknown when the tool may have acted", async () => {
    const { ponte, pausa } = await pausadaNumaSessao();
    const desfecho = await ponte.responder('t', pausa, { 'pergunta-1': { action: 'decline' } }, pausa.trace, REPETICAO);
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /desfecho e desconhecido/);
  });

  it("a 2025 server's question held by another process, or before a restart, fails the Task saying so", async () => {
    const { ponte, pausa } = await pausadaNumaSessao();
    const resposta = inputResponses({ 'pergunta-1': { action: 'decline' } });
    assert.deepEqual(ponte.escolher('t', { ...pausa, sessao: 'outro' }, resposta), { estado: 'falhou', mensagem: MENSAGEM_SESSAO_PERDIDA });
    const reiniciado = montarGenerico('sessao', []).ponte;
    assert.deepEqual(reiniciado.escolher('t', pausa, resposta), { estado: 'falhou', mensagem: MENSAGEM_SESSAO_PERDIDA });
    assert.deepEqual(await reiniciado.responder('t', pausa, { 'pergunta-1': { action: 'decline' } }, pausa.trace), {
      estado: 'falhou',
      mensagem: MENSAGEM_SESSAO_PERDIDA,
    });
  });

  it('a URL the server needs visited first (-32042) asks for authorization; `pronto` makes the call again', async () => {
    const url: Questao = { mode: 'url', message: 'Autorize o acesso:', url: 'https://auth.test/x', elicitationId: 'e-1' };
    const { conexao, ponte } = montarGenerico('moderna', [
      () => Promise.reject(new UrlElicitationRequiredError([url])),
      disse('autorizado'),
    ]);
    const pausada = await ponte.atender('t', chamar('perguntar'));
    assert.ok(pausada.estado === 'pausada' && pausada.pergunta, pausada.mensagem);
    assert.equal(pausada.url, true);
    assert.equal(pausada.mensagem, 'Autorize o acesso: https://auth.test/x');
    assert.deepEqual(pausada.pergunta.perguntas, { 'url-1': url });
    assert.equal(pausada.pergunta.requestState, undefined);
    assert.equal((await continuar(ponte, pausada, { texto: 'pronto' })).estado, 'concluida');
    assert.equal(conexao.chamadas.length, 2);
    assert.equal(conexao.chamadas[1]?.opcoes.continuacao, undefined, 'no state to echo: the same call again');
  });

  it(`a server that keeps asking ends the Task after ${String(MAXIMO_DE_RODADAS)} rounds`, async () => {
    const { ponte } = montarGenerico(
      'moderna',
      Array.from({ length: MAXIMO_DE_RODADAS + 1 }, (_, i) => perguntou({ idade: IDADE }, `s${String(i + 1)}`)),
    );
    let desfecho = await ponte.atender('t', chamar('perguntar'));
    for (let rodada = 1; rodada <= MAXIMO_DE_RODADAS; rodada++) {
      assert.equal(pausaDe(desfecho).rodada, rodada);
      desfecho = await continuar(ponte, desfecho, inputResponses({ idade: { action: 'accept', content: { idade: rodada } } }));
    }
    assert.deepEqual(desfecho, {
      estado: 'falhou',
      mensagem: `O servidor MCP perguntou ${String(MAXIMO_DE_RODADAS)} vezes seguidas sem concluir: a Task termina aqui.`,
    });
  });

  it('input_required asking for sampling, or without a question, fails: the agent declares no sampling nor roots', async () => {
    const amostra = JSON.parse(
      JSON.stringify({
        resultType: 'input_required',
        inputRequests: { a: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } },
        requestState: 's',
      }),
    ) as ResultadoDaFerramenta;
    assert.deepEqual(await montarGenerico('moderna', [() => Promise.resolve(amostra)]).ponte.atender('t', chamar('perguntar')), {
      estado: 'falhou',
      mensagem: 'O servidor MCP pediu sampling/createMessage, que este agente nao oferece (nao declara sampling nem roots).',
    });
    const vazia = perguntou({}, 's');
    assert.deepEqual(await montarGenerico('moderna', [vazia]).ponte.atender('t', chamar('perguntar')), {
      estado: 'falhou',
      mensagem: 'O servidor MCP pediu uma resposta sem dizer a pergunta (sem inputRequests).',
    });
    const semEstado = JSON.parse(
      JSON.stringify({
        resultType: 'input_required',
        inputRequests: { a: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object' } } } },
      }),
    ) as ResultadoDaFerramenta;
    assert.deepEqual(await montarGenerico('moderna', [() => Promise.resolve(semEstado)]).ponte.atender('t', chamar('perguntar')), {
      estado: 'falhou',
      mensagem: 'O servidor MCP pediu uma resposta sem o requestState que a continua (input_required sem requestState).',
    });
  });

  it('a request the profile refuses is REJECTED, and nothing is sent', async () => {
    const { conexao, ponte } = montarGenerico('moderna', []);
    assert.deepEqual(await ponte.atender('t', pedido({ texto: '', dados: { name: 'sumiu' } })), {
      estado: 'rejeitada',
      mensagem: 'Skill desconhecida "sumiu". Skills: falso.perguntar, falso.contar, falso.ler.',
    });
    assert.equal(conexao.chamadas.length, 0);
  });

  it('progress the server reports during the call reaches the step', async () => {
    const progressos: unknown[] = [];
    const { ponte } = montarGenerico('moderna', [
      (opcoes) => {
        opcoes.aoProgredir?.({ progress: 1, total: 2, message: 'metade' });
        return Promise.resolve({ content: [] });
      },
    ]);
    const desfecho = await ponte.atender('t', chamar('contar'), { aoProgredir: (progresso) => progressos.push(progresso) });
    assert.equal(desfecho.estado, 'concluida');
    assert.deepEqual(progressos, [{ progress: 1, total: 2, message: 'metade' }]);
  });

  it('an outcome never heard is replayed only for a tool that declares itself idempotent; a read just fails', async () => {
    const tempo = () => Promise.reject(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'));
    const semDesfecho = 'Sem desfecho do servidor MCP em node falso.js (Request timed out): a chamada pode ter tido efeito.';
    assert.deepEqual(await montarGenerico('moderna', [tempo]).ponte.atender('t', chamar('contar')), {
      estado: 'incerto',
      mensagem: `${semDesfecho} A Task segue em andamento e o agente repete a mesma chamada, que a ferramenta declara segura de repetir, ate ter o desfecho.`,
    });
    assert.deepEqual(await montarGenerico('moderna', [tempo]).ponte.atender('t', chamar('perguntar')), {
      estado: 'falhou',
      mensagem: `${semDesfecho} A ferramenta nao se declara segura de repetir, entao o agente nao a repete: confira no servidor antes de pedir de novo.`,
    });
    assert.deepEqual(await montarGenerico('moderna', [tempo]).ponte.atender('t', chamar('ler')), {
      estado: 'falhou',
      mensagem: 'Servidor MCP indisponivel em node falso.js: Request timed out',
    });
  });

  it('a replay of a call whose tool is not declared safe to repeat is not run again', async () => {
    const { conexao, ponte } = montarGenerico('moderna', [disse('de novo')]);
    assert.deepEqual(await ponte.atender('t', chamar('perguntar'), REPETICAO), {
      estado: 'falhou',
      mensagem:
        'A chamada de falso.perguntar foi interrompida (o agente que a fazia parou) e o desfecho e desconhecido: a ferramenta nao se declara segura de repetir, entao o agente nao a repete. Confira no servidor antes de pedir de novo.',
    });
    assert.equal(conexao.chamadas.length, 0);
    assert.equal((await ponte.atender('t', chamar('contar'), REPETICAO)).estado, 'concluida', 'an idempotent one is');
  });

  it('an answer to a question of a server no longer configured fails the Task, never throws', async () => {
    const { ponte } = montarGenerico('moderna', [perguntou({ idade: IDADE }, 's1')]);
    const pausa = { ...pausaDe(await ponte.atender('t', chamar('perguntar'))), servidor: 'sumiu' };
    const desfecho = await ponte
      .responder('t', pausa, { idade: { action: 'decline' } }, pausa.trace)
      .catch((erro: unknown) => assert.fail(`threw instead of ending the step: ${String(erro)}`));
    assert.equal(desfecho.estado, 'falhou');
    assert.match(desfecho.mensagem, /O servidor MCP sumiu nao esta configurado/);
  });
});
