/**
 * Bookings in PostgreSQL (RESERVAS_DB), shared by every server on the
 * database. The no-overlap rule is the database's: an exclusion constraint
 * on (sala, periodo) with btree_gist, periodo a half-open tstzrange, so two
 * servers racing for one slot cannot both succeed: the loser's row is
 * refused by the constraint, which is exactly "the room is taken". Ids come
 * from one sequence: unique across servers, never reused after a restart.
 */
import pg from 'pg';
import { urlSemSenha } from 'compartilhado/ambiente';
import { observarPool } from 'compartilhado/telemetria/banco';
import { idDaReserva, sobrepoe, type DadosDaReserva, type Intervalo, type Ocupacao, type Reserva } from '../dominio/regras.js';
import { ReservasIndisponiveis, type Insercao, type Reservas } from './reservas.js';

/** An instant as a timestamptz parameter. */
export const instante = (ms: number) => new Date(ms).toISOString();

interface Linha {
  numero: string;
  sala: string;
  inicio: string;
  fim: string;
  responsavel: string;
}

const reservaDe = ({ numero, sala, inicio, fim, responsavel }: Linha): Reserva => ({
  id: idDaReserva(Number(numero)),
  sala,
  inicio,
  fim,
  responsavel,
});

/** A booking waiting for its batch. */
interface Pendente {
  readonly dados: DadosDaReserva;
  readonly intervalo: Intervalo;
  readonly chave: string | undefined;
  readonly resolver: (reserva: Reserva | undefined) => void;
  readonly rejeitar: (erro: Error) => void;
}

export class ReservasNoPostgres implements Reservas {
  private fila: Pendente[] = [];
  private gravando = false;

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
    const pool = observarPool(
      new pg.Pool({
        connectionString: url,
        max: 10,
        connectionTimeoutMillis: 5000,
        // query_timeout is only this client giving up: the statement goes on in
        // the server, and an INSERT that waited out a lock would then commit a
        // booking the caller was already told had failed. So the server gives
        // up first, rolling the statement back before the client stops
        // waiting: lock_timeout < statement_timeout < query_timeout. The lock
        // limit is the shortest so that the likely stall, a lock wait, is
        // reported as one (55P03). node-pg sends both in the startup message,
        // so they hold on every connection of the pool.
        lock_timeout: 5_000,
        statement_timeout: 8_000,
        query_timeout: 10_000,
        application_name: 'servidor-mcp',
      }),
    );
    // Idle or checked out, every connection listens for its own loss: pg emits 'error' on a client
    // no query is waiting on (one held across the migration's statements, say), and unheard it ends
    // the process. The pool repeats an idle client's loss: heard once, from the client itself.
    pool.on('error', () => undefined).on('connect', (cliente) => cliente.on('error', aoPerderConexao));
    try {
      // Loaded only here: a server without RESERVAS_DB starts without kysely.
      const { migrar } = await import('./migracoes.js');
      await migrar(pool, semente);
    } catch (erro) {
      await pool.end().catch(() => undefined);
      throw new Error(
        `RESERVAS_DB: nao consegui preparar o banco em ${urlSemSenha(url)} (${erro instanceof Error ? erro.message : String(erro)})`,
        { cause: erro },
      );
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

  async inserir(dados: DadosDaReserva, intervalo: Intervalo, chave?: string): Promise<Insercao> {
    const reserva = await new Promise<Reserva | undefined>((resolver, rejeitar) => {
      this.fila.push({ dados, intervalo, chave, resolver, rejeitar });
      if (!this.gravando) void this.gravar();
    });
    if (reserva) return { tipo: 'feita', reserva };
    // Refused by the room's overlap or by the key. ON CONFLICT waited for any
    // transaction still writing a conflicting row, so a booking holding the
    // key has committed by now, and reading it tells which refusal this was.
    const dona = chave === undefined ? undefined : await this.porChave(chave);
    return dona ? { tipo: 'chave-usada', reserva: dona } : { tipo: 'ocupada' };
  }

  async porChave(chave: string): Promise<Reserva | undefined> {
    const { rows } = await this.consultar<Linha>(
      'porChave',
      'SELECT numero, sala, inicio, fim, responsavel FROM reservas WHERE chave = $1',
      [chave],
    );
    return rows.map(reservaDe)[0];
  }

  /**
   * One INSERT at a time, carrying every booking that arrived while the
   * previous one ran: under load, many bookings share one round trip and
   * one commit; alone, a booking goes at once. ON CONFLICT DO NOTHING lets
   * the exclusion constraint and the unique key answer row by row: a row
   * either refuses is simply not returned. Bookings of one batch never
   * overlap each other nor share a key (a later one waits for the next
   * batch), so each returned row is matched to its request by room and
   * period, and a key is never refused by a row of its own batch.
   */
  private async gravar(): Promise<void> {
    this.gravando = true;
    while (this.fila.length > 0) {
      const lote: Pendente[] = [];
      const adiadas: Pendente[] = [];
      for (const pendente of this.fila) {
        const colide = lote.some(
          (outra) =>
            (outra.dados.sala === pendente.dados.sala && sobrepoe(outra.intervalo, pendente.intervalo)) ||
            (pendente.chave !== undefined && outra.chave === pendente.chave),
        );
        (colide ? adiadas : lote).push(pendente);
      }
      this.fila = adiadas;
      try {
        const { rows } = await this.pool.query<{ ordem: string; numero: string }>({
          name: 'inserir',
          text: `WITH entrada AS (
                   SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::text[])
                     WITH ORDINALITY AS e(sala, inicio, fim, responsavel, de, ate, chave, ordem)
                 ), inseridas AS (
                   INSERT INTO reservas (sala, inicio, fim, responsavel, periodo, chave)
                   SELECT sala, inicio, fim, responsavel, tstzrange(de, ate, '[)'), chave FROM entrada ORDER BY ordem
                   ON CONFLICT DO NOTHING
                   RETURNING numero, sala, periodo
                 )
                 SELECT entrada.ordem, inseridas.numero FROM entrada
                 JOIN inseridas ON inseridas.sala = entrada.sala AND inseridas.periodo = tstzrange(entrada.de, entrada.ate, '[)')`,
          values: [
            lote.map((p) => p.dados.sala),
            lote.map((p) => p.dados.inicio),
            lote.map((p) => p.dados.fim),
            lote.map((p) => p.dados.responsavel),
            lote.map((p) => instante(p.intervalo.inicio)),
            lote.map((p) => instante(p.intervalo.fim)),
            lote.map((p) => p.chave ?? null),
          ],
        });
        const numeros = new Map(rows.map((linha) => [Number(linha.ordem), Number(linha.numero)]));
        lote.forEach((pendente, i) => {
          const numero = numeros.get(i + 1);
          pendente.resolver(numero === undefined ? undefined : { id: idDaReserva(numero), ...pendente.dados });
        });
      } catch (erro) {
        const falha = new ReservasIndisponiveis(erro);
        for (const pendente of lote) pendente.rejeitar(falha);
      }
    }
    this.gravando = false;
  }

  async alcancavel(): Promise<void> {
    await this.consultar('alcancavel', 'SELECT 1', []);
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
