/**
 * Database work as spans (with telemetry on): each query a PostgreSQL
 * pool's connection or a SQLite file runs is a CLIENT span by the database
 * conventions, under whatever runs when it is asked (a request's span, an
 * MCP call's). Done here, on the connection, rather than by the `pg` instrumentation, which
 * patches the module as it loads: that needs a loader hook registered
 * before anything starts, while telemetry here is decided (and loaded)
 * only once a process reads its configuration. Queries are the
 * processes' own parameterized text ($1, $2), with any quoted literal
 * replaced by `?`: the values never reach a span.
 */
import type { Pool, PoolClient } from 'pg';
import { objeto } from '../log.js';
import { iniciarVao, telemetriaLigada, vaoAtual, type Vao } from './telemetria.js';

/** Longer query text is cut: a span is for recognising the statement, not for archiving it. */
const TEXTO_MAXIMO = 2000;

/** The conventions' name of each engine. */
type Sistema = 'postgresql' | 'sqlite';

interface Destino {
  readonly database?: unknown;
  readonly host?: unknown;
  readonly port?: unknown;
}

/**
 * A quoted literal becomes `?`, as the conventions sanitize query text. The
 * processes pass values as parameters, but a statement sent by the simple
 * protocol takes none: the exclusion lock's BEGIN; SET LOCAL ...; SELECT,
 * one round trip, quotes the Task's id in its text (escapeLiteral, which
 * doubles quotes, E'' strings included).
 */
const semLiterais = (texto: string): string => texto.replace(/(?:\b[Ee])?'(?:[^']|'')*'/g, '?');

/**
 * What a statement does and to which table: its first word, but for a WITH
 * the statement its common table expressions feed (the bookings INSERT
 * reads its rows from unnest() in one); the table is the first one named
 * after FROM, INTO or UPDATE that is not a function's call.
 */
export function oQueFaz(texto: string): { operacao: string | undefined; colecao: string | undefined } {
  const primeira = /^\s*(\w+)/.exec(texto)?.[1]?.toUpperCase();
  const escrita = primeira === 'WITH' ? /\b(insert\s+into|update|delete\s+from)\s+"?([\w.]+)"?/i.exec(texto) : null;
  if (escrita) return { operacao: (escrita[1] ?? '').split(/\s/)[0]?.toUpperCase(), colecao: escrita[2] };
  return {
    operacao: primeira === 'WITH' ? 'SELECT' : primeira,
    colecao: /\b(?:from|into|update)\s+"?([\w.]*\w)\b"?(?!\s*\()/i.exec(texto)?.[1],
  };
}

/**
 * A query's span, when something it is part of is traced (a request, an
 * MCP call): the sweep's reads, the paused-Tasks gauge and the migrations
 * would each be a trace of one query, every few seconds, that no one asked for.
 */
function vaoDaConsulta(bruto: string, sistema: Sistema, { database, host, port }: Destino = {}): Vao | undefined {
  if (!vaoAtual()) return undefined;
  const texto = semLiterais(bruto);
  const { operacao, colecao } = oQueFaz(texto);
  return iniciarVao([operacao, colecao].filter(Boolean).join(' ') || sistema, {
    tipo: 'cliente',
    atributos: {
      'db.system.name': sistema,
      'db.operation.name': operacao,
      'db.collection.name': colecao,
      'db.query.text': texto.slice(0, TEXTO_MAXIMO),
      'db.namespace': typeof database === 'string' ? database : undefined,
      'server.address': typeof host === 'string' ? host : undefined,
      'server.port': typeof port === 'number' ? port : undefined,
    },
  });
}

function terminar(vao: Vao, erro?: unknown): void {
  if (erro !== undefined && erro !== null) {
    // SQLSTATE (PostgreSQL) or SQLITE_* (better-sqlite3), when the engine answered; else the client's own failure.
    const codigo = objeto(erro)?.code;
    const tipo = typeof codigo === 'string' ? codigo : erro instanceof Error ? erro.name : 'Error';
    if (typeof codigo === 'string') vao.definir({ 'db.response.status_code': codigo });
    // No description: an engine's message may quote a value (a failed cast quotes it whole).
    vao.falhar(tipo);
  }
  vao.encerrar();
}

type Consulta = (...argumentos: unknown[]) => unknown;

function observarConexao(cliente: PoolClient): void {
  const consultar = cliente.query.bind(cliente) as Consulta;
  const destino = objeto((cliente as unknown as { readonly connectionParameters?: unknown }).connectionParameters) ?? {};
  const observada: Consulta = (...argumentos) => {
    const [primeiro] = argumentos;
    const texto = typeof primeiro === 'string' ? primeiro : objeto(primeiro)?.text;
    // A Submittable (a cursor, a stream) reports in its own way: passed on as it is.
    const vao =
      typeof texto === 'string' && typeof objeto(primeiro)?.submit !== 'function' ? vaoDaConsulta(texto, 'postgresql', destino) : undefined;
    if (!vao) return consultar(...argumentos);
    const ultimo = argumentos.at(-1);
    if (typeof ultimo === 'function') {
      // The pool's own query() calls with a callback.
      const avisar = ultimo as (erro: unknown, resultado: unknown) => void;
      return consultar(...argumentos.slice(0, -1), (erro: unknown, resultado: unknown) => {
        terminar(vao, erro);
        avisar(erro, resultado);
      });
    }
    const resultado = consultar(...argumentos);
    if (resultado instanceof Promise)
      resultado.then(
        () => terminar(vao),
        (erro: unknown) => terminar(vao, erro),
      );
    else terminar(vao);
    return resultado;
  };
  cliente.query = observada as PoolClient['query'];
}

/** Every connection `pool` opens from now on has its queries traced; nothing while telemetry is off. */
export function observarPool(pool: Pool): Pool {
  if (telemetriaLigada()) pool.on('connect', observarConexao);
  return pool;
}

/** What telemetry uses of a better-sqlite3 database: its statements, as kysely's SQLite driver runs them. */
interface BancoSqlite {
  prepare(sql: string): object;
}

/** The methods that run a prepared statement at once (kysely calls all() or run(); iterate() streams, left as it is). */
const EXECUTAM = new Set(['all', 'get', 'run']);

/** Every statement `banco` runs from now on is traced; nothing while telemetry is off. SQLite answers synchronously: the span is the call. */
export function observarSqlite<T extends BancoSqlite>(banco: T): T {
  if (!telemetriaLigada()) return banco;
  const preparar = banco.prepare.bind(banco);
  banco.prepare = (sql: string) =>
    new Proxy(preparar(sql), {
      get(comando, chave) {
        const valor: unknown = Reflect.get(comando, chave, comando);
        if (typeof valor !== 'function') return valor;
        const metodo = (valor as (...argumentos: unknown[]) => unknown).bind(comando);
        if (typeof chave !== 'string' || !EXECUTAM.has(chave)) return metodo;
        return (...argumentos: unknown[]) => {
          const vao = vaoDaConsulta(sql, 'sqlite');
          try {
            const resultado = metodo(...argumentos);
            if (vao) terminar(vao);
            return resultado;
          } catch (erro) {
            if (vao) terminar(vao, erro);
            throw erro;
          }
        };
      },
    });
  return banco;
}
