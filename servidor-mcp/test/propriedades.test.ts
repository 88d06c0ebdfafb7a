/** Properties of the room rules over arbitrary sequences of requests (fast-check). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { Agenda } from '../src/agenda.js';
import { sobrepoe, type Reserva } from '../src/dominio/regras.js';
import { ReservasEmMemoria } from '../src/reservas/memoria.js';
import { lerInstante } from '../src/dominio/horario.js';
import { listaDeSalas as salas, ocupacoesIniciais, politica, reservasIniciais as iniciais, salas as porId } from '../../scripts/dados.js';

const novaAgenda = () => new Agenda(porId, politica, new ReservasEmMemoria(ocupacoesIniciais));

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

/** The instant a booking's text denotes; every booking made was validated, so its texts must read. */
function lido(texto: string): number {
  const instante = lerInstante(texto);
  assert.ok(instante !== undefined, texto);
  return instante;
}

const intervaloDe = (r: { inicio: string; fim: string }) => ({ inicio: lido(r.inicio), fim: lido(r.fim) });

it('after any sequence of bookings, no two reservations of one room overlap', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(pedido, { maxLength: 60 }), async (pedidos) => {
      const agenda = novaAgenda();
      const feitas: Reserva[] = [...iniciais];
      for (const p of pedidos) {
        const inicio = instante(p.dia, p.inicio, p.fuso);
        const fim = instante(p.dia, p.inicio + p.quartos, p.fuso);
        const validacao = agenda.validar({ sala: p.sala, inicio, fim });
        if (!validacao.ok) continue;
        const resultado = await agenda.reservar(validacao.sala, validacao.intervalo, { inicio, fim, responsavel: 'x' });
        if (resultado.tipo === 'reservada') feitas.push(resultado.reserva);
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

it('a taken room offers the first three free rooms of at least its capacity, by capacity then id', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(pedido, { maxLength: 40 }), pedido, async (historia, alvo) => {
      const agenda = novaAgenda();
      for (const p of historia) {
        const v = agenda.validar({
          sala: p.sala,
          inicio: instante(p.dia, p.inicio, p.fuso),
          fim: instante(p.dia, p.inicio + p.quartos, p.fuso),
        });
        if (v.ok) await agenda.reservar(v.sala, v.intervalo, { inicio: 'i', fim: 'f', responsavel: 'x' });
      }
      const v = agenda.validar({
        sala: alvo.sala,
        inicio: instante(alvo.dia, alvo.inicio, alvo.fuso),
        fim: instante(alvo.dia, alvo.inicio + alvo.quartos, alvo.fuso),
      });
      if (!v.ok) return;
      const livres = new Set<string>();
      for (const s of salas) if ((await agenda.conflitos(s.id, v.intervalo)).length === 0) livres.add(s.id);
      const elegiveis = salas
        .filter((s) => s.id !== v.sala.id && s.capacidade >= v.sala.capacidade && livres.has(s.id))
        .sort((a, b) => a.capacidade - b.capacidade || a.id.localeCompare(b.id))
        .map((s) => s.id)
        .slice(0, 3);
      const resultado = await agenda.reservar(v.sala, v.intervalo, { inicio: 'i', fim: 'f', responsavel: 'x' });
      if (livres.has(v.sala.id)) assert.equal(resultado.tipo, 'reservada');
      else if (elegiveis.length === 0)
        assert.deepEqual(resultado, {
          tipo: 'recusada',
          motivo: { codigo: 'sem-alternativas', mensagem: 'Sem alternativas disponiveis no intervalo' },
        });
      else assert.deepEqual(resultado, { tipo: 'ocupada', alternativas: elegiveis });
    }),
    { numRuns: 300 },
  );
});

it('validation never throws, whatever the text', () => {
  const agenda = novaAgenda();
  fc.assert(
    fc.property(fc.string(), fc.string(), fc.string(), (sala, inicio, fim) => {
      const v = agenda.validar({ sala, inicio, fim });
      assert.equal(typeof v.ok, 'boolean');
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (texto) => void lerInstante(texto)),
    { numRuns: 2000 },
  );
});
