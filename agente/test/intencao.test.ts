import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lerEscolha, lerPedido } from '../src/intencao.js';
import { lerTraceparent, novoTrace, traceparentFilho } from '../src/trace.js';

describe('lerPedido', () => {
  it('reads the fixed format; responsavel takes the rest of the line', () => {
    assert.deepEqual(
      lerPedido('reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty McFly'),
      {
        sala: 'sala-garagem',
        inicio: '2026-11-03T14:00:00-03:00',
        fim: '2026-11-03T15:00:00-03:00',
        responsavel: 'Marty McFly',
      },
    );
    assert.equal(lerPedido('  reservar sala=a inicio=b fim=c responsavel=Doc  ')?.responsavel, 'Doc');
  });
  it('refuses anything else', () => {
    for (const texto of [
      '',
      'oi',
      'reservar',
      'reservar sala=a inicio=b fim=c',
      'reservar sala=a inicio=b fim=c responsavel=',
      'reservar sala=a fim=c inicio=b responsavel=x',
      'RESERVAR sala=a inicio=b fim=c responsavel=x',
      'reservar sala=a inicio=b fim=c responsavel=x\ny',
    ]) {
      assert.equal(lerPedido(texto), undefined, JSON.stringify(texto));
    }
  });
});

describe('lerEscolha', () => {
  it('reads a room or recusar', () => {
    assert.deepEqual(lerEscolha('escolha=sala-fusca'), { sala: 'sala-fusca' });
    assert.deepEqual(lerEscolha(' escolha=recusar '), { recusar: true });
  });
  it('refuses anything else', () => {
    for (const texto of ['', 'sala-fusca', 'escolha=', 'escolha=a b', 'escolher=sala-fusca'])
      assert.equal(lerEscolha(texto), undefined, texto);
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
      fc.property(fc.string({ unit: 'binary' }), (texto) => {
        lerPedido(texto);
        lerEscolha(texto);
        lerTraceparent(texto);
      }),
      { numRuns: 3000 },
    );
    const semEspaco = fc.stringMatching(/^[^\s]{1,20}$/);
    fc.assert(
      fc.property(semEspaco, semEspaco, semEspaco, fc.stringMatching(/^\S[^\r\n]{0,30}\S$/), (sala, inicio, fim, responsavel) => {
        assert.deepEqual(lerPedido(`reservar sala=${sala} inicio=${inicio} fim=${fim} responsavel=${responsavel}`), {
          sala,
          inicio,
          fim,
          responsavel,
        });
      }),
      { numRuns: 1000 },
    );
  });
});
