/** Properties of the room rules over arbitrary sequences of requests (fast-check). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import fc from 'fast-check';
import { Agenda, sobrepoe, type Reserva, type Sala } from '../src/dominio/agenda.js';
import { lerInstante } from '../src/dominio/horario.js';
import { lerPolitica } from '../src/dominio/politica.js';

const ler = (arquivo: string) => readFileSync(new URL(`../../dados/${arquivo}`, import.meta.url), 'utf8');
const politica = lerPolitica(ler('politica-de-uso.md'));
const salas: Sala[] = JSON.parse(ler('salas.json'));
const iniciais: Reserva[] = JSON.parse(ler('reservas.json'));

/** Requests on two days, on a 15-minute grid, in three offsets: plenty of collisions and edges. */
const pedido = fc.record({
  sala: fc.constantFrom(...salas.map((s) => s.id), 'sala-inexistente'),
  dia: fc.constantFrom('2026-11-03', '2026-11-04'),
  inicio: fc.integer({ min: 6 * 4, max: 21 * 4 }),
  quartos: fc.integer({ min: -2, max: 10 }),
  fuso: fc.constantFrom('-03:00', 'Z', '+01:00'),
});

function instante(dia: string, quartoDeHoraLocal: number, fuso: string): string {
  // quartoDeHoraLocal is Sao Paulo time; write the same instant in the chosen offset.
  const ms = Date.parse(`${dia}T00:00:00-03:00`) + quartoDeHoraLocal * 15 * 60_000;
  const deslocamento = fuso === 'Z' ? 0 : fuso === '+01:00' ? 60 : -180;
  const local = new Date(ms + deslocamento * 60_000).toISOString().slice(0, 19);
  return `${local}${fuso}`;
}

const intervaloDe = (r: { inicio: string; fim: string }) => ({ inicio: lerInstante(r.inicio)!, fim: lerInstante(r.fim)! });

it('after any sequence of bookings, no two reservations of one room overlap', () => {
  fc.assert(
    fc.property(fc.array(pedido, { maxLength: 60 }), (pedidos) => {
      const agenda = new Agenda(salas, iniciais, politica);
      const feitas: Reserva[] = [...iniciais];
      for (const p of pedidos) {
        const validacao = agenda.validar({ sala: p.sala, inicio: instante(p.dia, p.inicio, p.fuso), fim: instante(p.dia, p.inicio + p.quartos, p.fuso) });
        if (!validacao.ok) continue;
        const resultado = agenda.reservar(validacao.sala, validacao.intervalo, { inicio: 'i', fim: 'f', responsavel: 'x' });
        if (resultado.tipo === 'reservada') feitas.push({ ...resultado.reserva, inicio: instante(p.dia, p.inicio, p.fuso), fim: instante(p.dia, p.inicio + p.quartos, p.fuso) });
      }
      for (const [i, a] of feitas.entries()) {
        for (const b of feitas.slice(i + 1)) {
          if (a.sala === b.sala) assert.ok(!sobrepoe(intervaloDe(a), intervaloDe(b)), `${a.id} x ${b.id}`);
        }
      }
      assert.equal(new Set(feitas.map((r) => r.id)).size, feitas.length);
    }),
    { numRuns: 300 },
  );
});

it('alternatives are the first three free rooms of at least the capacity, by capacity then id', () => {
  fc.assert(
    fc.property(fc.array(pedido, { maxLength: 40 }), pedido, (historia, alvo) => {
      const agenda = new Agenda(salas, iniciais, politica);
      for (const p of historia) {
        const v = agenda.validar({ sala: p.sala, inicio: instante(p.dia, p.inicio, p.fuso), fim: instante(p.dia, p.inicio + p.quartos, p.fuso) });
        if (v.ok) agenda.reservar(v.sala, v.intervalo, { inicio: 'i', fim: 'f', responsavel: 'x' });
      }
      const v = agenda.validar({ sala: alvo.sala, inicio: instante(alvo.dia, alvo.inicio, alvo.fuso), fim: instante(alvo.dia, alvo.inicio + alvo.quartos, alvo.fuso) });
      if (!v.ok) return;
      const alternativas = agenda.alternativas(v.sala, v.intervalo);
      const elegiveis = salas
        .filter((s) => s.id !== v.sala.id && s.capacidade >= v.sala.capacidade && agenda.conflitos(s.id, v.intervalo).length === 0)
        .sort((a, b) => a.capacidade - b.capacidade || a.id.localeCompare(b.id))
        .map((s) => s.id);
      assert.deepEqual(alternativas, elegiveis.slice(0, 3));
    }),
    { numRuns: 300 },
  );
});

it('validation never throws, whatever the text', () => {
  const agenda = new Agenda(salas, iniciais, politica);
  fc.assert(
    fc.property(fc.string(), fc.string(), fc.string(), (sala, inicio, fim) => {
      const v = agenda.validar({ sala, inicio, fim });
      assert.equal(typeof v.ok, 'boolean');
    }),
    { numRuns: 2000 },
  );
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (texto) => void lerInstante(texto)), { numRuns: 2000 });
});
