/**
 * A throwaway PostgreSQL cluster (for the tests and the bench): initdb in
 * a temporary folder, a free port, trust auth on loopback only. The server
 * binaries come from PATH or from Debian's /usr/lib/postgresql/<version>/bin
 * (the `postgresql` package does not put them on PATH). As root it runs as
 * the `postgres` user, because the server refuses to run as root. A machine
 * without PostgreSQL is an error here, never a reason to skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  readonly url: string;
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

export async function iniciarPostgres({ duravel = false }: OpcoesDoPostgres = {}): Promise<Postgres> {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-pg-'));
  chmodSync(pasta, 0o777);
  const dados = join(pasta, 'dados');
  const [initdb, argsInit] = comando('initdb', ['-D', dados, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const init = spawnSync(initdb, argsInit, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb falhou: ${init.stderr || init.error?.message}`);
  const porta = await portaLivre();
  const ajustes = duravel ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
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
      ...ajustes,
    ]);
    const filho = spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    servidor = filho;
    let log = '';
    await new Promise<void>((resolver, rejeitar) => {
      const limite = setTimeout(() => rejeitar(new Error(`postgres nao ficou pronto:\n${log}`)), 30_000);
      filho.stderr.on('data', (parte: Buffer) => {
        log += parte.toString();
        if (/ready to accept connections/.test(log)) {
          clearTimeout(limite);
          resolver();
        }
      });
      filho.once('exit', (codigo) => {
        clearTimeout(limite);
        rejeitar(new Error(`postgres saiu (${codigo}):\n${log}`));
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
