/**
 * Starts the real processes (for `npm start`, `npm run validar` and the
 * end-to-end tests): readiness read from the process's own "ouvindo em"
 * line, stderr kept for assertions and shown when a boot fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { construirSePreciso, PROCESSOS } from './construir.js';

const RAIZ = fileURLToPath(new URL('../', import.meta.url));
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

export interface Opcoes {
  /** Also echo every line, with this prefix, to our own stderr. */
  readonly prefixo?: string;
  readonly ms?: number;
  /** The command line's arguments after the file's name. */
  readonly argumentos?: readonly string[];
  /** Stops the process when aborted, even before it is ready (its Processo is not handed out yet). */
  readonly sinal?: AbortSignal;
  /**
   * Reads its output only until it is ready, then lets the pipe drain
   * unread: under a bench's load a process writes thousands of log lines a
   * second, and splitting them here would take CPU from the load generator
   * in this same process (the floors, which log nothing, would not pay it).
   */
  readonly soAtePronto?: boolean;
  /** Told each line as it arrives, from the first: what a process says before it is ready. */
  readonly aoLer?: (linha: string) => void;
}

export async function iniciar(
  arquivo: string,
  env: Record<string, string>,
  { prefixo, ms = 20_000, argumentos = [], sinal, soAtePronto = false, aoLer }: Opcoes = {},
): Promise<Processo> {
  // The processes run as users run them: the compiled bundles. Fixtures written in TypeScript go through tsx.
  if (arquivo === ARQUIVO_DO_MCP || arquivo === ARQUIVO_DO_AGENTE) await construirSePreciso();
  const filho = spawn(process.execPath, [...(arquivo.endsWith('.ts') ? ['--import', 'tsx', arquivo] : [arquivo]), ...argumentos], {
    cwd: RAIZ,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // One SIGTERM only: a second one, while the process handles the first, would kill it mid-shutdown (Node's
  // once-handler is gone by then), its last lines lost.
  let terminado = false;
  const terminar = () => {
    if (terminado || filho.exitCode !== null || filho.signalCode !== null) return;
    terminado = true;
    filho.kill('SIGTERM');
  };
  sinal?.addEventListener('abort', terminar, { once: true });
  const linhas: string[] = [];
  const ouvintes = new Set<() => void>();
  let resto = '';
  const receber = (parte: Buffer) => {
    resto += parte.toString('utf8');
    const completas = resto.split('\n');
    resto = completas.pop() ?? '';
    linhas.push(...completas);
    if (prefixo) for (const linha of completas) process.stderr.write(`${prefixo} ${linha}\n`);
    if (aoLer) for (const linha of completas) aoLer(linha);
    for (const ouvinte of ouvintes) ouvinte();
  };
  filho.stderr.on('data', receber);
  filho.stdout.on('data', receber);
  // 'close', not 'exit': the last lines the process wrote before exiting are read (and echoed) by then.
  const saida = new Promise<number | null>((resolver) => filho.once('close', (codigo) => resolver(codigo)));

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

  let pronta: string;
  try {
    pronta = await esperarLinha(PRONTO);
  } catch (erro) {
    // A process that never said it was ready is not left behind, whoever gave up waiting.
    terminar();
    throw erro;
  }
  if (soAtePronto) {
    for (const fluxo of [filho.stderr, filho.stdout]) fluxo.off('data', receber).resume();
  }
  const [, url = ''] = PRONTO.exec(pronta) ?? [];
  return {
    url,
    porta: Number(new URL(url).port),
    linhas,
    esperarLinha,
    filho,
    async parar(sinal: NodeJS.Signals = 'SIGTERM') {
      if (sinal === 'SIGTERM') terminar();
      else if (filho.exitCode === null && filho.signalCode === null) filho.kill(sinal);
      return saida;
    },
  };
}

/** Resident memory of a process, from /proc (Linux), in MiB. */
export function memoriaMiB(processo: ChildProcess): number {
  if (processo.pid === undefined) throw new Error('processo sem pid');
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${String(processo.pid)}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/**
 * A process's CPU time so far (user + system), from /proc (Linux), in
 * microseconds: the 14th and 15th fields of /proc/<pid>/stat, in clock
 * ticks of 1/100 s (Linux's USER_HZ). It counts what the process did, not
 * what a shared machine let it do.
 */
export function cpuMicrossegundos(processo: ChildProcess): number {
  if (processo.pid === undefined) throw new Error('processo sem pid');
  // After the command's name, which ends with ") " and may itself hold spaces.
  const campos =
    readFileSync(`/proc/${String(processo.pid)}/stat`, 'utf8')
      .split(') ')[1]
      ?.split(' ') ?? [];
  return (Number(campos[11]) + Number(campos[12])) * 10_000;
}

export const ARQUIVO_DO_MCP = PROCESSOS.mcp.saida;
export const ARQUIVO_DO_AGENTE = PROCESSOS.agente.saida;
