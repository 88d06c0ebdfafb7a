/**
 * An HTTP forwarder between the agent and the MCP server, on a free port of
 * its own, for tests that must change what stands behind the agent's
 * MCP_URL (a server restarted on another port, or none at all) or hold
 * tools/call answers back (requests in flight). No test has to reuse a
 * fixed port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { escutar } from 'compartilhado/processo';

export interface Intermediario {
  /** The MCP endpoint to give the agent. */
  readonly url: string;
  /** Forwards from now on to this MCP endpoint, or to none (the agent then meets a server that is down). */
  apontar(destino: string | undefined): void;
  /** Holds every tools/call until the returned function is called. */
  reter(): () => void;
  /** Resolves once `n` tools/call requests have arrived since the start. */
  chamadasRecebidas(n: number): Promise<void>;
  /** How many tools/call requests have arrived so far. */
  readonly chamadas: number;
  fechar(): Promise<void>;
}

const SEM_REPASSE = new Set(['host', 'content-length', 'connection']);

export async function intermediario(destino: string | undefined): Promise<Intermediario> {
  let alvo = destino;
  let retencao: Promise<void> = Promise.resolve();
  let chamadas = 0;
  const avisos: (() => void)[] = [];

  const servidor = createServer((req, res) => void repassar(req, res));
  async function repassar(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const partes: Buffer[] = [];
    for await (const parte of req) partes.push(parte as Buffer);
    const corpo = Buffer.concat(partes).toString('utf8');
    if (corpo.includes('"tools/call"')) {
      chamadas += 1;
      for (const avisar of avisos) avisar();
      await retencao;
    }
    if (!alvo) {
      // What a client sees of a server that is down: the connection drops.
      req.socket.destroy();
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([nome]) => !SEM_REPASSE.has(nome))) as Record<string, string>;
    const resposta = await fetch(alvo, { method: req.method, headers, body: req.method === 'POST' ? corpo : undefined });
    res.writeHead(resposta.status, Object.fromEntries(resposta.headers)).end(Buffer.from(await resposta.arrayBuffer()));
  }
  const porta = await escutar(servidor, 0, '127.0.0.1');

  return {
    url: `http://127.0.0.1:${String(porta)}/mcp`,
    apontar(novo) {
      alvo = novo;
    },
    reter() {
      let soltar!: () => void;
      retencao = new Promise<void>((resolver) => (soltar = resolver));
      return soltar;
    },
    get chamadas() {
      return chamadas;
    },
    chamadasRecebidas: (n) =>
      new Promise<void>((resolver) => {
        const conferir = () => chamadas >= n && (resolver(), true);
        if (!conferir()) avisos.push(conferir);
      }),
    fechar: () =>
      new Promise<void>((resolver) => {
        servidor.closeAllConnections();
        servidor.close(() => resolver());
      }),
  };
}
