/**
 * The lifecycle both processes share: start or exit 1 with one readable
 * line, listen, and on SIGTERM/SIGINT stop accepting, let in-flight
 * requests (and whatever else the process says it has in flight) finish,
 * and exit 0.
 */
import type { Server } from 'node:http';
import { ConfiguracaoInvalida } from './ambiente.js';
import { encerrarTelemetria, ligarTelemetria } from './telemetria/telemetria.js';

/**
 * Log lines reach stderr in batches, one write per turn of the event loop:
 * under load many requests end in the same turn, and each write to a pipe
 * is a system call. What is pending when the process exits is written then.
 */
let pendentes: string[] = [];

function descarregar(): void {
  if (pendentes.length === 0) return;
  const texto = `${pendentes.join('\n')}\n`;
  pendentes = [];
  process.stderr.write(texto);
}
process.on('exit', descarregar);
// Before Node prints an uncaught error, so the lines that led to it come first.
process.on('uncaughtExceptionMonitor', descarregar);

export const log = (linha: string): void => {
  if (pendentes.length === 0) setImmediate(descarregar);
  pendentes.push(linha);
};

const PRAZO_PARA_ENCERRAR_MS = 5000;

/** Listens and resolves with the port actually bound (port 0 picks a free one). */
export function escutar(servidor: Server, porta: number, host: string): Promise<number> {
  return new Promise((resolver, rejeitar) => {
    servidor.once('error', rejeitar);
    servidor.listen(porta, host, () => {
      servidor.off('error', rejeitar);
      const endereco = servidor.address();
      resolver(typeof endereco === 'object' && endereco ? endereco.port : porta);
    });
  });
}

/** The local URL of a bound address: a wildcard host is reached as localhost, IPv6 goes in brackets. */
export function urlLocal(host: string, porta: number, caminho = ''): URL {
  const nome = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return new URL(`http://${nome}:${porta}${caminho}`);
}

export interface Iniciado {
  readonly servidor: Server;
  /** Work that outlives the requests (deliveries in flight), awaited after them, within the same deadline. */
  readonly aoEncerrar?: () => Promise<void>;
  /** Told at the signal, before the server closes: requests that would wait for ever (streams that follow a Task) end now. */
  readonly aoParar?: () => void;
}

/** Telemetry first (off unless configured: see telemetria.ts), so the first request is traced; then the process's own start. */
async function comTelemetria(nome: string, iniciar: () => Promise<Iniciado>): Promise<Iniciado> {
  const telemetria = await ligarTelemetria(nome, log);
  if (telemetria) log(`${nome}: ${telemetria}`);
  return iniciar();
}

export function executarProcesso(nome: string, iniciar: () => Promise<Iniciado>): void {
  comTelemetria(nome, iniciar).then(
    ({ servidor, aoEncerrar = () => Promise.resolve(), aoParar }) => {
      const parar = (sinal: string) => {
        log(`${nome}: ${sinal}, encerrando`);
        aoParar?.();
        // The spans and metrics still queued go last, after the work that may add some.
        servidor.close(
          () =>
            void aoEncerrar()
              .then(encerrarTelemetria)
              .finally(() => process.exit(0)),
        );
        servidor.closeIdleConnections();
        setTimeout(() => process.exit(0), PRAZO_PARA_ENCERRAR_MS).unref();
      };
      process.once('SIGTERM', () => parar('SIGTERM'));
      process.once('SIGINT', () => parar('SIGINT'));
    },
    (erro: unknown) => {
      log(`${nome} nao subiu: ${erro instanceof ConfiguracaoInvalida || erro instanceof Error ? erro.message : String(erro)}`);
      process.exit(1);
    },
  );
}
