/**
 * The profile for any MCP server (ponte/generico.ts): a request read as a
 * tool call and checked against the tool's inputSchema before anything is
 * sent, a result mapped to the Task's outcome and artifact, and what a
 * tool may do read from its annotations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { idDaSkill, type ConexaoMcp } from '../src/mcp/conexao.js';
import { MAXIMO_DE_COMPILADOS, problemaNoEsquema } from '../src/ponte/esquemas.js';
import { falhaDoResultado } from '../src/ponte/falhas.js';
import { concluirGenerico, efeitoDe, mensagemForaDoFormato, perfilGenerico, type Skills } from '../src/ponte/generico.js';
import type { Chamada, Entrada } from '../src/ponte/tipos.js';

/** One skill, as Skills lists it. */
type Skill = ReturnType<Skills['lista']>[number];

/** A server the profile only names: reading a request and mapping a result never reach it. */
const conexao: ConexaoMcp = {
  nome: 'calc',
  onde: 'node calc.js',
  era: () => 'moderna',
  conectar: () => Promise.reject(new Error('not in these tests')),
  ferramentas: () => Promise.reject(new Error('not in these tests')),
  chamar: () => Promise.reject(new Error('not in these tests')),
  aoMudarFerramentas: () => undefined,
  fechar: () => Promise.resolve(),
};

const FERRAMENTAS: Tool[] = [
  {
    name: 'eco',
    inputSchema: { type: 'object', properties: { texto: { type: 'string' } }, required: ['texto'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'somar',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'number' },
        b: { type: 'integer' },
        detalhado: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        nota: { type: ['string', 'null'] },
      },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    annotations: { idempotentHint: true },
  },
  { name: 'apagar', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } },
];

/** Each server's tools as the catalog lists them, by their ids `<servidor>.<tool>`. */
function skillsDe(ferramentas: readonly Tool[], outras: readonly { conexao: ConexaoMcp; ferramentas: readonly Tool[] }[] = []): Skills {
  const lista: Skill[] = [{ conexao, ferramentas }, ...outras].flatMap((servidor) =>
    servidor.ferramentas.map((ferramenta) => ({
      id: idDaSkill(servidor.conexao.nome, ferramenta.name),
      conexao: servidor.conexao,
      ferramenta,
    })),
  );
  return {
    skill: (id) => lista.find((skill) => skill.id === id),
    lista: () => lista,
    conexao: (servidor) => lista.find((skill) => skill.conexao.nome === servidor)?.conexao,
  };
}

const SKILLS = skillsDe(FERRAMENTAS);
const perfil = perfilGenerico(SKILLS);
const texto = (valor: string): Entrada => ({ texto: valor });
const dados = (valor: unknown): Entrada => ({ texto: '', dados: valor });
const ler = (entrada: Entrada) => perfil.ler(entrada, 'task-1');
const chamada = (ferramenta: string, argumentos: Record<string, unknown>) => ({
  skill: `calc.${ferramenta}`,
  servidor: 'calc',
  ferramenta,
  argumentos,
});
const FORA_DO_FORMATO = mensagemForaDoFormato(SKILLS.lista());

describe('perfilGenerico: a request as a tool call', () => {
  it("reads MCP's own call params from a data part, into the call of that server's tool", () => {
    assert.deepEqual(ler(dados({ name: 'calc.somar', arguments: { a: 1.5, b: 2 } })), chamada('somar', { a: 1.5, b: 2 }));
    assert.deepEqual(ler(dados({ name: 'calc.apagar' })), chamada('apagar', {}), 'arguments may be left out');
    // A data part wins over the text beside it.
    assert.deepEqual(perfil.ler({ texto: 'eco texto=x', dados: { name: 'calc.apagar', arguments: {} } }, 't'), chamada('apagar', {}));
  });

  it('reads the text form `<skill> chave=valor`, each value typed by the property it fills', () => {
    assert.deepEqual(
      ler(texto('  calc.somar a=1.5 b=2 detalhado=true tags=["x","y"] nota=null  ')),
      chamada('somar', { a: 1.5, b: 2, detalhado: true, tags: ['x', 'y'], nota: 'null' }),
    );
    assert.deepEqual(ler(texto('calc.eco texto=42')), chamada('eco', { texto: '42' }), 'a string property keeps the text');
    assert.deepEqual(ler(texto('calc.apagar')), chamada('apagar', {}));
    assert.deepEqual(ler(texto('calc.apagar id=a=b')), chamada('apagar', { id: 'a=b' }));
  });

  it('quoted values keep their spaces, and \\" or \\\\ inside them', () => {
    assert.deepEqual(ler(texto('calc.eco texto="ola, mundo"')), chamada('eco', { texto: 'ola, mundo' }));
    assert.deepEqual(ler(texto(String.raw`calc.eco texto="diz \"oi\" e \\ sai"`)), chamada('eco', { texto: 'diz "oi" e \\ sai' }));
    assert.deepEqual(ler(texto('calc.eco texto=""')), chamada('eco', { texto: '' }));
    assert.deepEqual(ler(texto('calc.somar a="1" b=2')), chamada('somar', { a: 1, b: 2 }), 'quotes only group: the type still reads it');
  });

  it("a tool's bare name, when only one server has a tool of that name, is taken as its skill's id", () => {
    assert.deepEqual(ler(dados({ name: 'somar', arguments: { a: 1, b: 2 } })), chamada('somar', { a: 1, b: 2 }));
    assert.deepEqual(ler(texto('somar a=1 b=2')), chamada('somar', { a: 1, b: 2 }));
    assert.deepEqual(ler(texto('eco texto')), { erro: FORA_DO_FORMATO, rejeitar: true }, 'the text form still applies');
  });

  it('a bare name that two servers have is refused, naming both ids; an id always wins over a bare name', () => {
    const outra: ConexaoMcp = { ...conexao, nome: 'outra' };
    const doisServidores = perfilGenerico(
      skillsDe(FERRAMENTAS, [
        {
          conexao: outra,
          ferramentas: [
            { name: 'eco', inputSchema: { type: 'object' } },
            { name: 'dobrar', inputSchema: { type: 'object' } },
            { name: 'calc.eco', inputSchema: { type: 'object' } },
          ],
        },
      ]),
    );
    const ambigua = {
      erro: 'Skill ambigua "eco": mais de um servidor tem essa ferramenta. Use o id: calc.eco, outra.eco.',
      rejeitar: true,
    };
    assert.deepEqual(doisServidores.ler(dados({ name: 'eco', arguments: { texto: 'x' } }), 't'), ambigua);
    assert.deepEqual(doisServidores.ler(texto('eco texto=x'), 't'), ambigua);
    assert.deepEqual(doisServidores.ler(texto('outra.eco'), 't'), {
      skill: 'outra.eco',
      servidor: 'outra',
      ferramenta: 'eco',
      argumentos: {},
    });
    assert.deepEqual(doisServidores.ler(dados({ name: 'dobrar' }), 't'), {
      skill: 'outra.dobrar',
      servidor: 'outra',
      ferramenta: 'dobrar',
      argumentos: {},
    });
    // "calc.eco" is calc's eco by its id, not outra's tool of that bare name (whose id is outra.calc.eco).
    assert.deepEqual(doisServidores.ler(texto('calc.eco texto=x'), 't'), chamada('eco', { texto: 'x' }));
    assert.equal(doisServidores.efeito({ servidor: 'outra', ferramenta: 'calc.eco', skill: 'outra.calc.eco', argumentos: {} }), 'unico');
  });

  it('text that is not `<skill> chave=valor...` is rejected with the format and the skills on offer', () => {
    assert.equal(
      FORA_DO_FORMATO,
      'Pedido fora do formato. Use a parte de dados {"name": "<skill>", "arguments": {...}} ou o texto "<skill> chave=valor chave=\\"valor com espacos\\"". Skills: calc.eco, calc.somar, calc.apagar.',
    );
    for (const valor of ['', 'calc.eco texto', 'calc.eco texto="sem fim', 'calc.eco texto="a"b', 'calc.eco =x', 'calc.multiplicar a=1'])
      assert.deepEqual(ler(texto(valor)), { erro: FORA_DO_FORMATO, rejeitar: true }, valor);
  });

  it('an unknown skill in a data part is rejected, naming the skills on offer', () => {
    assert.deepEqual(ler(dados({ name: 'calc.multiplicar', arguments: {} })), {
      erro: 'Skill desconhecida "calc.multiplicar". Skills: calc.eco, calc.somar, calc.apagar.',
      rejeitar: true,
    });
    assert.deepEqual(ler(dados({ arguments: {} })), {
      erro: 'Skill desconhecida undefined. Skills: calc.eco, calc.somar, calc.apagar.',
      rejeitar: true,
    });
    assert.deepEqual(ler(dados({ name: 3 })), { erro: 'Skill desconhecida 3. Skills: calc.eco, calc.somar, calc.apagar.', rejeitar: true });
  });

  it('an unknown field of the data part is rejected, every one named', () => {
    assert.deepEqual(ler(dados({ name: 'calc.eco', arguments: { texto: 'x' }, skill: 'eco' })), {
      erro: 'Pedido em dados: campo desconhecido "skill".',
      rejeitar: true,
    });
    assert.deepEqual(ler(dados({ nome: 'eco', argumentos: {} })), {
      erro: 'Pedido em dados: campo desconhecido "nome", "argumentos".',
      rejeitar: true,
    });
  });

  it("arguments the tool's inputSchema refuses are rejected before anything is sent, with the SDK validator's words", () => {
    assert.deepEqual(ler(dados({ name: 'calc.eco', arguments: {} })), {
      erro: "Argumentos recusados por calc.eco: data must have required property 'texto'",
      rejeitar: true,
    });
    assert.deepEqual(ler(texto('calc.somar a=um b=2')), {
      erro: 'Argumentos recusados por calc.somar: data/a must be number',
      rejeitar: true,
    });
    assert.deepEqual(ler(texto('calc.somar a=1 b=2.5')), {
      erro: 'Argumentos recusados por calc.somar: data/b must be integer',
      rejeitar: true,
    });
    assert.deepEqual(ler(dados({ name: 'calc.somar', arguments: { a: 1, b: 2, c: 3 } })), {
      erro: 'Argumentos recusados por calc.somar: data must NOT have additional properties',
      rejeitar: true,
    });
    for (const argumentos of [[], 'a=1', null, 7])
      assert.deepEqual(ler(dados({ name: 'calc.somar', arguments: argumentos })), {
        erro: 'Pedido em dados: "arguments" deve ser um objeto JSON.',
        rejeitar: true,
      });
  });

  it('a tool whose inputSchema the validator cannot compile: the request is refused, not thrown', () => {
    const quebrada = perfilGenerico(
      skillsDe([{ name: 'quebrada', inputSchema: { type: 'object', properties: { n: { type: 'inteiro' } } } }]),
    );
    const lida = quebrada.ler(dados({ name: 'calc.quebrada', arguments: { n: 1 } }), 't');
    assert.ok('erro' in lida, 'refused with a reason');
  });

  it("a call's connection is its server's; none for a server no longer configured (the core says so, see ponte.test.ts)", () => {
    assert.equal(perfil.conexao({ servidor: 'calc' }), conexao);
    assert.equal(perfil.conexao({ servidor: 'outro' }), undefined);
    assert.equal(perfil.conexao({}), undefined);
  });

  it("what a call may do is its tool's annotations; a skill no longer offered is taken as unique", () => {
    assert.equal(perfil.efeito(chamada('eco', {})), 'nenhum');
    assert.equal(perfil.efeito(chamada('somar', {})), 'repetivel');
    assert.equal(perfil.efeito(chamada('apagar', {})), 'unico');
    assert.equal(perfil.efeito(chamada('sumiu', {})), 'unico');
    // A pause stored when a one-server agent named skills by the bare tool: its tool is found by server and name.
    assert.equal(perfil.efeito({ ...chamada('somar', {}), skill: 'somar' }), 'repetivel');
  });

  it("the server's refusal of the agent's credentials (401, told apart in falhas.ts) is said with the server's name", () => {
    assert.equal(
      perfil.credenciaisRecusadas(conexao),
      'O servidor MCP calc recusou as credenciais do agente (HTTP 401): confira os headers dele em AGENTE_MCP_CONFIG.',
    );
  });
});

describe('efeitoDe: what a tool may do, by its annotations', () => {
  const com = (annotations?: Tool['annotations']): Tool => ({
    name: 't',
    inputSchema: { type: 'object' },
    ...(annotations ? { annotations } : {}),
  });
  it('only a read, or an idempotent change, is safe to run again', () => {
    assert.equal(efeitoDe(com({ readOnlyHint: true })), 'nenhum');
    assert.equal(efeitoDe(com({ readOnlyHint: true, idempotentHint: false })), 'nenhum');
    assert.equal(efeitoDe(com({ idempotentHint: true })), 'repetivel');
    assert.equal(efeitoDe(com({ readOnlyHint: false, idempotentHint: true, destructiveHint: true })), 'repetivel');
    assert.equal(efeitoDe(com({ destructiveHint: false })), 'unico');
    assert.equal(efeitoDe(com({ readOnlyHint: false })), 'unico');
    assert.equal(efeitoDe(com()), 'unico');
  });
});

describe("concluirGenerico: a tool's result as the Task's outcome", () => {
  const ECO: Chamada = chamada('eco', { texto: 'x' });
  const concluir = (resultado: CallToolResult) => concluirGenerico(ECO, resultado);

  it("text: the message is the text blocks joined, and each is a text part of the artifact named after the skill's id", () => {
    assert.deepEqual(
      concluir({
        content: [
          { type: 'text', text: 'ola' },
          { type: 'text', text: 'mundo' },
        ],
      }),
      { estado: 'concluida', mensagem: 'ola\nmundo', artefato: { nome: 'calc.eco', partes: [{ texto: 'ola' }, { texto: 'mundo' }] } },
    );
  });

  it('nothing at all: completed, saying so, with an empty artifact', () => {
    assert.deepEqual(concluir({ content: [] }), { estado: 'concluida', mensagem: 'calc.eco concluida.', artefato: { nome: 'calc.eco' } });
  });

  it('image and audio: files with their bytes and media type', () => {
    const desfecho = concluir({
      content: [
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      ],
    });
    assert.deepEqual(desfecho, {
      estado: 'concluida',
      mensagem: 'calc.eco concluida.',
      artefato: {
        nome: 'calc.eco',
        partes: [
          { arquivo: { bytes: 'iVBORw0KGgo=', mediaType: 'image/png' } },
          { arquivo: { bytes: 'UklGRg==', mediaType: 'audio/wav' } },
        ],
      },
    });
  });

  it('resource_link: a file by URI, with its name, and its media type when given', () => {
    const desfecho = concluir({
      content: [
        { type: 'resource_link', uri: 'file:///tmp/a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource_link', uri: 'https://x.test/b', name: 'b' },
      ],
    });
    assert.ok(desfecho.estado === 'concluida', desfecho.mensagem);
    assert.deepEqual(desfecho.artefato.partes, [
      { arquivo: { uri: 'file:///tmp/a.txt', nome: 'a.txt', mediaType: 'text/plain' } },
      { arquivo: { uri: 'https://x.test/b', nome: 'b' } },
    ]);
  });

  it('embedded resource: a text one as text with its media type, a blob as a file with its bytes; both keep their URI', () => {
    const desfecho = concluir({
      content: [
        { type: 'resource', resource: { uri: 'memo://1', text: 'olá', mimeType: 'text/markdown' } },
        { type: 'resource', resource: { uri: 'memo://2', text: 'sem tipo' } },
        { type: 'resource', resource: { uri: 'memo://3', blob: 'AAEC', mimeType: 'application/octet-stream' } },
      ],
    });
    assert.ok(desfecho.estado === 'concluida', desfecho.mensagem);
    assert.deepEqual(desfecho.artefato.partes, [
      { texto: 'olá', uri: 'memo://1', mediaType: 'text/markdown' },
      { texto: 'sem tipo', uri: 'memo://2' },
      { arquivo: { uri: 'memo://3', bytes: 'AAEC', mediaType: 'application/octet-stream' } },
    ]);
  });

  it('structuredContent: one data part after the content blocks, which are kept as the tool wrote them', () => {
    const estruturado = { soma: 3, parcelas: [1, 2] };
    assert.deepEqual(
      concluir({
        content: [
          { type: 'text', text: 'A soma e 3.' },
          { type: 'image', data: 'AA==', mimeType: 'image/gif' },
        ],
        structuredContent: estruturado,
      }),
      {
        estado: 'concluida',
        mensagem: 'A soma e 3.',
        artefato: {
          nome: 'calc.eco',
          partes: [{ texto: 'A soma e 3.' }, { arquivo: { bytes: 'AA==', mediaType: 'image/gif' } }, { dados: estruturado }],
        },
      },
    );
    assert.deepEqual(concluir({ content: [], structuredContent: estruturado }), {
      estado: 'concluida',
      mensagem: 'calc.eco concluida.',
      artefato: { nome: 'calc.eco', partes: [{ dados: estruturado }] },
    });
  });

  it("isError: the Task fails with the tool's text, or says the tool gave none", () => {
    // An isError result is the server's answer, which falhas.ts's table turns into FAILED with this message.
    const falhou = (resultado: CallToolResult) => falhaDoResultado(resultado, perfil.falhaSemTexto(ECO));
    assert.deepEqual(
      falhou({
        content: [
          { type: 'text', text: 'divisao por zero' },
          { type: 'text', text: 'em b' },
        ],
        isError: true,
      }),
      { tipo: 'resposta', caso: 'isError', mensagem: 'divisao por zero\nem b' },
    );
    assert.deepEqual(falhou({ content: [{ type: 'image', data: 'AA==', mimeType: 'image/gif' }], isError: true }), {
      tipo: 'resposta',
      caso: 'isError',
      mensagem: 'calc.eco falhou sem mensagem.',
    });
    assert.deepEqual(falhou({ content: [], structuredContent: { erro: 'x' }, isError: true }), {
      tipo: 'resposta',
      caso: 'isError',
      mensagem: 'calc.eco falhou sem mensagem.',
    });
  });

  it('the profile concludes with the same mapping', () => {
    const resultado: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };
    assert.deepEqual(perfil.concluir(ECO, resultado, undefined), concluirGenerico(ECO, resultado));
  });
});

describe('problemaNoEsquema: each schema checked by itself, the validator bounded', () => {
  const ARGS = 'https://exemplo.com/args.json';

  it('two schemas with the same $id are each checked by its own, and a $ref reaches no other schema', () => {
    const um = { $id: ARGS, type: 'object', required: ['a'] };
    const dois = { $id: ARGS, type: 'object', required: ['b'] };
    assert.equal(problemaNoEsquema(um, { a: 1 }), undefined);
    assert.equal(problemaNoEsquema(dois, { b: 1 }), undefined);
    assert.equal(problemaNoEsquema(dois, { a: 1 }), "data must have required property 'b'");
    const alheio = { type: 'object', properties: { x: { $ref: ARGS } } };
    assert.match(
      problemaNoEsquema(alheio, { x: {} }) ?? '',
      /^o esquema do servidor nao e um JSON Schema valido \(.*can't resolve reference/,
    );
  });

  it('two schemas with the same nested $id are checked apart too (it is resolved within its own schema)', () => {
    const comTipo = (type: string) => ({
      type: 'object',
      $defs: { valor: { $id: 'https://exemplo.com/valor.json', type } },
      properties: { v: { $ref: 'https://exemplo.com/valor.json' } },
    });
    assert.equal(problemaNoEsquema(comTipo('string'), { v: 'a' }), undefined);
    assert.equal(problemaNoEsquema(comTipo('number'), { v: 1 }), undefined);
    assert.equal(problemaNoEsquema(comTipo('number'), { v: 'a' }), 'data/v must be number');
  });

  it('two tools of a profile sharing an $id: a valid call of the second is accepted', () => {
    const dois = perfilGenerico(
      skillsDe([
        { name: 'um', inputSchema: { $id: ARGS, type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } },
        { name: 'dois', inputSchema: { $id: ARGS, type: 'object', properties: { b: { type: 'string' } }, required: ['b'] } },
      ]),
    );
    assert.deepEqual(dois.ler(dados({ name: 'calc.um', arguments: { a: 'x' } }), 't'), chamada('um', { a: 'x' }));
    assert.deepEqual(dois.ler(dados({ name: 'calc.dois', arguments: { b: 'y' } }), 't'), chamada('dois', { b: 'y' }));
  });

  it('past its size it starts over, validator and all, and keeps checking what came before and after', () => {
    const esquema = (indice: number) => ({
      type: 'object',
      properties: { [`c${String(indice)}`]: { const: indice } },
      required: [`c${String(indice)}`],
    });
    const ultimo = 2 * MAXIMO_DE_COMPILADOS;
    for (let indice = 0; indice <= ultimo; indice++)
      assert.equal(problemaNoEsquema(esquema(indice), { [`c${String(indice)}`]: indice }), undefined);
    assert.equal(problemaNoEsquema(esquema(0), { c0: 1 }), 'data/c0 must be equal to constant');
    assert.equal(problemaNoEsquema(esquema(ultimo), {}), `data must have required property 'c${String(ultimo)}'`);
  });
});
