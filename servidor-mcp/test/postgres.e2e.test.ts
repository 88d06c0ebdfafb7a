/**
 * RESERVAS_DB: several real MCP servers on one real PostgreSQL act as one.
 * Each test gets a database of its own, so they pass alone and in any order.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Disponibilidade, META_IDEMPOTENCIA, ResultadoDaReserva } from 'compartilhado/contrato';
import pg from 'pg';
import * as z from 'zod';
import { chamar, chamarFerramenta, estruturado, pergunta, textoDe, type Resposta } from '../../test/apoio/mcp.js';
import { iniciarServidorMcp, segredoDeTeste, type Processo } from '../../test/apoio/processos.js';
import { iniciarPostgres, type Postgres } from '../../scripts/postgres.js';

const as = (dia: string, hora: string) => `${dia}T${hora}:00-03:00`;
const args = (sala: string, dia: string, de: string, ate: string, responsavel = 'Doc') => ({
  sala,
  inicio: as(dia, de),
  fim: as(dia, ate),
  responsavel,
});
const reservar = (mcp: Processo, sala: string, dia: string, de: string, ate: string, responsavel?: string) =>
  chamarFerramenta(mcp.url, 'reservar_sala', args(sala, dia, de, ate, responsavel));
const resultado = (resposta: Resposta) => resposta.corpo?.result;
/** reservar_sala's structuredContent, read through the contract. */
const reserva = (resposta: Resposta) => estruturado(resposta, ResultadoDaReserva);
/** Rows read straight from PostgreSQL, through a schema of the columns a test reads. */
const lidas = <T>(esquema: z.ZodType<T>, linhas: unknown[]) => z.array(esquema).parse(linhas);
const Contagem = z.object({ n: z.number() });

let postgres: Postgres;
before(async () => {
  postgres = await iniciarPostgres();
});
after(() => postgres.parar());

/** A fresh database and a way to read it directly, closed after the test. */
async function banco() {
  const url = await postgres.novoBanco(`escala_${randomUUID().replaceAll('-', '')}`);
  const consultar = async (sql: string, valores: unknown[] = []): Promise<unknown[]> => {
    const cliente = new pg.Client(url);
    await cliente.connect();
    try {
      return z.array(z.unknown()).parse((await cliente.query(sql, valores)).rows);
    } finally {
      await cliente.end();
    }
  };
  return { url, consultar };
}

/** Servers started for one test, all stopped when it ends. */
function servidores() {
  const iniciados: Processo[] = [];
  return {
    async subir(url: string, segredo: string, quantos = 1) {
      const novos = await Promise.all(
        Array.from({ length: quantos }, () => iniciarServidorMcp({ RESERVAS_DB: url, REQUEST_STATE_SECRET: segredo })),
      );
      iniciados.push(...novos);
      return novos;
    },
    parar: () => Promise.all(iniciados.map((processo) => processo.parar())),
  };
}

const MIGRACOES = ['0001_reservas_sem_sobreposicao', '0002_semente', '0003_chave_de_idempotencia'];

/** The names kysely's Migrator entered in the ledger, in order. */
const migracoesAplicadas = async (consultar: (sql: string) => Promise<unknown[]>) =>
  lidas(z.object({ name: z.string() }), await consultar('SELECT name FROM reservas_migracoes_kysely ORDER BY name')).map((l) => l.name);

/**
 * A database as servers before kysely's Migrator left it, in their own
 * SQL: their ledger reservas_migracoes with versions 1 and 2 (and 3, the
 * key column, when `comChave`), the seed, one booking of theirs, and two
 * ids a refused booking consumed.
 */
const bancoAntigo = (comChave: boolean) => `
  CREATE TABLE reservas_migracoes (versao integer PRIMARY KEY, descricao text NOT NULL, aplicada_em timestamptz NOT NULL DEFAULT now());
  CREATE EXTENSION IF NOT EXISTS btree_gist;
  CREATE SEQUENCE reservas_numero;
  CREATE TABLE reservas (
    numero bigint PRIMARY KEY DEFAULT nextval('reservas_numero'),
    sala text NOT NULL,
    inicio text NOT NULL,
    fim text NOT NULL,
    responsavel text NOT NULL,
    periodo tstzrange NOT NULL CHECK (NOT isempty(periodo)),
    criada_em timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT reservas_sem_sobreposicao EXCLUDE USING gist (sala WITH =, periodo WITH &&)
  );
  ALTER SEQUENCE reservas_numero OWNED BY reservas.numero;
  INSERT INTO reservas_migracoes (versao, descricao) VALUES (1, 'reservas sem sobreposicao por sala (btree_gist, tstzrange [inicio, fim))');
  INSERT INTO reservas (numero, sala, inicio, fim, responsavel, periodo) VALUES
    (1, 'sala-garagem', '2026-11-03T14:00:00-03:00', '2026-11-03T15:00:00-03:00', 'Marty', tstzrange('2026-11-03T14:00:00-03:00', '2026-11-03T15:00:00-03:00', '[)')),
    (2, 'sala-fusca', '2026-11-03T16:00:00-03:00', '2026-11-03T17:00:00-03:00', 'Jennifer', tstzrange('2026-11-03T16:00:00-03:00', '2026-11-03T17:00:00-03:00', '[)'));
  SELECT setval('reservas_numero', 2);
  INSERT INTO reservas_migracoes (versao, descricao) VALUES (2, 'reservas iniciais de dados/reservas.json');
  ${comChave ? "ALTER TABLE reservas ADD COLUMN chave text UNIQUE; INSERT INTO reservas_migracoes (versao, descricao) VALUES (3, 'chave de idempotencia unica por reserva (nula nas que nao tem)');" : ''}
  INSERT INTO reservas (sala, inicio, fim, responsavel, periodo) VALUES
    ('sala-aquario', '2027-05-03T09:00:00-03:00', '2027-05-03T10:00:00-03:00', 'Doc', tstzrange('2027-05-03T09:00:00-03:00', '2027-05-03T10:00:00-03:00', '[)'));
  SELECT nextval('reservas_numero'), nextval('reservas_numero');
`;

describe('RESERVAS_DB: MCP servers sharing PostgreSQL', () => {
  it('three servers starting at once migrate and seed dados/reservas.json exactly once', async () => {
    const { url, consultar } = await banco();
    const processos = servidores();
    try {
      const [a] = await processos.subir(url, segredoDeTeste(), 3);
      assert.ok(a);
      assert.match(a.linhas.join('\n'), /reservas em PostgreSQL \(postgres:\/\/postgres@127\.0\.0\.1:\d+\/escala_/);
      assert.deepEqual(await consultar('SELECT numero::int, sala FROM reservas ORDER BY numero'), [
        { numero: 1, sala: 'sala-garagem' },
        { numero: 2, sala: 'sala-fusca' },
      ]);
      assert.deepEqual(await migracoesAplicadas(consultar), MIGRACOES);
      assert.deepEqual(await consultar(`SELECT to_regclass('reservas_migracoes') AS antigo`), [{ antigo: null }], 'no old ledger made');
      await processos.subir(url, segredoDeTeste());
      const [contagem] = lidas(Contagem, await consultar('SELECT count(*)::int AS n FROM reservas'));
      assert.equal(contagem?.n, 2, 'a later start seeds nothing again');
    } finally {
      await processos.parar();
    }
  });

  for (const comChave of [true, false]) {
    it(`a database the old code migrated${comChave ? '' : ' before the key column'} is taken as it stands: every row kept, no seed again, ids go on`, async () => {
      const { url, consultar } = await banco();
      const antigo = new pg.Client(url);
      await antigo.connect();
      await antigo.query(bancoAntigo(comChave)).finally(() => antigo.end());
      const todas = () =>
        consultar('SELECT numero::int, sala, inicio, fim, responsavel, periodo::text, criada_em::text FROM reservas ORDER BY numero');
      const antigoLivro = () => consultar('SELECT versao, descricao, aplicada_em::text FROM reservas_migracoes ORDER BY versao');
      const [antes, livroAntes] = [await todas(), await antigoLivro()];
      const processos = servidores();
      try {
        const [a] = await processos.subir(url, segredoDeTeste(), 2);
        assert.ok(a);
        assert.deepEqual(await todas(), antes);
        assert.deepEqual(await migracoesAplicadas(consultar), MIGRACOES);
        assert.deepEqual(await antigoLivro(), livroAntes, 'the old ledger is left as it was');
        const nova = reserva(await reservar(a, 'sala-aquario', '2027-05-03', '10:00', '11:00'));
        assert.equal(nova.reserva, 'res-0006', 'after the ids the old servers consumed');
        const chave = lidas(
          Contagem,
          await consultar(
            `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'reservas' AND column_name = 'chave'`,
          ),
        );
        assert.deepEqual(chave, [{ n: 1 }]);
      } finally {
        await processos.parar();
      }
    });
  }

  it('a booking made on one server is a conflict on the other, and ids never repeat across servers', async () => {
    const { url } = await banco();
    const processos = servidores();
    try {
      const [a, b] = await processos.subir(url, segredoDeTeste(), 2);
      assert.ok(a && b);
      const feita = reserva(await reservar(a, 'sala-aquario', '2027-05-03', '09:00', '10:00'));
      assert.equal(feita.reservado, true);
      const conflito = resultado(await reservar(b, 'sala-aquario', '2027-05-03', '09:30', '10:30'));
      assert.equal(conflito?.resultType, 'input_required');
      const ids = [feita.reserva];
      for (let hora = 8; hora < 18; hora++) {
        const servidor = hora % 2 ? a : b;
        const h = String(hora).padStart(2, '0');
        ids.push(reserva(await reservar(servidor, 'sala-porao', '2027-05-04', `${h}:00`, `${h}:30`)).reserva);
      }
      assert.equal(new Set(ids).size, ids.length, ids.join());
      assert.ok(
        ids.every((id) => id !== null && /^res-\d{4,}$/.test(id) && id > 'res-0002'),
        ids.join(),
      );
      // The agenda of a day, read on the other server, is the database's, at once.
      const agenda = await chamar(b.url, { metodo: 'resources/read', params: { uri: 'agenda://sala-porao/2027-05-04' } });
      const [conteudo] = z.object({ contents: z.array(z.object({ text: z.string() })) }).parse(agenda.corpo?.result).contents;
      const { reservas } = z
        .object({ reservas: z.array(z.object({ reserva: z.string(), inicio: z.string() })) })
        .parse(JSON.parse(conteudo?.text ?? ''));
      assert.deepEqual(
        reservas.map((lida) => lida.reserva),
        ids.slice(1),
        'every booking of the day, by start, whichever server made it',
      );
    } finally {
      await processos.parar();
    }
  });

  it('20 bookings of one slot at once across two servers make exactly one booking; the others are asked to choose', async () => {
    const { url, consultar } = await banco();
    const processos = servidores();
    try {
      const [a, b] = await processos.subir(url, segredoDeTeste(), 2);
      assert.ok(a && b);
      const respostas = await Promise.all(
        Array.from({ length: 20 }, (_, i) => reservar(i % 2 ? b : a, 'sala-garagem', '2027-05-05', '10:00', '11:00', `Cliente ${i}`)),
      );
      const tipos = respostas.map((r) => (resultado(r)?.structuredContent?.reservado ? 'reservada' : resultado(r)?.resultType));
      assert.equal(tipos.filter((t) => t === 'reservada').length, 1, tipos.join());
      assert.equal(tipos.filter((t) => t === 'input_required').length, 19, tipos.join());
      for (const r of respostas.filter((r) => resultado(r)?.resultType === 'input_required')) {
        assert.deepEqual(pergunta(r).elicitacao.params.requestedSchema.properties.sala.enum, ['sala-fusca', 'sala-mirante']);
      }
      const linhas = lidas(
        Contagem,
        await consultar(`SELECT count(*)::int AS n FROM reservas WHERE sala = 'sala-garagem' AND periodo && tstzrange($1, $2)`, [
          as('2027-05-05', '10:00'),
          as('2027-05-05', '11:00'),
        ]),
      );
      assert.equal(linhas[0]?.n, 1);
    } finally {
      await processos.parar();
    }
  });

  it('a pause asked by one server is answered on another started with the same secret', async () => {
    const { url } = await banco();
    const processos = servidores();
    try {
      const [a, b] = await processos.subir(url, segredoDeTeste(), 2);
      assert.ok(a && b);
      const pausa = await reservar(a, 'sala-garagem', '2026-11-03', '14:00', '15:00', 'Biff');
      assert.equal(resultado(pausa)?.resultType, 'input_required');
      const { chave, requestState } = pergunta(pausa);
      const retomada = await chamarFerramenta(b.url, 'reservar_sala', args('sala-garagem', '2026-11-03', '14:00', '15:00', 'Biff'), {
        params: { inputResponses: { [chave]: { action: 'accept', content: { sala: 'sala-mirante' } } }, requestState },
      });
      assert.equal(reserva(retomada).sala, 'sala-mirante', retomada.texto);
      assert.equal(reserva(retomada).responsavel, 'Biff');
    } finally {
      await processos.parar();
    }
  });

  it('one idempotency key sent at once to two servers makes one booking, and every call answers it', async () => {
    const { url, consultar } = await banco();
    const processos = servidores();
    try {
      const [a, b] = await processos.subir(url, segredoDeTeste(), 2);
      assert.ok(a && b);
      const respostas = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          chamarFerramenta((i % 2 ? b : a).url, 'reservar_sala', args('sala-porao', '2027-05-09', '09:00', '10:00'), {
            meta: { [META_IDEMPOTENCIA]: 'corrida-entre-servidores' },
          }),
        ),
      );
      const ids = new Set(respostas.map((r) => reserva(r).reserva));
      assert.equal(ids.size, 1, respostas.map((r) => r.texto).join('\n'));
      assert.ok(respostas.every((r) => reserva(r).reservado));
      const linhas = lidas(
        z.object({ numero: z.number(), chave: z.string().nullable() }),
        await consultar(`SELECT numero::int, chave FROM reservas WHERE sala = 'sala-porao' AND periodo && tstzrange($1, $2)`, [
          as('2027-05-09', '09:00'),
          as('2027-05-09', '10:00'),
        ]),
      );
      assert.deepEqual(
        linhas.map((l) => l.chave),
        ['chave:corrida-entre-servidores'],
      );
      assert.deepEqual([...ids], [`res-${String(linhas[0]?.numero).padStart(4, '0')}`]);
    } finally {
      await processos.parar();
    }
  });

  it('one pause answered at once on two servers books once, under a digest of its state; another answer on either is refused', async () => {
    const { url, consultar } = await banco();
    const processos = servidores();
    try {
      const [a, b] = await processos.subir(url, segredoDeTeste(), 2);
      assert.ok(a && b);
      const pedido = args('sala-garagem', '2026-11-03', '14:00', '15:00', 'Biff');
      const pausa = await chamarFerramenta(a.url, 'reservar_sala', pedido);
      const { chave, requestState } = pergunta(pausa);
      const responder = (servidor: Processo, sala: string) =>
        chamarFerramenta(servidor.url, 'reservar_sala', pedido, {
          params: { inputResponses: { [chave]: { action: 'accept', content: { sala } } }, requestState },
        });
      const respostas = await Promise.all(Array.from({ length: 10 }, (_, i) => responder(i % 2 ? b : a, 'sala-mirante')));
      const ids = new Set(respostas.map((r) => reserva(r).reserva));
      assert.equal(ids.size, 1, respostas.map((r) => r.texto).join('\n'));
      const [id] = ids;
      for (const servidor of [a, b]) {
        const outra = await responder(servidor, 'sala-fusca');
        assert.equal(outra.corpo?.result?.isError, true, outra.texto);
        assert.equal(
          textoDe(outra),
          `Esta pergunta ja foi respondida: reserva ${String(id)} na sala-mirante. Uma resposta diferente nao faz outra reserva.`,
        );
      }
      const linhas = lidas(
        z.object({ sala: z.string(), chave: z.string().nullable() }),
        await consultar(`SELECT sala, chave FROM reservas WHERE periodo && tstzrange($1, $2) ORDER BY numero`, [
          as('2026-11-03', '14:00'),
          as('2026-11-03', '15:00'),
        ]),
      );
      assert.deepEqual(
        linhas.map((l) => l.sala),
        ['sala-garagem', 'sala-mirante'],
        'the initial booking and the one answer',
      );
      assert.match(linhas[1]?.chave ?? '', /^estado:[0-9a-f]{64}$/, 'a SHA-256 of the state is stored, never the state');
    } finally {
      await processos.parar();
    }
  });

  it('a booking stuck behind a lock is rolled back by the database before the client stops waiting: no ghost booking', async () => {
    const { url, consultar } = await banco();
    const processos = servidores();
    const trava = new pg.Client(url);
    await trava.connect();
    try {
      const [mcp] = await processos.subir(url, segredoDeTeste());
      assert.ok(mcp);
      await trava.query('BEGIN');
      await trava.query('LOCK TABLE reservas IN ACCESS EXCLUSIVE MODE');
      const pedido = args('sala-aquario', '2027-05-10', '09:00', '10:00');
      const resposta = await chamarFerramenta(mcp.url, 'reservar_sala', pedido, { id: 'reservar-travado' });
      assert.deepEqual(resposta.corpo?.error, { code: -32603, message: 'Banco de reservas indisponivel: tente de novo em instantes' });
      // The database gave up, not only the client: none of the server's
      // connections still waits for the lock (a statement left waiting would
      // commit once the lock is released), and the cause is the lock timeout.
      const esperando = lidas(
        Contagem,
        await consultar(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = 'servidor-mcp' AND wait_event_type = 'Lock'`,
        ),
      );
      assert.equal(esperando[0]?.n, 0, 'no statement of the server still waits for the lock');
      assert.match(
        await mcp.esperarLinha(/id="reservar-travado"/),
        /motivo="Banco de reservas indisponivel: tente de novo em instantes \(canceling statement due to lock timeout\)"/,
      );
      await trava.query('COMMIT');
      const contar = async () =>
        lidas(
          Contagem,
          await consultar(`SELECT count(*)::int AS n FROM reservas WHERE sala = 'sala-aquario' AND periodo && tstzrange($1, $2)`, [
            pedido.inicio,
            pedido.fim,
          ]),
        )[0]?.n;
      assert.equal(await contar(), 0, 'the refused booking does not exist');
      assert.equal(reserva(await reservar(mcp, 'sala-aquario', '2027-05-10', '09:00', '10:00')).reservado, true, 'the slot is free');
      assert.equal(await contar(), 1);
    } finally {
      await trava.query('ROLLBACK').catch(() => undefined);
      await trava.end();
      await processos.parar();
    }
  });

  it('bookings survive a restart of every server', async () => {
    const { url } = await banco();
    const segredo = segredoDeTeste();
    const antes = servidores();
    const [a] = await antes.subir(url, segredo);
    assert.ok(a);
    const feita = reserva(await reservar(a, 'sala-mirante', '2027-05-06', '15:00', '16:00'));
    await antes.parar();
    const depois = servidores();
    try {
      const [b] = await depois.subir(url, segredo);
      assert.ok(b);
      const consulta = await chamarFerramenta(b.url, 'consultar_disponibilidade', {
        sala: 'sala-mirante',
        inicio: as('2027-05-06', '15:30'),
        fim: as('2027-05-06', '16:30'),
      });
      assert.deepEqual(
        estruturado(consulta, Disponibilidade).conflitos.map((c) => c.id),
        [feita.reserva],
      );
      const nova = reserva(await reservar(b, 'sala-mirante', '2027-05-06', '16:00', '17:00'));
      assert.ok(nova.reserva !== null && feita.reserva !== null && nova.reserva > feita.reserva, 'the sequence goes on after the restart');
    } finally {
      await depois.parar();
    }
  });

  it('a database down at start stops the process with one clear line that never shows the password', async () => {
    const { url } = await banco();
    const semBanco = new URL(url);
    semBanco.password = 'senha-secreta-123';
    semBanco.port = '1';
    await assert.rejects(iniciarServidorMcp({ RESERVAS_DB: semBanco.href }), (erro: Error) => {
      const linhas = erro.message.split('\n').filter((linha) => linha.includes('servidor-mcp nao subiu'));
      assert.equal(linhas.length, 1, erro.message);
      assert.match(
        linhas[0] ?? '',
        /RESERVAS_DB: nao consegui preparar o banco em postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/escala_\w+ \(.*ECONNREFUSED/,
      );
      assert.doesNotMatch(erro.message, /senha-secreta-123/);
      return true;
    });
    await assert.rejects(iniciarServidorMcp({ RESERVAS_DB: 'mysql://x:senha-secreta-123@h/db' }), (erro: Error) => {
      assert.match(erro.message, /RESERVAS_DB: esperado uma URL postgres:\/\//);
      assert.doesNotMatch(erro.message, /senha-secreta-123/);
      return true;
    });
  });
});

describe('RESERVAS_DB: the database goes away while the server runs', () => {
  // A cluster of its own: stopping it must not disturb the other tests.
  let proprio: Postgres;
  before(async () => {
    proprio = await iniciarPostgres();
  });
  after(() => proprio.parar());

  it('answers with a JSON-RPC error (never a 500, never SQL) and serves again once the database is back', async () => {
    const processos = servidores();
    try {
      const [mcp] = await processos.subir(proprio.url, segredoDeTeste());
      assert.ok(mcp);
      assert.equal(reserva(await reservar(mcp, 'sala-aquario', '2027-05-07', '09:00', '10:00')).reservado, true);
      await proprio.desligar();
      for (const [id, resposta] of [
        [
          'reservar-sem-banco',
          await chamarFerramenta(mcp.url, 'reservar_sala', args('sala-aquario', '2027-05-07', '10:00', '11:00'), {
            id: 'reservar-sem-banco',
          }),
        ],
        [
          'consultar-sem-banco',
          await chamarFerramenta(
            mcp.url,
            'consultar_disponibilidade',
            { sala: 'sala-aquario', inicio: as('2027-05-07', '10:00'), fim: as('2027-05-07', '11:00') },
            { id: 'consultar-sem-banco' },
          ),
        ],
        [
          'agenda-sem-banco',
          await chamar(mcp.url, { metodo: 'resources/read', params: { uri: 'agenda://sala-aquario/2027-05-07' }, id: 'agenda-sem-banco' }),
        ],
      ] as const) {
        assert.equal(resposta.status, 200, resposta.texto);
        const { corpo } = resposta;
        assert.ok(corpo, resposta.texto);
        assert.deepEqual(corpo.error, { code: -32603, message: 'Banco de reservas indisponivel: tente de novo em instantes' });
        assert.equal(corpo.id, id, 'the error answers the request by its id');
      }
      const linha = await mcp.esperarLinha(/resultado="erro -32603" motivo="Banco de reservas indisponivel/);
      assert.match(linha, /metodo=tools\/call/);
      // The agenda's line names the cause too.
      await mcp.esperarLinha(
        /metodo=resources\/read id="agenda-sem-banco" .*resultado="erro -32603" motivo="Banco de reservas indisponivel/,
      );
      await proprio.ligar();
      const depois = await reservar(mcp, 'sala-aquario', '2027-05-07', '10:00', '11:00');
      assert.equal(reserva(depois).reservado, true, depois.texto);
      assert.equal(mcp.filho.exitCode, null, 'still running');
    } finally {
      await processos.parar();
    }
  });
});
