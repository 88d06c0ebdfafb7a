import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Agenda, escolherAlternativas, type Sala } from '../src/dominio/agenda.js';
import { lerInstante, msDoDiaLocal } from '../src/dominio/horario.js';
import { lerPolitica } from '../src/dominio/politica.js';

const dados = new URL('../../dados/', import.meta.url);
const ler = (arquivo: string) => readFileSync(new URL(arquivo, dados), 'utf8');
const politica = lerPolitica(ler('politica-de-uso.md'));
const salas: Sala[] = JSON.parse(ler('salas.json'));
const novaAgenda = () => new Agenda(salas, JSON.parse(ler('reservas.json')), politica);

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
  it('refuses a text without the version on its first line', () => {
    assert.throws(() => lerPolitica('sem versao'), /versao/);
    assert.throws(() => lerPolitica('titulo\nversao: 1\nentre 08:00 e 20:00 (-03:00) maxima de 2 horas'), /primeira linha/);
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
    for (const valor of ['', 'amanha', '2026-11-04T11:00:00', '2026-11-04', '2026-02-30T10:00:00Z', '2026-11-04T24:00:00Z', '2026-11-04T10:60:00Z', '2026-11-04T10:00:00+25:00', ' 2026-11-04T10:00:00Z']) {
      assert.equal(lerInstante(valor), undefined, valor);
    }
  });
  it('gives the local time of day in the policy zone', () => {
    assert.equal(msDoDiaLocal(Date.UTC(2026, 10, 4, 11), -180), 8 * 3_600_000);
    assert.equal(msDoDiaLocal(Date.UTC(2026, 10, 4, 1), -180), 22 * 3_600_000);
  });
});

describe('validar', () => {
  const agenda = novaAgenda();
  const erro = (sala: string, inicio: string, fim: string) => {
    const v = agenda.validar({ sala, inicio, fim });
    return v.ok ? undefined : v.erro;
  };
  it('names an unknown room first', () => {
    assert.equal(erro('sala-delorean', 'x', 'y'), 'Sala inexistente: sala-delorean');
  });
  it('says which timestamp is not ISO 8601 with an offset', () => {
    assert.match(erro('sala-aquario', '2026-11-03T09:00:00', '2026-11-03T10:00:00-03:00')!, /^Data\/hora invalida em inicio/);
    assert.match(erro('sala-aquario', '2026-11-03T09:00:00-03:00', 'depois')!, /^Data\/hora invalida em fim/);
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

describe('agenda', () => {
  const intervalo = (inicio: string, fim: string) => ({ inicio: lerInstante(inicio)!, fim: lerInstante(fim)! });
  const sala = (id: string) => salas.find((s) => s.id === id)!;

  it('treats touching intervals as free (half-open)', () => {
    const agenda = novaAgenda();
    assert.deepEqual(agenda.conflitos('sala-garagem', intervalo('2026-11-03T13:00:00-03:00', '2026-11-03T14:00:00-03:00')), []);
    assert.deepEqual(agenda.conflitos('sala-garagem', intervalo('2026-11-03T15:00:00-03:00', '2026-11-03T16:00:00-03:00')), []);
    assert.deepEqual(
      agenda.conflitos('sala-garagem', intervalo('2026-11-03T14:59:00-03:00', '2026-11-03T15:30:00-03:00')).map((r) => r.id),
      ['res-0001'],
    );
  });
  it('sees the same instant written with another offset as a conflict', () => {
    const agenda = novaAgenda();
    assert.deepEqual(
      agenda.conflitos('sala-garagem', intervalo('2026-11-03T17:00:00Z', '2026-11-03T18:00:00Z')).map((r) => r.id),
      ['res-0001'],
    );
  });
  it('refuses a data file whose bookings overlap in one room, or run backwards', () => {
    const reserva = (id: string, inicio: string, fim: string) => ({ id, sala: 'sala-garagem', inicio, fim, responsavel: 'x' });
    assert.throws(() => new Agenda(salas, [reserva('a', '2026-11-03T10:00:00-03:00', '2026-11-03T18:00:00-03:00'), reserva('b', '2026-11-03T11:00:00-03:00', '2026-11-03T12:00:00-03:00')], politica), /b se sobrepoe a a/);
    assert.throws(() => new Agenda(salas, [reserva('c', '2026-11-03T12:00:00-03:00', '2026-11-03T11:00:00-03:00')], politica), /reserva invalida c/);
  });
  it('continues the id sequence of the data file', () => {
    const agenda = novaAgenda();
    const i = intervalo('2026-11-03T09:00:00-03:00', '2026-11-03T10:00:00-03:00');
    const r1 = agenda.reservar(sala('sala-aquario'), i, { inicio: 'a', fim: 'b', responsavel: 'Doc' });
    const r2 = agenda.reservar(sala('sala-porao'), i, { inicio: 'a', fim: 'b', responsavel: 'Doc' });
    assert.equal(r1.tipo === 'reservada' && r1.reserva.id, 'res-0003');
    assert.equal(r2.tipo === 'reservada' && r2.reserva.id, 'res-0004');
  });
  it('offers alternatives by capacity then id, at most three, never the room asked for', () => {
    const agenda = novaAgenda();
    const i = intervalo('2026-11-03T14:00:00-03:00', '2026-11-03T15:00:00-03:00');
    assert.deepEqual(agenda.reservar(sala('sala-garagem'), i, { inicio: 'a', fim: 'b', responsavel: 'x' }), {
      tipo: 'ocupada',
      alternativas: ['sala-fusca', 'sala-mirante'],
    });
    const todas = escolherAlternativas(salas, sala('sala-aquario'), () => true);
    assert.deepEqual(todas, ['sala-porao', 'sala-fusca', 'sala-garagem']);
  });
  it('says there is no alternative when none fits', () => {
    const agenda = novaAgenda();
    const i = intervalo('2026-11-03T11:00:00-03:00', '2026-11-03T12:00:00-03:00');
    const dados = { inicio: 'a', fim: 'b', responsavel: 'x' };
    assert.equal(agenda.reservar(sala('sala-mirante'), i, dados).tipo, 'reservada');
    assert.deepEqual(agenda.reservar(sala('sala-mirante'), i, dados), { tipo: 'erro', erro: 'Sem alternativas disponiveis no intervalo' });
  });
  it('keeps bookings of a room sorted so lookups stay correct after many inserts', () => {
    const agenda = novaAgenda();
    const dados = { inicio: 'a', fim: 'b', responsavel: 'x' };
    for (const hora of [15, 9, 12, 10, 17, 8]) {
      const h = String(hora).padStart(2, '0');
      agenda.reservar(sala('sala-aquario'), intervalo(`2026-11-05T${h}:00:00-03:00`, `2026-11-05T${h}:30:00-03:00`), dados);
    }
    const achados = agenda.conflitos('sala-aquario', intervalo('2026-11-05T09:15:00-03:00', '2026-11-05T12:15:00-03:00'));
    assert.equal(achados.length, 3);
  });
});
