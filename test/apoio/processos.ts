/**
 * Starts the real processes for end-to-end tests: port 0 (the OS picks a
 * free one), readiness read from the process's own "ouvindo em" line, stderr
 * kept for assertions and shown when a boot fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const RAIZ = fileURLToPath(new URL('../../', import.meta.url));
const PRONTO = /ouvindo em (http:\/\/\S+)/;

export interface Processo {
  /** The URL the process printed when ready (endpoint for MCP, base for the agent). */
  readonly url: string;
  readonly porta: number;
  /** Every stderr line so far. */
  readonly linhas: string[];
  /** Resolves with the first line (already seen or future) that matches. */
  esperarLinha(padrao: RegExp, ms?: number): Promise<string>;
  parar(sinal?: NodeJS.Signals): Promise<number | null>;
  readonly filho: ChildProcess;
}

export const segredoDeTeste = () => randomBytes(32).toString('hex');

export async function iniciar(arquivo: string, env: Record<string, string>, ms = 20_000): Promise<Processo> {
  const filho = spawn(process.execPath, ['--import', 'tsx', arquivo], {
    cwd: RAIZ,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const linhas: string[] = [];
  const ouvintes = new Set<() => void>();
  let resto = '';
  const receber = (parte: Buffer) => {
    resto += parte.toString('utf8');
    const completas = resto.split('\n');
    resto = completas.pop() ?? '';
    linhas.push(...completas);
    for (const ouvinte of ouvintes) ouvinte();
  };
  filho.stderr!.on('data', receber);
  filho.stdout!.on('data', receber);
  const saida = new Promise<number | null>((resolver) => filho.once('exit', (codigo) => resolver(codigo)));

  const esperarLinha = (padrao: RegExp, limite = ms) =>
    new Promise<string>((resolver, rejeitar) => {
      const conferir = () => {
        const linha = linhas.find((l) => padrao.test(l));
        if (!linha) return false;
        ouvintes.delete(conferir);
        clearTimeout(relogio);
        resolver(linha);
        return true;
      };
      const relogio = setTimeout(() => {
        ouvintes.delete(conferir);
        rejeitar(new Error(`${arquivo}: nenhuma linha casou ${padrao} em ${limite}ms\n${linhas.join('\n')}`));
      }, limite);
      ouvintes.add(conferir);
      if (!conferir()) {
        void saida.then((codigo) => {
          if (ouvintes.has(conferir) && !conferir()) {
            ouvintes.delete(conferir);
            clearTimeout(relogio);
            rejeitar(new Error(`${arquivo} saiu (${codigo}) antes de ${padrao}\n${linhas.join('\n')}`));
          }
        });
      }
    });

  const url = PRONTO.exec(await esperarLinha(PRONTO))![1]!;
  return {
    url,
    porta: Number(new URL(url).port),
    linhas,
    esperarLinha,
    filho,
    async parar(sinal: NodeJS.Signals = 'SIGTERM') {
      if (filho.exitCode === null && filho.signalCode === null) filho.kill(sinal);
      return saida;
    },
  };
}

export const iniciarServidorMcp = (env: Record<string, string> = {}) =>
  iniciar('servidor-mcp/src/main.ts', { MCP_PORT: '0', REQUEST_STATE_SECRET: segredoDeTeste(), ...env });

export const iniciarAgente = (mcpUrl: string, env: Record<string, string> = {}) =>
  iniciar('agente/src/main.ts', { AGENTE_PORT: '0', MCP_URL: mcpUrl, ...env });

/**
 * A process writes its log line as a request ends, and the pipe delivers it
 * a little later. A marker request is a barrier: once its own line is read,
 * every line of the requests that ended before it has been read too.
 */
export async function linhasAte(processo: Processo, marcar: (id: string) => Promise<unknown>): Promise<string[]> {
  const id = `barreira-${randomBytes(6).toString('hex')}`;
  await marcar(id);
  await processo.esperarLinha(new RegExp(id));
  return processo.linhas.filter((linha) => !linha.includes('barreira-'));
}
