/**
 * Steps 3 and 5 for any server (ponte/perguntas.ts): how a paused Task
 * shows the server's questions, and how the client's answer is read and
 * checked against them before anything reaches the server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apresentar, campoDeEscolha, lerRespostas, MENSAGEM_RESPOSTA_FORA_DO_FORMATO, pedeUrl } from '../src/ponte/perguntas.js';
import type { Entrada, Pausa, Questao } from '../src/ponte/tipos.js';

type Perguntas = Pausa['perguntas'];

/** A form question with the given fields (all required). */
const formulario = (message: string, properties: Record<string, object>): Questao => ({
  mode: 'form',
  message,
  // Typed by the SDK as its primitive schemas only: servers send more (JSON Schema), and the agent checks it all at run time.
  requestedSchema: { type: 'object', properties, required: Object.keys(properties) } as Extract<
    Questao,
    { mode?: 'form' }
  >['requestedSchema'],
});
const SALA = formulario('Escolha uma sala.', { sala: { type: 'string', enum: ['sala-fusca', 'sala-mirante'] } });
const NOME = formulario('Seu nome?', { nome: { type: 'string', minLength: 2 } });
const URL_DE_LOGIN: Questao = { mode: 'url', message: 'Entre na sua conta:', url: 'https://auth.test/login', elicitationId: 'e-1' };

const texto = (valor: string): Entrada => ({ texto: valor });
const dados = (valor: unknown): Entrada => ({ texto: '', dados: valor });
const respostasEm = (inputResponses: unknown) => dados({ inputResponses });

describe('apresentar', () => {
  it('one line per question, in order, and the questions as MCP inputRequests in the data part', () => {
    const perguntas: Perguntas = { nome: NOME, idade: formulario('Sua idade?', { idade: { type: 'integer' } }) };
    assert.deepEqual(apresentar(perguntas), {
      mensagem: 'Seu nome?\nSua idade?',
      dados: {
        inputRequests: {
          nome: { method: 'elicitation/create', params: NOME },
          idade: { method: 'elicitation/create', params: perguntas.idade },
        },
      },
    });
  });

  it('a single question with a single field that lists its options adds the alternativas line', () => {
    assert.equal(apresentar({ q: SALA }).mensagem, 'Escolha uma sala.\nalternativas: sala-fusca, sala-mirante');
    // Titled options, a single const, and non-text options (as JSON) count too.
    const titulos = formulario('Qual?', {
      x: {
        type: 'string',
        oneOf: [
          { const: 'a', title: 'A' },
          { const: 'b', title: 'B' },
        ],
      },
    });
    assert.equal(apresentar({ q: titulos }).mensagem, 'Qual?\nalternativas: a, b');
    assert.equal(apresentar({ q: formulario('So esta?', { x: { type: 'string', const: 'c' } }) }).mensagem, 'So esta?\nalternativas: c');
    assert.equal(
      apresentar({ q: formulario('Quantos?', { n: { type: 'integer', enum: [1, 2] } }) }).mensagem,
      'Quantos?\nalternativas: 1, 2',
    );
  });

  it('no alternativas line for two questions, two fields, or a field without options', () => {
    assert.equal(apresentar({ a: SALA, b: SALA }).mensagem, 'Escolha uma sala.\nEscolha uma sala.');
    const doisCampos = formulario('Sala e nome?', { sala: { type: 'string', enum: ['a'] }, nome: { type: 'string' } });
    assert.equal(apresentar({ q: doisCampos }).mensagem, 'Sala e nome?');
    assert.equal(apresentar({ q: NOME }).mensagem, 'Seu nome?');
    assert.equal(campoDeEscolha({ q: NOME }), undefined);
    assert.deepEqual(campoDeEscolha({ q: SALA }), { campo: 'sala', opcoes: ['sala-fusca', 'sala-mirante'] });
  });

  it('a URL question shows its URL after its message, and makes the pause one that asks for authorization', () => {
    assert.equal(apresentar({ login: URL_DE_LOGIN }).mensagem, 'Entre na sua conta: https://auth.test/login');
    assert.equal(pedeUrl({ login: URL_DE_LOGIN }), true);
    assert.equal(pedeUrl({ q: SALA, login: URL_DE_LOGIN }), true);
    assert.equal(pedeUrl({ q: SALA }), false);
    assert.equal(campoDeEscolha({ login: URL_DE_LOGIN }), undefined);
  });

  it('why the last answer was not taken: last line, and `erro` in the data part', () => {
    assert.deepEqual(apresentar({ q: NOME }, 'Resposta recusada: x.'), {
      mensagem: 'Seu nome?\nResposta recusada: x.',
      dados: { inputRequests: { q: { method: 'elicitation/create', params: NOME } }, erro: 'Resposta recusada: x.' },
    });
  });
});

describe('lerRespostas, inputResponses', () => {
  it('accepts answers that conform to each requestedSchema, as they came', () => {
    const perguntas: Perguntas = { sala: SALA, nome: NOME };
    const inputResponses = {
      sala: { action: 'accept', content: { sala: 'sala-fusca' } },
      nome: { action: 'accept', content: { nome: 'Marty' } },
    };
    assert.deepEqual(lerRespostas(perguntas, respostasEm(inputResponses)), { respostas: inputResponses });
  });

  it('decline and cancel need no content', () => {
    const inputResponses = { sala: { action: 'decline' }, nome: { action: 'cancel' } };
    assert.deepEqual(lerRespostas({ sala: SALA, nome: NOME }, respostasEm(inputResponses)), { respostas: inputResponses });
  });

  it("refuses content the schema refuses, with the SDK validator's words", () => {
    assert.deepEqual(lerRespostas({ sala: SALA }, respostasEm({ sala: { action: 'accept', content: { sala: 'sala-aquario' } } })), {
      erro: 'Resposta recusada: a resposta a "sala" nao confere com o que foi pedido: data/sala must be equal to one of the allowed values',
    });
    assert.deepEqual(lerRespostas({ nome: NOME }, respostasEm({ nome: { action: 'accept', content: { nome: 'M' } } })), {
      erro: 'Resposta recusada: a resposta a "nome" nao confere com o que foi pedido: data/nome must NOT have fewer than 2 characters',
    });
    // An accept without content is checked as empty content: a required field is missing.
    assert.deepEqual(lerRespostas({ nome: NOME }, respostasEm({ nome: { action: 'accept' } })), {
      erro: 'Resposta recusada: a resposta a "nome" nao confere com o que foi pedido: data must have required property \'nome\'',
    });
  });

  it('names every missing, unknown or malformed answer in one sentence', () => {
    const lida = lerRespostas({ sala: SALA, nome: NOME }, respostasEm({ outra: { action: 'accept' }, nome: { action: 'talvez' } }));
    assert.deepEqual(lida, {
      erro: 'Resposta recusada: nao ha pergunta "outra" pendente. falta a resposta a "sala". a resposta a "nome" precisa de "action": "accept", "decline" ou "cancel".',
    });
    assert.deepEqual(lerRespostas({ nome: NOME }, respostasEm({ nome: 'Marty' })), {
      erro: 'Resposta recusada: a resposta a "nome" precisa de "action": "accept", "decline" ou "cancel".',
    });
  });

  it('a data part without an inputResponses object is outside the format', () => {
    for (const entrada of [dados({ escolha: 'sala-fusca' }), dados({ inputResponses: [] }), dados({ inputResponses: 'x' })])
      assert.deepEqual(lerRespostas({ sala: SALA }, entrada), { erro: MENSAGEM_RESPOSTA_FORA_DO_FORMATO });
  });

  it('a URL question accepted needs no content', () => {
    assert.deepEqual(lerRespostas({ login: URL_DE_LOGIN }, respostasEm({ login: { action: 'accept' } })), {
      respostas: { login: { action: 'accept' } },
    });
  });

  it('a question whose requestedSchema the validator cannot compile is refused as an answer, not thrown', () => {
    const quebrada = formulario('Quebrada?', { n: { type: 'inteiro' } });
    const lida = lerRespostas({ q: quebrada }, respostasEm({ q: { action: 'accept', content: { n: 1 } } }));
    assert.ok('erro' in lida, 'refused with a reason');
  });
});

describe('lerRespostas, text shortcuts for a single question', () => {
  it('escolha=<valor> accepts the one field of a single question, refused by the schema like any answer', () => {
    assert.deepEqual(lerRespostas({ q: SALA }, texto(' escolha=sala-mirante ')), {
      respostas: { q: { action: 'accept', content: { sala: 'sala-mirante' } } },
    });
    assert.deepEqual(lerRespostas({ q: SALA }, texto('escolha=sala-aquario')), {
      erro: 'Resposta recusada: a resposta a "q" nao confere com o que foi pedido: data/sala must be equal to one of the allowed values',
    });
    // A field without options takes any value its schema takes.
    assert.deepEqual(lerRespostas({ q: NOME }, texto('escolha=Marty McFly')), {
      respostas: { q: { action: 'accept', content: { nome: 'Marty McFly' } } },
    });
    assert.deepEqual(lerRespostas({ q: NOME }, texto('escolha=M')), {
      erro: 'Resposta recusada: a resposta a "q" nao confere com o que foi pedido: data/nome must NOT have fewer than 2 characters',
    });
  });

  it('escolha=<valor> is typed by the schema: numbers and booleans as JSON reads them, text stays text', () => {
    const numero = formulario('Quantos?', { n: { type: 'integer', enum: [1, 2, 3] } });
    assert.deepEqual(lerRespostas({ q: numero }, texto('escolha=2')), { respostas: { q: { action: 'accept', content: { n: 2 } } } });
    const booleano = formulario('Confirma?', { ok: { type: 'boolean' } });
    assert.deepEqual(lerRespostas({ q: booleano }, texto('escolha=false')), {
      respostas: { q: { action: 'accept', content: { ok: false } } },
    });
    const decimal = formulario('Quanto?', { v: { type: 'number', minimum: 0 } });
    assert.deepEqual(lerRespostas({ q: decimal }, texto('escolha=2.5')), { respostas: { q: { action: 'accept', content: { v: 2.5 } } } });
    const textual = formulario('Codigo?', { c: { type: 'string', enum: ['1', 'true'] } });
    assert.deepEqual(lerRespostas({ q: textual }, texto('escolha=1')), { respostas: { q: { action: 'accept', content: { c: '1' } } } });
    // A value that does not read as the type stays text, for the schema to name.
    assert.deepEqual(lerRespostas({ q: numero }, texto('escolha=dois')), {
      erro: 'Resposta recusada: a resposta a "q" nao confere com o que foi pedido: data/n must be integer, data/n must be equal to one of the allowed values',
    });
  });

  it('escolha=<valor> for options listed without a type: the alternativas shown are accepted as the schema writes them', () => {
    const semTipo = formulario('Qual?', { n: { enum: [1, 2] } });
    assert.equal(apresentar({ q: semTipo }).mensagem, 'Qual?\nalternativas: 1, 2');
    assert.deepEqual(lerRespostas({ q: semTipo }, texto('escolha=1')), { respostas: { q: { action: 'accept', content: { n: 1 } } } });
  });

  it('recusar declines, for a form or a URL', () => {
    assert.deepEqual(lerRespostas({ q: SALA }, texto('recusar')), { respostas: { q: { action: 'decline' } } });
    assert.deepEqual(lerRespostas({ login: URL_DE_LOGIN }, texto('recusar')), { respostas: { login: { action: 'decline' } } });
  });

  it('pronto accepts a URL question (the URL visited), and only a URL question', () => {
    assert.deepEqual(lerRespostas({ login: URL_DE_LOGIN }, texto('pronto')), { respostas: { login: { action: 'accept' } } });
    assert.deepEqual(lerRespostas({ q: SALA }, texto('pronto')), { erro: MENSAGEM_RESPOSTA_FORA_DO_FORMATO });
  });

  it('outside the format: other text, escolha= for two fields or a URL, any shortcut for two questions', () => {
    for (const [perguntas, valor] of [
      [{ q: SALA }, 'sala-fusca'],
      [{ q: SALA }, ''],
      [{ q: SALA }, 'escolha='],
      [{ q: formulario('Sala e nome?', { sala: { type: 'string' }, nome: { type: 'string' } }) }, 'escolha=Marty'],
      [{ login: URL_DE_LOGIN }, 'escolha=x'],
      [{ a: SALA, b: SALA }, 'escolha=sala-fusca'],
      [{ a: SALA, b: SALA }, 'recusar'],
      [{ a: URL_DE_LOGIN, b: URL_DE_LOGIN }, 'pronto'],
    ] as const)
      assert.deepEqual(
        lerRespostas(perguntas, texto(valor)),
        { erro: MENSAGEM_RESPOSTA_FORA_DO_FORMATO },
        `${Object.keys(perguntas).join('+')} ${valor}`,
      );
  });
});
