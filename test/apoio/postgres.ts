/**
 * A throwaway PostgreSQL cluster for tests, when the machine has the server
 * binaries: initdb in a temporary folder, a free port, trust auth on
 * loopback only. As root it runs as the `postgres` user (the server refuses root).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  readonly url: string;
  parar(): Promise<void>;
}

const comoRoot = process.getuid?.() === 0;
const comando = (programa: string, args: string[]) => (comoRoot ? ['runuser', ['-u', 'postgres', '--', programa, ...args]] : [programa, args]) as [string, string[]];

/** Why Postgres cannot run here, or undefined when it can. */
export function semPostgres(): string | undefined {
  const [programa, args] = comando('initdb', ['--version']);
  const versao = spawnSync(programa, args, { encoding: 'utf8' });
  return versao.status === 0 ? undefined : 'initdb (servidor PostgreSQL) nao esta disponivel nesta maquina';
}

const portaLivre = () =>
  new Promise<number>((resolver) => {
    const teste = createServer().listen(0, '127.0.0.1', () => {
      const { port } = teste.address() as { port: number };
      teste.close(() => resolver(port));
    });
  });

export async function iniciarPostgres(): Promise<Postgres> {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-pg-'));
  chmodSync(pasta, 0o777);
  const dados = join(pasta, 'dados');
  const [initdb, argsInit] = comando('initdb', ['-D', dados, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const init = spawnSync(initdb, argsInit, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb falhou: ${init.stderr}`);
  const porta = await portaLivre();
  const [postgres, argsPg] = comando('postgres', ['-D', dados, '-p', String(porta), '-k', pasta, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']);
  const servidor: ChildProcess = spawn(postgres, argsPg, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  servidor.stderr!.on('data', (parte: Buffer) => (log += parte));
  await new Promise<void>((resolver, rejeitar) => {
    const limite = setTimeout(() => rejeitar(new Error(`postgres nao ficou pronto:\n${log}`)), 20_000);
    const conferir = () => {
      if (/ready to accept connections/.test(log)) {
        clearTimeout(limite);
        resolver();
      }
    };
    servidor.stderr!.on('data', conferir);
    servidor.once('exit', (codigo) => rejeitar(new Error(`postgres saiu (${codigo}):\n${log}`)));
  });
  return {
    url: `postgres://postgres@127.0.0.1:${porta}/postgres`,
    async parar() {
      // Through pg_ctl: under runuser a signal to our child would not reach the server.
      const saiu = new Promise((resolver) => servidor.once('exit', resolver));
      const [pgCtl, args] = comando('pg_ctl', ['stop', '-D', dados, '-m', 'fast', '-w']);
      spawnSync(pgCtl, args);
      await saiu;
      rmSync(pasta, { recursive: true, force: true });
    },
  };
}
