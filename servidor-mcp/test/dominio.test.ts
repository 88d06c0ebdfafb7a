import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  escolherAlternativas,
  idDaReserva,
  lerSemente,
  numeroDaReserva,
  salasComPrefixo,
  validar,
  validarDia,
  type Motivo,
} from '../src/dominio/regras.js';
import { fusoEmTexto, lerDia, lerInstante, msDoDiaLocal } from '../src/dominio/horario.js';
import { lerPolitica } from '../src/dominio/politica.js';
import { listaDeSalas as salas, lerDados, politica, reservasIniciais } from '../../scripts/dados.js';

const JANELA = 'Fora da janela de uso: a politica permite reservas entre 08:00 e 20:00';
const DURACAO = 'Duracao acima do limite: a politica permite no maximo 2 horas';
const INVERTIDO = 'Intervalo invalido: fim deve ser posterior a inicio';

describe('politica', () => {
  it('reads version, window, offset and duration from the text', () => {
    assert.equal(politica.versao, '2026-11-01');
    assert.equal(politica.abertura, 8 * 60);
    assert.equal(politica.fechamento, 20 * 60);
    assert.equal(politica.deslocamentoMin, -180);
    assert.equal(politica.duracaoMaximaHoras, 2);
  });
  it('says what a text lacks, as a value, never by throwing', () => {
    const completa = lerDados('politica-de-uso.md');
    assert.deepEqual(lerPolitica('sem versao'), { ok: false, motivo: 'politica-de-uso.md: nao encontrei a primeira linha "versao: ..."' });
    assert.equal(lerPolitica(`titulo\n${completa}`).ok, false, 'the version must be on the first line');
    assert.deepEqual(lerPolitica(completa.replace('08:00', '8h')), {
      ok: false,
      motivo: 'politica-de-uso.md: nao encontrei a janela "entre HH:MM e HH:MM"',
    });
    assert.deepEqual(lerPolitica(completa.replace('(-03:00)', '')), {
      ok: false,
      motivo: 'politica-de-uso.md: nao encontrei o fuso "(+-HH:MM)"',
    });
    assert.deepEqual(lerPolitica(completa.replace('maxima de 2 horas', 'curta')), {
      ok: false,
      motivo: 'politica-de-uso.md: nao encontrei a "Duracao maxima de N horas"',
    });
  });
});

describe('horario', () => {
  it('reads offsets, Z and fractions', () => {
    assert.equal(lerInstante('2026-11-04T11:00:00Z'), Date.UTC(2026, 10, 4, 11));
    assert.equal(lerInstante('2026-11-04T08:00:00-03:00'), Date.UTC(2026, 10, 4, 11));
    assert.equal(lerInstante('2026-11-04T11:00:00+00:00'), Date.UTC(2026, 10, 4, 11));
    assert.equal(lerInstante('2026-11-04T11:00Z'), Date.UTC(2026, 10, 4, 11));
    assert.equal(lerInstante('2026-11-04T11:00:00.250Z'), Date.UTC(2026, 10, 4, 11, 0, 0, 250));
  });
  it('refuses values that are not instants with an offset', () => {
    for (const valor of [
      '',
      'amanha',
      '2026-11-04T11:00:00',
      '2026-11-04',
      '2026-02-30T10:00:00Z',
      '2026-11-04T24:00:00Z',
      '2026-11-04T10:60:00Z',
      '2026-11-04T10:00:00+25:00',
      ' 2026-11-04T10:00:00Z',
    ]) {
      assert.equal(lerInstante(valor), undefined, valor);
    }
  });
  it('gives the local time of day in the policy zone', () => {
    assert.equal(msDoDiaLocal(Date.UTC(2026, 10, 4, 11), -180), 8 * 3_600_000);
    assert.equal(msDoDiaLocal(Date.UTC(2026, 10, 4, 1), -180), 22 * 3_600_000);
  });
  it('reads a calendar day of the zone as its half-open interval, and nothing else', () => {
    assert.deepEqual(lerDia('2026-11-03', -180), { inicio: Date.UTC(2026, 10, 3, 3), fim: Date.UTC(2026, 10, 4, 3) });
    assert.deepEqual(lerDia('2028-02-29', 0), { inicio: Date.UTC(2028, 1, 29), fim: Date.UTC(2028, 2, 1) });
    for (const valor of ['', '2026-11-3', '2026-02-29', '2026-13-01', '2026-11-03T00:00:00Z', ' 2026-11-03', 'hoje', '0000-01-01'])
      assert.equal(lerDia(valor, -180), undefined, valor);
    // Four-digit years as written, within what a store can write: 9999-12-31 in São Paulo ends in year 10000.
    assert.equal(new Date(lerDia('0026-11-03', 0)?.inicio ?? 0).toISOString(), '0026-11-03T00:00:00.000Z');
    assert.equal(lerDia('9999-12-31', -180), undefined);
    assert.ok(lerDia('9999-12-31', 0));
    assert.equal(new Date(lerInstante('0026-11-03T14:00:00-03:00') ?? 0).toISOString(), '0026-11-03T17:00:00.000Z');
    assert.equal(fusoEmTexto(-180), '-03:00');
    assert.equal(fusoEmTexto(330), '+05:30');
  });
});

describe('a room and a day: the agenda and completions', () => {
  const porId = new Map(salas.map((sala) => [sala.id, sala]));
  it('names an unknown room first, then a day that is not one', () => {
    assert.equal(validarDia(politica, porId, 'sala-x', 'hoje').ok, false);
    const semSala = validarDia(politica, porId, 'sala-x', '2026-11-03');
    assert.ok(!semSala.ok && semSala.motivo.mensagem === 'Sala inexistente: sala-x');
    const semDia = validarDia(politica, porId, 'sala-garagem', '2026-02-30');
    assert.ok(!semDia.ok);
    assert.equal(semDia.motivo.mensagem, 'Dia invalido: "2026-02-30"; use AAAA-MM-DD, um dia do calendario no fuso da politica (-03:00)');
    const dia = validarDia(politica, porId, 'sala-garagem', '2026-11-03');
    assert.ok(dia.ok);
    assert.deepEqual(dia.intervalo, { inicio: Date.UTC(2026, 10, 3, 3), fim: Date.UTC(2026, 10, 4, 3) });
  });
  it('completes room ids by prefix, whatever the case', () => {
    assert.deepEqual(salasComPrefixo(salas, 'SALA-G'), ['sala-garagem']);
    assert.deepEqual(salasComPrefixo(salas, '').length, salas.length);
    assert.deepEqual(salasComPrefixo(salas, 'garagem'), []);
  });
});

describe('validar', () => {
  const porId = new Map(salas.map((sala) => [sala.id, sala]));
  const recusa = (sala: string, inicio: string, fim: string): Motivo | undefined => {
    const v = validar(politica, porId, { sala, inicio, fim });
    return v.ok ? undefined : v.motivo;
  };
  const erro = (sala: string, inicio: string, fim: string) => recusa(sala, inicio, fim)?.mensagem;
  /** The refusal text of a request that must be refused. */
  const erroEsperado = (sala: string, inicio: string, fim: string): string => {
    const mensagem = erro(sala, inicio, fim);
    assert.ok(mensagem !== undefined, `${inicio} - ${fim} was accepted`);
    return mensagem;
  };
  it('names an unknown room first, with a code to branch on', () => {
    assert.deepEqual(recusa('sala-delorean', 'x', 'y'), { codigo: 'sala-inexistente', mensagem: 'Sala inexistente: sala-delorean' });
    assert.equal(recusa('sala-aquario', '2026-11-03T09:00:00-03:00', '2026-11-03T09:00:00-03:00')?.codigo, 'intervalo-invalido');
    assert.equal(recusa('sala-aquario', '2026-11-03T07:00:00-03:00', '2026-11-03T09:00:00-03:00')?.codigo, 'fora-da-janela');
    assert.equal(recusa('sala-aquario', '2026-11-03T09:00:00-03:00', '2026-11-03T12:00:00-03:00')?.codigo, 'duracao-acima-do-limite');
    assert.equal(recusa('sala-aquario', 'x', '2026-11-03T12:00:00-03:00')?.codigo, 'instante-invalido');
  });
  it('says which timestamp is not ISO 8601 with an offset', () => {
    assert.match(erroEsperado('sala-aquario', '2026-11-03T09:00:00', '2026-11-03T10:00:00-03:00'), /^Data\/hora invalida em inicio/);
    assert.match(erroEsperado('sala-aquario', '2026-11-03T09:00:00-03:00', 'depois'), /^Data\/hora invalida em fim/);
  });
  it('checks the interval before window and duration', () => {
    assert.equal(erro('sala-aquario', '2026-11-03T10:00:00-03:00', '2026-11-03T09:00:00-03:00'), INVERTIDO);
    assert.equal(erro('sala-aquario', '2026-11-03T10:00:00-03:00', '2026-11-03T10:00:00-03:00'), INVERTIDO);
    assert.equal(erro('sala-aquario', '2026-11-03T21:00:00-03:00', '2026-11-03T07:00:00-03:00'), INVERTIDO);
  });
  it('applies the window in Sao Paulo time, both ends inclusive', () => {
    assert.equal(erro('sala-aquario', '2026-11-03T08:00:00-03:00', '2026-11-03T09:00:00-03:00'), undefined);
    assert.equal(erro('sala-aquario', '2026-11-03T19:00:00-03:00', '2026-11-03T20:00:00-03:00'), undefined);
    assert.equal(erro('sala-aquario', '2026-11-04T11:00:00Z', '2026-11-04T12:00:00Z'), undefined);
    assert.equal(erro('sala-aquario', '2026-11-03T07:00:00-03:00', '2026-11-03T08:00:00-03:00'), JANELA);
    assert.equal(erro('sala-aquario', '2026-11-03T07:59:59-03:00', '2026-11-03T09:00:00-03:00'), JANELA);
    assert.equal(erro('sala-aquario', '2026-11-03T19:00:00-03:00', '2026-11-03T20:00:01-03:00'), JANELA);
    assert.equal(erro('sala-aquario', '2026-11-04T10:00:00Z', '2026-11-04T11:30:00Z'), JANELA);
    assert.equal(erro('sala-aquario', '2026-11-03T22:00:00-03:00', '2026-11-03T23:00:00-03:00'), JANELA);
  });
  it('refuses an interval through the night, whatever the duration limit', () => {
    assert.equal(erro('sala-aquario', '2026-11-03T19:00:00-03:00', '2026-11-04T09:00:00-03:00'), JANELA);
    assert.equal(erro('sala-aquario', '2026-11-03T19:30:00-03:00', '2026-11-04T08:00:00-03:00'), JANELA);
  });
  it('allows exactly two hours and refuses more', () => {
    assert.equal(erro('sala-aquario', '2026-11-03T09:00:00-03:00', '2026-11-03T11:00:00-03:00'), undefined);
    assert.equal(erro('sala-aquario', '2026-11-03T09:00:00-03:00', '2026-11-03T11:00:01-03:00'), DURACAO);
    assert.equal(erro('sala-aquario', '2026-11-03T09:00:00-03:00', '2026-11-03T12:00:00-03:00'), DURACAO);
  });
});

describe('initial bookings and ids', () => {
  const porId = new Map(salas.map((sala) => [sala.id, sala]));
  const reserva = (id: string, inicio: string, fim: string, sala = 'sala-garagem') => ({ id, sala, inicio, fim, responsavel: 'x' });

  it('reads the data file into intervals', () => {
    const semente = lerSemente(porId, reservasIniciais);
    assert.ok(semente.ok);
    assert.deepEqual(
      semente.ocupacoes.map((o) => [o.reserva.id, o.fim - o.inicio]),
      [
        ['res-0001', 3_600_000],
        ['res-0002', 3_600_000],
      ],
    );
  });

  it('refuses overlapping bookings of one room, backwards or unknown ones, and ids out of the numbering', () => {
    const casos: [ReturnType<typeof reserva>[], string][] = [
      [
        [
          reserva('res-0001', '2026-11-03T10:00:00-03:00', '2026-11-03T18:00:00-03:00'),
          reserva('res-0002', '2026-11-03T11:00:00-03:00', '2026-11-03T12:00:00-03:00'),
          reserva('res-0003', '2026-11-03T13:00:00-03:00', '2026-11-03T14:00:00-03:00'),
        ],
        'res-0002 se sobrepoe a res-0001 na sala-garagem',
      ],
      [[reserva('res-0003', '2026-11-03T12:00:00-03:00', '2026-11-03T11:00:00-03:00')], 'reserva invalida res-0003'],
      [[reserva('res-0004', '2026-11-03T11:00:00-03:00', '2026-11-03T12:00:00-03:00', 'sala-delorean')], 'reserva invalida res-0004'],
      [[reserva('res-1', '2026-11-03T11:00:00-03:00', '2026-11-03T12:00:00-03:00')], 'id res-1 fora do formato res-NNNN'],
      [
        [
          reserva('res-0005', '2026-11-03T11:00:00-03:00', '2026-11-03T12:00:00-03:00'),
          reserva('res-0005', '2026-11-04T11:00:00-03:00', '2026-11-04T12:00:00-03:00'),
        ],
        'id res-0005 repetido',
      ],
    ];
    for (const [reservas, motivo] of casos) assert.deepEqual(lerSemente(porId, reservas), { ok: false, motivo });
    assert.ok(
      lerSemente(porId, [
        reserva('res-0001', '2026-11-03T10:00:00-03:00', '2026-11-03T11:00:00-03:00'),
        reserva('res-0002', '2026-11-03T10:00:00-03:00', '2026-11-03T11:00:00-03:00', 'sala-fusca'),
      ]).ok,
      'other rooms may share the hour',
    );
  });

  it('numbers ids with at least four digits, and reads back only ids written that way', () => {
    assert.deepEqual([idDaReserva(3), idDaReserva(12345)], ['res-0003', 'res-12345']);
    assert.deepEqual(['res-0003', 'res-12345', 'res-003', 'res-00003', 'res-0000', 'reserva-1'].map(numeroDaReserva), [
      3,
      12345,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('offers alternatives by capacity then id, at most three, never the room asked for', () => {
    const sala = (id: string) => {
      const achada = salas.find((s) => s.id === id);
      assert.ok(achada, id);
      return achada;
    };
    assert.deepEqual(
      escolherAlternativas(salas, sala('sala-aquario'), () => true),
      ['sala-porao', 'sala-fusca', 'sala-garagem'],
    );
    assert.deepEqual(
      escolherAlternativas(salas, sala('sala-garagem'), (s) => s.id !== 'sala-fusca'),
      ['sala-mirante'],
    );
  });
});
