/**
 * A throwaway PostgreSQL cluster (for the tests and the bench): initdb in
 * a temporary folder, a free port, trust auth on loopback only. The server
 * binaries come from PATH or from Debian's /usr/lib/postgresql/<version>/bin
 * (the `postgresql` package does not put them on PATH). As root it runs as
 * the `postgres` user, because the server refuses to run as root. A machine
 * without PostgreSQL is an error here, never a reason to skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, watch } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  readonly url: string;
  /** The server's log file, with `arquivoDeLog`. */
  readonly log: string | undefined;
  /** A fresh database on the same cluster, for a test that must start from nothing. */
  novoBanco(nome: string): Promise<string>;
  /** Stops the server, keeping its data (a database that went away). */
  desligar(): Promise<void>;
  /** Starts it again on the same port and data. */
  ligar(): Promise<void>;
  /** Stops it and deletes everything. */
  parar(): Promise<void>;
}

export interface OpcoesDoPostgres {
  /** fsync and synchronous commit as in production (for the bench); tests run without them. */
  readonly duravel?: boolean;
  /** Server settings (-c nome=valor) beside ours, such as what its log says of each statement. */
  readonly ajustes?: Readonly<Record<string, string>>;
  /**
   * The server's log in a file (Postgres.log), opened for appending and
   * given to the server as its stderr, as `pg_ctl -l` does: each message is
   * one write, so lines of concurrent backends never cut into each other
   * (a pipe splits writes past 4 KiB). The test reads it afterwards.
   */
  readonly arquivoDeLog?: boolean;
}

const comoRoot = process.getuid?.() === 0;

/** A program from PATH, or else from the first of `pastas` that has it. */
function binario(programa: string, pastas: readonly string[]): string {
  const noPath = spawnSync('sh', ['-c', `command -v ${programa}`], { encoding: 'utf8' }).stdout.trim();
  const achado = noPath || pastas.map((pasta) => join(pasta, programa)).find((caminho) => existsSync(caminho));
  if (!achado) throw new Error(`${programa} nao encontrado no PATH nem em ${pastas.join(', ') || '(nenhuma pasta)'}`);
  return achado;
}

const RAIZ_DO_POSTGRES = '/usr/lib/postgresql';

/** A server program: from PATH, or from Debian's folders, newest version first. */
function doPostgres(programa: string): string {
  const versoes = existsSync(RAIZ_DO_POSTGRES) ? readdirSync(RAIZ_DO_POSTGRES).sort((a, b) => Number(b) - Number(a)) : [];
  try {
    return binario(
      programa,
      versoes.map((versao) => join(RAIZ_DO_POSTGRES, versao, 'bin')),
    );
  } catch (erro) {
    throw new Error(
      `${erro instanceof Error ? erro.message : String(erro)} (servidor PostgreSQL): instale com apt-get install -y postgresql`,
      {
        cause: erro,
      },
    );
  }
}

/** A server program with its arguments, run as the `postgres` user when we are root (also for a cluster started elsewhere). */
export const comando = (programa: string, args: string[]): [string, string[]] =>
  comoRoot
    ? [binario('runuser', ['/usr/sbin', '/sbin']), ['-u', 'postgres', '--', doPostgres(programa), ...args]]
    : [doPostgres(programa), args];

const portaLivre = () =>
  new Promise<number>((resolver, rejeitar) => {
    const teste = createServer()
      .once('error', rejeitar)
      .listen(0, '127.0.0.1', () => {
        const { port } = teste.address() as { port: number };
        teste.close(() => resolver(port));
      });
  });

const PRONTO = /ready to accept connections/;

/**
 * Resolves once the text written to `arquivo` after byte `desde` satisfies
 * `condicao` (a pattern, or a test of the whole text), read again at each
 * change of the file (no clock); rejects when `saida` (the writer's exit,
 * if it may end before) settles first, or after `ms`.
 */
export function esperarNoArquivo(
  arquivo: string,
  desde: number,
  condicao: RegExp | ((texto: string) => boolean),
  saida?: Promise<unknown>,
  ms = 30_000,
): Promise<string> {
  const satisfeita = typeof condicao === 'function' ? condicao : (texto: string) => condicao.test(texto);
  const ler = () => readFileSync(arquivo).subarray(desde).toString('utf8');
  return new Promise<string>((resolver, rejeitar) => {
    const observador = watch(arquivo);
    const terminar = (fim: () => void) => {
      observador.close();
      clearTimeout(limite);
      fim();
    };
    const conferir = () => {
      const texto = ler();
      if (satisfeita(texto)) terminar(() => resolver(texto));
    };
    const limite = setTimeout(
      () => terminar(() => rejeitar(new Error(`${String(condicao)} nao se cumpriu em ${arquivo} em ${ms}ms:\n${ler()}`))),
      ms,
    );
    observador.on('change', conferir);
    void saida?.then(() => terminar(() => rejeitar(new Error(`o processo saiu antes de ${String(condicao)} em ${arquivo}:\n${ler()}`))));
    conferir();
  });
}

export async function iniciarPostgres({ duravel = false, ajustes = {}, arquivoDeLog = false }: OpcoesDoPostgres = {}): Promise<Postgres> {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-pg-'));
  chmodSync(pasta, 0o777);
  const dados = join(pasta, 'dados');
  const [initdb, argsInit] = comando('initdb', ['-D', dados, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const init = spawnSync(initdb, argsInit, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb falhou: ${init.stderr || init.error?.message}`);
  const porta = await portaLivre();
  const configuracoes = [
    ...(duravel ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ...Object.entries(ajustes).flatMap(([nome, valor]) => ['-c', `${nome}=${valor}`]),
  ];
  const log = arquivoDeLog ? join(pasta, 'postgres.log') : undefined;
  let servidor: ChildProcess | undefined;

  const ligar = async () => {
    const [postgres, args] = comando('postgres', [
      '-D',
      dados,
      '-p',
      String(porta),
      '-k',
      pasta,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      ...configuracoes,
    ]);
    if (log) {
      const descritor = openSync(log, 'a');
      const desde = statSync(log).size;
      const filho = spawn(postgres, args, { stdio: ['ignore', 'ignore', descritor] });
      closeSync(descritor);
      servidor = filho;
      await esperarNoArquivo(log, desde, PRONTO, new Promise((resolver) => filho.once('exit', resolver)));
      return;
    }
    const filho = spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    servidor = filho;
    let lido = '';
    await new Promise<void>((resolver, rejeitar) => {
      const limite = setTimeout(() => rejeitar(new Error(`postgres nao ficou pronto:\n${lido}`)), 30_000);
      filho.stderr.on('data', (parte: Buffer) => {
        lido += parte.toString();
        if (PRONTO.test(lido)) {
          clearTimeout(limite);
          resolver();
        }
      });
      filho.once('exit', (codigo) => {
        clearTimeout(limite);
        rejeitar(new Error(`postgres saiu (${codigo}):\n${lido}`));
      });
    });
  };

  const desligar = async () => {
    const filho = servidor;
    if (!filho || filho.exitCode !== null || filho.signalCode !== null) return;
    // Through pg_ctl: under runuser a signal to our child would not reach the server.
    const saiu = new Promise((resolver) => filho.once('exit', resolver));
    const [pgCtl, args] = comando('pg_ctl', ['stop', '-D', dados, '-m', 'fast', '-w']);
    spawnSync(pgCtl, args);
    await saiu;
  };

  await ligar();
  const url = (banco: string) => `postgres://postgres@127.0.0.1:${porta}/${banco}`;
  return {
    url: url('postgres'),
    log,
    novoBanco(nome: string) {
      const [psql, args] = comando('psql', [
        '-h',
        pasta,
        '-p',
        String(porta),
        '-U',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        `CREATE DATABASE "${nome}"`,
      ]);
      const criado = spawnSync(psql, args, { encoding: 'utf8' });
      if (criado.status !== 0) return Promise.reject(new Error(`CREATE DATABASE ${nome} falhou: ${criado.stderr}`));
      return Promise.resolve(url(nome));
    },
    desligar,
    ligar,
    async parar() {
      await desligar();
      rmSync(pasta, { recursive: true, force: true });
    },
  };
}
