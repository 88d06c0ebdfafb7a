/**
 * Bookings in PostgreSQL (RESERVAS_DB), shared by every server on the
 * database. The no-overlap rule is the database's: an exclusion constraint
 * on (sala, periodo) with btree_gist, periodo a half-open tstzrange, so two
 * servers racing for one slot cannot both succeed, and the loser sees
 * SQLSTATE 23P01, which is exactly "the room is taken". Ids come from one
 * sequence: unique across servers, never reused after a restart.
 */
import pg from 'pg';
import { urlSemSenha } from 'compartilhado/ambiente';
import { idDaReserva, numeroDaReserva, type DadosDaReserva, type Intervalo, type Ocupacao, type Reserva } from '../dominio/regras.js';
import { ReservasIndisponiveis, type Reservas } from './reservas.js';

const EXCLUSAO_VIOLADA = '23P01';

interface Migracao {
  readonly versao: number;
  readonly descricao: string;
  aplicar(cliente: pg.PoolClient, semente: readonly Ocupacao[]): Promise<unknown>;
}

const instante = (ms: number) => new Date(ms).toISOString();

/** In order, each applied once per database; the table reservas_migracoes says which. */
const MIGRACOES: readonly Migracao[] = [
  {
    versao: 1,
    descricao: 'reservas sem sobreposicao por sala (btree_gist, tstzrange [inicio, fim))',
    aplicar: (cliente) =>
      cliente.query(`
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
      `),
  },
  {
    versao: 2,
    descricao: 'reservas iniciais de dados/reservas.json',
    aplicar: async (cliente, semente) => {
      const coluna = <T>(valor: (ocupacao: Ocupacao) => T) => semente.map(valor);
      await cliente.query(
        `INSERT INTO reservas (numero, sala, inicio, fim, responsavel, periodo)
         SELECT numero, sala, inicio, fim, responsavel, tstzrange(de, ate, '[)')
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[])
           AS semente(numero, sala, inicio, fim, responsavel, de, ate)`,
        [
          coluna((o) => numeroDaReserva(o.reserva.id)),
          coluna((o) => o.reserva.sala),
          coluna((o) => o.reserva.inicio),
          coluna((o) => o.reserva.fim),
          coluna((o) => o.reserva.responsavel),
          coluna((o) => instante(o.inicio)),
          coluna((o) => instante(o.fim)),
        ],
      );
      // New ids continue after the highest one of the file.
      await cliente.query(`SELECT setval('reservas_numero', max(numero)) FROM reservas HAVING max(numero) IS NOT NULL`);
    },
  },
];

/**
 * Applies what is missing, in one transaction under an advisory lock: of
 * several servers starting at once, one migrates and seeds, the others
 * wait and then find everything done.
 */
async function migrar(pool: pg.Pool, semente: readonly Ocupacao[]): Promise<void> {
  const cliente = await pool.connect();
  try {
    await cliente.query('BEGIN');
    await cliente.query(`SELECT pg_advisory_xact_lock(hashtext('a-ponte/servidor-mcp/migracoes'))`);
    await cliente.query(`CREATE TABLE IF NOT EXISTS reservas_migracoes (
      versao integer PRIMARY KEY, descricao text NOT NULL, aplicada_em timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await cliente.query<{ versao: number }>('SELECT versao FROM reservas_migracoes');
    const aplicadas = new Set(rows.map((linha) => linha.versao));
    for (const migracao of MIGRACOES.filter((m) => !aplicadas.has(m.versao))) {
      await migracao.aplicar(cliente, semente);
      await cliente.query('INSERT INTO reservas_migracoes (versao, descricao) VALUES ($1, $2)', [migracao.versao, migracao.descricao]);
    }
    await cliente.query('COMMIT');
  } catch (erro) {
    await cliente.query('ROLLBACK').catch(() => undefined);
    throw erro;
  } finally {
    cliente.release();
  }
}

interface Linha {
  numero: string;
  sala: string;
  inicio: string;
  fim: string;
  responsavel: string;
}

const reservaDe = ({ numero, sala, inicio, fim, responsavel }: Linha): Reserva => ({ id: idDaReserva(Number(numero)), sala, inicio, fim, responsavel });

export class ReservasNoPostgres implements Reservas {
  private constructor(
    private readonly pool: pg.Pool,
    readonly descricao: string,
  ) {}

  /**
   * Connects, migrates and seeds; a database that cannot be reached or
   * prepared is an error that names it (without its password).
   * `aoPerderConexao` hears of connections the database dropped while idle.
   */
  static async abrir(url: string, semente: readonly Ocupacao[], aoPerderConexao: (erro: Error) => void): Promise<ReservasNoPostgres> {
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, query_timeout: 10_000, application_name: 'servidor-mcp' });
    pool.on('error', aoPerderConexao);
    try {
      await migrar(pool, semente);
    } catch (erro) {
      await pool.end().catch(() => undefined);
      throw new Error(`RESERVAS_DB: nao consegui preparar o banco em ${urlSemSenha(url)} (${erro instanceof Error ? erro.message : String(erro)})`);
    }
    return new ReservasNoPostgres(pool, `PostgreSQL (${urlSemSenha(url)})`);
  }

  async conflitos(sala: string, intervalo: Intervalo): Promise<Reserva[]> {
    const { rows } = await this.consultar<Linha>(
      'conflitos',
      `SELECT numero, sala, inicio, fim, responsavel FROM reservas
       WHERE sala = $1 AND periodo && tstzrange($2, $3, '[)') ORDER BY lower(periodo)`,
      [sala, instante(intervalo.inicio), instante(intervalo.fim)],
    );
    return rows.map(reservaDe);
  }

  async ocupadas(salas: readonly string[], intervalo: Intervalo): Promise<ReadonlySet<string>> {
    const { rows } = await this.consultar<{ sala: string }>(
      'ocupadas',
      `SELECT DISTINCT sala FROM reservas WHERE sala = ANY($1::text[]) AND periodo && tstzrange($2, $3, '[)')`,
      [salas, instante(intervalo.inicio), instante(intervalo.fim)],
    );
    return new Set(rows.map((linha) => linha.sala));
  }

  async inserir(dados: DadosDaReserva, intervalo: Intervalo): Promise<Reserva | undefined> {
    // A connection of its own rather than pool.query, which discards the
    // connection after any error: losing a race is routine, not a broken link.
    const cliente = await this.pool.connect().catch((erro: unknown) => {
      throw new ReservasIndisponiveis(erro);
    });
    try {
      const { rows } = await cliente.query<{ numero: string }>({
        name: 'inserir',
        text: `INSERT INTO reservas (sala, inicio, fim, responsavel, periodo)
               VALUES ($1, $2, $3, $4, tstzrange($5, $6, '[)')) RETURNING numero`,
        values: [dados.sala, dados.inicio, dados.fim, dados.responsavel, instante(intervalo.inicio), instante(intervalo.fim)],
      });
      cliente.release();
      return { id: idDaReserva(Number(rows[0]!.numero)), ...dados };
    } catch (erro) {
      // Lost the race for the slot: the same answer as a conflict found by a lookup.
      if ((erro as { code?: unknown }).code === EXCLUSAO_VIOLADA) {
        cliente.release();
        return undefined;
      }
      cliente.release(erro instanceof Error ? erro : new Error(String(erro)));
      throw new ReservasIndisponiveis(erro);
    }
  }

  fechar(): Promise<void> {
    return this.pool.end();
  }

  private async consultar<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<T>> {
    try {
      return await this.pool.query<T>({ name, text, values });
    } catch (erro) {
      throw new ReservasIndisponiveis(erro);
    }
  }
}
