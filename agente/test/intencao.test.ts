import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FORMATOS, lerEscolha, lerIntencao, MENSAGEM_ESCOLHA_FORA_DO_FORMATO, MENSAGEM_FORA_DO_FORMATO } from '../src/salas/intencao.js';
import type { Entrada } from '../src/ponte/tipos.js';
import { lerTraceparent, novoTrace, traceparentFilho } from '../src/ponte/trace.js';

const texto = (valor: string): Entrada => ({ texto: valor });
const dados = (valor: unknown): Entrada => ({ texto: '', dados: valor });

describe('lerIntencao, text', () => {
  it('reads the booking format; responsavel takes the rest of the line', () => {
    assert.deepEqual(
      lerIntencao(
        texto('reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty McFly'),
      ),
      {
        skill: 'reservar-sala',
        reserva: {
          sala: 'sala-garagem',
          inicio: '2026-11-03T14:00:00-03:00',
          fim: '2026-11-03T15:00:00-03:00',
          responsavel: 'Marty McFly',
        },
      },
    );
    assert.deepEqual(lerIntencao(texto('  reservar sala=a inicio=b fim=c responsavel=Doc  ')), {
      skill: 'reservar-sala',
      reserva: { sala: 'a', inicio: 'b', fim: 'c', responsavel: 'Doc' },
    });
  });
  it('reads the two queries', () => {
    assert.deepEqual(lerIntencao(texto(' listar salas ')), { skill: 'listar-salas' });
    assert.deepEqual(lerIntencao(texto('consultar sala=sala-fusca inicio=a fim=b')), {
      skill: 'consultar-disponibilidade',
      consulta: { sala: 'sala-fusca', inicio: 'a', fim: 'b' },
    });
  });
  it('refuses anything else with a message that shows every accepted format', () => {
    for (const valor of [
      '',
      'oi',
      'reservar',
      'reservar sala=a inicio=b fim=c',
      'reservar sala=a inicio=b fim=c responsavel=',
      'reservar sala=a fim=c inicio=b responsavel=x',
      'RESERVAR sala=a inicio=b fim=c responsavel=x',
      'reservar sala=a inicio=b fim=c responsavel=x\ny',
      'listar',
      'listar salas agora',
      'consultar sala=a inicio=b',
      'consultar sala=a inicio=b fim=c responsavel=x',
      'escolha=sala-fusca',
    ]) {
      assert.deepEqual(lerIntencao(texto(valor)), { erro: MENSAGEM_FORA_DO_FORMATO }, JSON.stringify(valor));
    }
    for (const formato of Object.values(FORMATOS)) assert.ok(MENSAGEM_FORA_DO_FORMATO.includes(formato), formato);
  });
});

describe('lerIntencao, data part', () => {
  it('reads the same three requests as objects; a booking may leave out its skill', () => {
    const reserva = { sala: 'sala-garagem', inicio: 'a', fim: 'b', responsavel: 'Marty McFly' };
    assert.deepEqual(lerIntencao(dados(reserva)), { skill: 'reservar-sala', reserva });
    assert.deepEqual(lerIntencao(dados({ skill: 'reservar-sala', ...reserva })), { skill: 'reservar-sala', reserva });
    assert.deepEqual(lerIntencao(dados({ skill: 'listar-salas' })), { skill: 'listar-salas' });
    assert.deepEqual(lerIntencao(dados({ skill: 'consultar-disponibilidade', sala: 's', inicio: 'a', fim: 'b' })), {
      skill: 'consultar-disponibilidade',
      consulta: { sala: 's', inicio: 'a', fim: 'b' },
    });
  });
  it('wins over the text of the same message', () => {
    assert.deepEqual(lerIntencao({ texto: 'oi', dados: { skill: 'listar-salas' } }), { skill: 'listar-salas' });
  });
  it('names every missing, bad or unknown field', () => {
    const casos: [unknown, string][] = [
      [
        { sala: 'a', fim: 'b', responsável: 'x' },
        'Pedido em dados: falta o campo "inicio"; falta o campo "responsavel"; campo desconhecido "responsável".',
      ],
      [{ sala: 'a', inicio: 'b', fim: 'c', responsavel: '  ' }, 'Pedido em dados: o campo "responsavel" deve ser texto nao vazio.'],
      [{ sala: 7, inicio: 'b', fim: 'c', responsavel: 'x' }, 'Pedido em dados: o campo "sala" deve ser texto nao vazio.'],
      [{ skill: 'consultar-disponibilidade', sala: 'a' }, 'Pedido em dados: falta o campo "inicio"; falta o campo "fim".'],
      [{ skill: 'listar-salas', sala: 'a' }, 'Pedido em dados: campo desconhecido "sala".'],
      [{ skill: 'voar' }, 'Pedido em dados: skill desconhecida "voar". Use reservar-sala, listar-salas, consultar-disponibilidade.'],
      [{ skill: 3 }, 'Pedido em dados: skill desconhecida 3. Use reservar-sala, listar-salas, consultar-disponibilidade.'],
      [{ escolha: 'sala-fusca' }, 'Pedido em dados: "escolha" so responde a uma Task pausada; envie-a com o taskId dessa Task.'],
      [[1, 2], 'Pedido em dados: esperado um objeto JSON.'],
      ['reservar', 'Pedido em dados: esperado um objeto JSON.'],
      [null, 'Pedido em dados: esperado um objeto JSON.'],
    ];
    for (const [valor, erro] of casos) assert.deepEqual(lerIntencao(dados(valor)), { erro }, JSON.stringify(valor));
  });
});

describe('lerEscolha', () => {
  it('reads a room or recusar, as text or data', () => {
    assert.deepEqual(lerEscolha(texto('escolha=sala-fusca')), { sala: 'sala-fusca' });
    assert.deepEqual(lerEscolha(texto(' escolha=recusar ')), { recusar: true });
    assert.deepEqual(lerEscolha(dados({ escolha: 'sala-fusca' })), { sala: 'sala-fusca' });
    assert.deepEqual(lerEscolha(dados({ escolha: 'recusar' })), { recusar: true });
  });
  it('refuses anything else, saying why', () => {
    for (const valor of ['', 'sala-fusca', 'escolha=', 'escolha=a b', 'escolher=sala-fusca'])
      assert.deepEqual(lerEscolha(texto(valor)), { erro: MENSAGEM_ESCOLHA_FORA_DO_FORMATO }, valor);
    assert.deepEqual(lerEscolha(dados({ escolha: 3 })), { erro: 'Resposta em dados: o campo "escolha" deve ser texto nao vazio.' });
    assert.deepEqual(lerEscolha(dados({ sala: 'x' })), { erro: 'Resposta em dados: falta o campo "escolha"; campo desconhecido "sala".' });
  });
});

describe('trace context', () => {
  const valido = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  it('keeps the trace-id and flags of a valid traceparent', () => {
    assert.deepEqual(lerTraceparent(valido), { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', flags: '01' });
  });
  it('ignores invalid ones', () => {
    for (const valor of [
      undefined,
      '',
      'lixo',
      valido.toUpperCase(),
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      [valido, valido],
    ]) {
      assert.equal(lerTraceparent(valor), undefined, String(valor));
    }
  });
  it('gives each child the same trace-id and a new span-id', () => {
    const trace = lerTraceparent(valido);
    assert.ok(trace);
    const a = traceparentFilho(trace),
      b = traceparentFilho(trace);
    assert.match(a, /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    assert.notEqual(a, b);
    assert.notEqual(a.split('-')[2], '00f067aa0ba902b7');
    assert.ok(lerTraceparent(traceparentFilho(novoTrace())));
  });
});

describe('parsers never throw', () => {
  it('on arbitrary text, and a parsed request always round-trips', async () => {
    const { default: fc } = await import('fast-check');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (valor) => {
        lerIntencao(texto(valor));
        lerEscolha(texto(valor));
        lerTraceparent(valor);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (valor) => {
        lerIntencao(dados(valor));
        lerEscolha(dados(valor));
      }),
      { numRuns: 3000 },
    );
    const semEspaco = fc.stringMatching(/^[^\s]{1,20}$/);
    fc.assert(
      fc.property(semEspaco, semEspaco, semEspaco, fc.stringMatching(/^\S[^\r\n]{0,30}\S$/), (sala, inicio, fim, responsavel) => {
        assert.deepEqual(lerIntencao(texto(`reservar sala=${sala} inicio=${inicio} fim=${fim} responsavel=${responsavel}`)), {
          skill: 'reservar-sala',
          reserva: { sala, inicio, fim, responsavel },
        });
      }),
      { numRuns: 1000 },
    );
  });
});
