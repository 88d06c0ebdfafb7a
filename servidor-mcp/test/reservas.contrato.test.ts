/**
 * The contract of a bookings store, run against every engine: what the
 * tools rely on must hold the same in memory and in PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Agenda } from '../src/agenda.js';
import { lerInstante } from '../src/dominio/horario.js';
import { ReservasEmMemoria } from '../src/reservas/memoria.js';
import { ReservasNoPostgres } from '../src/reservas/postgres.js';
import type { Insercao, Reservas } from '../src/reservas/reservas.js';
import { iniciarPostgres, type Postgres } from '../../scripts/postgres.js';
import { ocupacoesIniciais, politica, salas } from '../../scripts/dados.js';

/** The instant a fixed text of this file denotes. */
function lido(texto: string): number {
  const instante = lerInstante(texto);
  assert.ok(instante !== undefined, texto);
  return instante;
}

const intervalo = (inicio: string, fim: string) => ({ inicio: lido(inicio), fim: lido(fim) });
const as = (dia: string, hora: string) => `${dia}T${hora}:00-03:00`;
const dados = (sala: string, dia: string, de: string, ate: string) => ({
  sala,
  inicio: as(dia, de),
  fim: as(dia, ate),
  responsavel: 'Doc',
});
const inserir = (reservas: Reservas, sala: string, dia: string, de: string, ate: string, chave?: string) =>
  reservas.inserir(dados(sala, dia, de, ate), intervalo(as(dia, de), as(dia, ate)), chave);
/** The booking an insertion made, if it made one. */
const feita = (insercao: Insercao) => (insercao.tipo === 'feita' ? insercao.reserva : undefined);

let postgres: Postgres;
before(async () => {
  postgres = await iniciarPostgres();
});
after(() => postgres.parar());

const motores: [string, () => Promise<Reservas>][] = [
  ['ReservasEmMemoria', () => Promise.resolve(new ReservasEmMemoria(ocupacoesIniciais))],
  [
    'ReservasNoPostgres',
    async () =>
      ReservasNoPostgres.abrir(
        await postgres.novoBanco(`contrato_${randomUUID().replaceAll('-', '')}`),
        ocupacoesIniciais,
        () => undefined,
      ),
  ],
];

for (const [nome, abrir] of motores) {
  describe(nome, () => {
    const comReservas = (corpo: (reservas: Reservas) => Promise<void>) => async () => {
      const reservas = await abrir();
      try {
        await corpo(reservas);
      } finally {
        await reservas.fechar();
      }
    };

    it(
      'starts with the initial bookings; touching intervals are free (half-open), one minute inside is not',
      comReservas(async (reservas) => {
        const dia = '2026-11-03';
        assert.deepEqual(await reservas.conflitos('sala-garagem', intervalo(as(dia, '13:00'), as(dia, '14:00'))), []);
        assert.deepEqual(await reservas.conflitos('sala-garagem', intervalo(as(dia, '15:00'), as(dia, '16:00'))), []);
        assert.deepEqual(await reservas.conflitos('sala-garagem', intervalo(as(dia, '14:59'), as(dia, '15:30'))), [
          { id: 'res-0001', sala: 'sala-garagem', inicio: as(dia, '14:00'), fim: as(dia, '15:00'), responsavel: 'Marty' },
        ]);
      }),
    );

    it(
      'is reachable when it answers a query (readiness)',
      comReservas(async (reservas) => {
        await reservas.alcancavel();
      }),
    );

    it(
      'sees the same instant written with another offset as a conflict',
      comReservas(async (reservas) => {
        const achadas = await reservas.conflitos('sala-garagem', intervalo('2026-11-03T17:00:00Z', '2026-11-03T18:00:00Z'));
        assert.deepEqual(
          achadas.map((r) => r.id),
          ['res-0001'],
        );
      }),
    );

    it(
      'books a free slot with the next id after the initial ones, the texts as sent; a taken slot books nothing',
      comReservas(async (reservas) => {
        const dia = '2026-12-01';
        assert.deepEqual(await inserir(reservas, 'sala-aquario', dia, '09:00', '10:00'), {
          tipo: 'feita',
          reserva: { id: 'res-0003', ...dados('sala-aquario', dia, '09:00', '10:00') },
        });
        assert.equal(feita(await inserir(reservas, 'sala-porao', dia, '09:00', '10:00'))?.id, 'res-0004');
        assert.deepEqual(await inserir(reservas, 'sala-aquario', dia, '09:30', '10:30'), { tipo: 'ocupada' });
        const encostada = feita(await inserir(reservas, 'sala-aquario', dia, '10:00', '10:30'));
        assert.ok(encostada, 'back to back is allowed');
        // Ids only grow; a refused booking may leave a gap (a database sequence is not rolled back).
        assert.ok(Number(encostada.id.slice(4)) > 4, encostada.id);
      }),
    );

    it(
      'lists conflicts by start whatever the order they were booked in',
      comReservas(async (reservas) => {
        const dia = '2026-12-02';
        for (const hora of [15, 9, 12, 10, 17, 8]) {
          const h = String(hora).padStart(2, '0');
          assert.ok(feita(await inserir(reservas, 'sala-aquario', dia, `${h}:00`, `${h}:30`)));
        }
        const achadas = await reservas.conflitos('sala-aquario', intervalo(as(dia, '09:15'), as(dia, '12:15')));
        assert.deepEqual(
          achadas.map((r) => r.inicio),
          [as(dia, '09:00'), as(dia, '10:00'), as(dia, '12:00')],
        );
      }),
    );

    it(
      'says which of the asked rooms are taken in an interval',
      comReservas(async (reservas) => {
        const ocupadas = await reservas.ocupadas([...salas.keys()], intervalo(as('2026-11-03', '14:30'), as('2026-11-03', '16:30')));
        assert.deepEqual([...ocupadas].sort(), ['sala-fusca', 'sala-garagem']);
        assert.deepEqual(
          [...(await reservas.ocupadas(['sala-porao'], intervalo(as('2026-11-03', '14:30'), as('2026-11-03', '16:30'))))],
          [],
        );
      }),
    );

    it(
      'of 20 bookings of one slot at once, exactly one is made',
      comReservas(async (reservas) => {
        const feitas = await Promise.all(
          Array.from({ length: 20 }, () => inserir(reservas, 'sala-mirante', '2026-12-03', '11:00', '12:00')),
        );
        assert.equal(feitas.filter(feita).length, 1);
        assert.equal((await reservas.conflitos('sala-mirante', intervalo(as('2026-12-03', '11:00'), as('2026-12-03', '12:00')))).length, 1);
      }),
    );

    it(
      'a key is stored with its booking: the same key again books nothing, whatever the room or interval, and answers the holder',
      comReservas(async (reservas) => {
        const dia = '2026-12-04';
        const primeira = feita(await inserir(reservas, 'sala-aquario', dia, '09:00', '10:00', 'chave:k1'));
        assert.ok(primeira);
        assert.deepEqual(await reservas.porChave('chave:k1'), primeira);
        assert.deepEqual(await inserir(reservas, 'sala-aquario', dia, '09:00', '10:00', 'chave:k1'), {
          tipo: 'chave-usada',
          reserva: primeira,
        });
        assert.deepEqual(await inserir(reservas, 'sala-porao', dia, '14:00', '15:00', 'chave:k1'), {
          tipo: 'chave-usada',
          reserva: primeira,
        });
        assert.deepEqual(
          await reservas.conflitos('sala-porao', intervalo(as(dia, '14:00'), as(dia, '15:00'))),
          [],
          'a refused key leaves the slot free',
        );
        assert.equal(await reservas.porChave('chave:outra'), undefined);
        // Bookings without a key, or with another one, are unaffected.
        assert.ok(feita(await inserir(reservas, 'sala-porao', dia, '14:00', '15:00')));
        assert.ok(feita(await inserir(reservas, 'sala-porao', dia, '15:00', '16:00')));
        assert.ok(feita(await inserir(reservas, 'sala-porao', dia, '16:00', '17:00', 'chave:k2')));
      }),
    );

    it(
      'a key not yet held, in a taken room, is a plain "taken" and stays free for a later booking',
      comReservas(async (reservas) => {
        const dia = '2026-12-05';
        assert.ok(feita(await inserir(reservas, 'sala-mirante', dia, '09:00', '10:00')));
        assert.deepEqual(await inserir(reservas, 'sala-mirante', dia, '09:00', '10:00', 'estado:e1'), { tipo: 'ocupada' });
        assert.equal(await reservas.porChave('estado:e1'), undefined);
        const depois = feita(await inserir(reservas, 'sala-fusca', dia, '09:00', '10:00', 'estado:e1'));
        assert.ok(depois);
        assert.deepEqual(await reservas.porChave('estado:e1'), depois);
      }),
    );

    const hora = (i: number) => String(8 + (i >> 1)).padStart(2, '0');
    for (const [caso, lugares] of [
      ['the same slot', Array.from({ length: 20 }, () => ['sala-garagem', '11:00', '12:00'] as const)],
      [
        'different rooms and slots',
        Array.from({ length: 20 }, (_, i) => [i % 2 ? 'sala-garagem' : 'sala-porao', `${hora(i)}:00`, `${hora(i)}:30`] as const),
      ],
    ] as const) {
      it(
        `of 20 bookings with one key at once (${caso}), exactly one is made and every other answers it`,
        comReservas(async (reservas) => {
          const dia = '2026-12-06';
          const tentativas = await Promise.all(lugares.map(([sala, de, ate]) => inserir(reservas, sala, dia, de, ate, 'chave:corrida')));
          const feitas = tentativas.map(feita).filter((reserva) => reserva !== undefined);
          assert.equal(feitas.length, 1, JSON.stringify(tentativas));
          const [unica] = feitas;
          assert.deepEqual(
            tentativas.filter((t) => t.tipo !== 'feita'),
            Array.from({ length: 19 }, () => ({ tipo: 'chave-usada', reserva: unica })),
          );
          const doDia = await Promise.all(
            ['sala-garagem', 'sala-porao'].map((sala) => reservas.conflitos(sala, intervalo(as(dia, '08:00'), as(dia, '20:00')))),
          );
          assert.equal(doDia.flat().length, 1);
        }),
      );
    }

    it(
      'under the agenda: a key already held answers its booking, computing no alternatives',
      comReservas(async (reservas) => {
        const agenda = new Agenda(salas, politica, reservas);
        const garagem = salas.get('sala-garagem');
        assert.ok(garagem);
        const i = intervalo(as('2026-12-07', '14:00'), as('2026-12-07', '15:00'));
        const pedido = { inicio: as('2026-12-07', '14:00'), fim: as('2026-12-07', '15:00'), responsavel: 'Biff' };
        const primeira = await agenda.reservar(garagem, i, pedido, garagem, 'chave:agenda');
        assert.ok(primeira.tipo === 'reservada', JSON.stringify(primeira));
        assert.deepEqual(await agenda.reservar(garagem, i, pedido, garagem, 'chave:agenda'), {
          tipo: 'chave-usada',
          reserva: primeira.reserva,
        });
        assert.deepEqual(await agenda.reservar(garagem, i, pedido, garagem), {
          tipo: 'ocupada',
          alternativas: ['sala-fusca', 'sala-mirante'],
        });
      }),
    );

    it(
      'under the agenda: a taken room offers alternatives computed at that moment, or says there are none',
      comReservas(async (reservas) => {
        const agenda = new Agenda(salas, politica, reservas);
        const sala = (id: string) => {
          const achada = salas.get(id);
          assert.ok(achada, id);
          return achada;
        };
        const i = intervalo(as('2026-11-03', '14:00'), as('2026-11-03', '15:00'));
        const pedido = { inicio: as('2026-11-03', '14:00'), fim: as('2026-11-03', '15:00'), responsavel: 'Biff' };
        assert.deepEqual(await agenda.reservar(sala('sala-garagem'), i, pedido), {
          tipo: 'ocupada',
          alternativas: ['sala-fusca', 'sala-mirante'],
        });
        assert.equal((await agenda.reservar(sala('sala-fusca'), i, pedido)).tipo, 'reservada');
        assert.deepEqual(await agenda.reservar(sala('sala-garagem'), i, pedido), { tipo: 'ocupada', alternativas: ['sala-mirante'] });
        assert.equal((await agenda.reservar(sala('sala-mirante'), i, pedido)).tipo, 'reservada');
        assert.deepEqual(await agenda.reservar(sala('sala-mirante'), i, pedido), {
          tipo: 'recusada',
          motivo: { codigo: 'sem-alternativas', mensagem: 'Sem alternativas disponiveis no intervalo' },
        });
      }),
    );
  });
}
