/** The real processes, on free ports (port 0), for end-to-end tests. */
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, type Processo } from '../../scripts/processos.js';

export type { Processo };

export const segredoDeTeste = () => randomBytes(32).toString('hex');

export const iniciarServidorMcp = (env: Record<string, string> = {}) =>
  iniciar(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredoDeTeste(), ...env });

export const iniciarAgente = (mcpUrl: string, env: Record<string, string> = {}) =>
  iniciar(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', MCP_URL: mcpUrl, ...env });

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

/** Both processes for the tests of one describe block: started before them, stopped after; `env`, the agent's own variables. */
export function ambosOsProcessos(
  segredo = segredoDeTeste(),
  env: Record<string, string> = {},
): {
  readonly mcp: Processo;
  readonly agente: Processo;
  readonly segredo: string;
} {
  let mcp: Processo | undefined;
  let agente: Processo | undefined;
  before(async () => {
    mcp = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo });
    agente = await iniciarAgente(mcp.url, env);
  });
  after(async () => {
    await agente?.parar();
    await mcp?.parar();
  });
  const iniciado = (processo: Processo | undefined, nome: string) => {
    if (!processo) throw new Error(`${nome} nao subiu antes deste teste`);
    return processo;
  };
  return {
    segredo,
    get mcp() {
      return iniciado(mcp, 'servidor-mcp');
    },
    get agente() {
      return iniciado(agente, 'agente');
    },
  };
}
