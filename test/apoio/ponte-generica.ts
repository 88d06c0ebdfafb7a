/**
 * The generic bridge's end-to-end pieces: third-party MCP servers started
 * as their users start them (server-everything over Streamable HTTP,
 * server-memory and server-filesystem over stdio), the fixture of two question rounds, an
 * AGENTE_MCP_CONFIG file in a temporary folder, and the agent bundle
 * started with it (with server-everything alone, for one describe block);
 * the card as a client reads it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ARQUIVO_DO_AGENTE, iniciar, type Processo } from '../../scripts/processos.js';

const RAIZ = fileURLToPath(new URL('../../', import.meta.url));

export const EVERYTHING = join(RAIZ, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const MEMORY = join(RAIZ, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
export const FILESYSTEM = join(RAIZ, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
/** The 2026-07-28 fixture: agendar_visita, two questions at once, then a confirmation. */
export const PERGUNTAS = 'test/apoio/servidores/perguntas.ts';

/** What the agent card says of one skill's tool (the MCP tools extension). */
export interface FerramentaNoCard {
  readonly servidor: string;
  readonly ferramenta: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
  readonly execution?: unknown;
}

export interface Card {
  readonly skills: readonly { readonly id: string }[];
  readonly capabilities: {
    readonly extensions?: readonly { readonly uri: string; readonly params: { readonly skills: Record<string, FerramentaNoCard> } }[];
  };
}

export const EXTENSAO_MCP_TOOLS = 'urn:a-ponte:a2a-extension:mcp-tools:v1';

/** The card as any HTTP client reads it: plain JSON, no A2A call. */
export async function card(base: string): Promise<Card> {
  const resposta = await fetch(new URL('/.well-known/agent-card.json', base));
  assert.equal(resposta.status, 200);
  return (await resposta.json()) as Card;
}

/** The card's mcp-tools extension: each skill's tool. */
export const ferramentasNoCard = (lido: Card) => {
  const extensao = lido.capabilities.extensions?.find(({ uri }) => uri === EXTENSAO_MCP_TOOLS);
  assert.ok(extensao, 'the card declares the MCP tools extension');
  return extensao.params.skills;
};

/** A port free right now on loopback, for a server that cannot take 0 and say which port it got. */
export const portaLivre = () =>
  new Promise<number>((resolver, rejeitar) => {
    const teste = createServer()
      .once('error', rejeitar)
      .listen(0, '127.0.0.1', () => {
        const endereco = teste.address();
        const porta = typeof endereco === 'object' && endereco !== null ? endereco.port : 0;
        teste.close(() => resolver(porta));
      });
  });

export interface ServidorExterno {
  /** The MCP endpoint. */
  readonly url: string;
  /** Every stderr line so far (stdout is one line per request: drained, not kept). */
  readonly linhas: string[];
  parar(): Promise<void>;
}

/** How server-everything serves each transport: its argument, its endpoint, and the line that says it listens. */
const TRANSPORTES = {
  streamableHttp: { caminho: '/mcp', pronto: (porta: number) => `listening on port ${String(porta)}` },
  sse: { caminho: '/sse', pronto: (porta: number) => `running on port ${String(porta)}` },
} as const;

/**
 * server-everything over Streamable HTTP (or the HTTP+SSE transport) on a
 * port chosen here: with PORT=0 it binds some port but prints 0. Ready when
 * its stderr says it listens; its stdout is read and dropped, or a full pipe
 * would block it.
 */
export async function iniciarEverything(
  ms = 20_000,
  transporte: keyof typeof TRANSPORTES = 'streamableHttp',
  /** The port of one stopped before: the same URL, a server that has forgotten everything. */
  porta?: number,
): Promise<ServidorExterno & { readonly porta: number; readonly filho: ChildProcess }> {
  porta ??= await portaLivre();
  const { caminho, pronto } = TRANSPORTES[transporte];
  const filho = spawn(process.execPath, [EVERYTHING, transporte], {
    cwd: RAIZ,
    env: { ...process.env, PORT: String(porta) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  filho.stdout.resume();
  const linhas: string[] = [];
  const saida = new Promise<void>((resolver) => filho.once('exit', () => resolver()));
  await new Promise<void>((resolver, rejeitar) => {
    let resto = '';
    const relogio = setTimeout(() => {
      filho.kill();
      rejeitar(new Error(`server-everything nao ficou pronto em ${String(ms)}ms:\n${linhas.join('\n')}`));
    }, ms);
    filho.stderr.on('data', (parte: Buffer) => {
      resto += parte.toString('utf8');
      const completas = resto.split('\n');
      resto = completas.pop() ?? '';
      linhas.push(...completas);
      if (completas.some((linha) => linha.includes(pronto(porta)))) {
        clearTimeout(relogio);
        resolver();
      }
    });
    // A port taken between our check and its bind ends the process: said here, not as a timeout.
    void saida.then(() => {
      clearTimeout(relogio);
      rejeitar(new Error(`server-everything saiu antes de ouvir na porta ${String(porta)}:\n${linhas.join('\n')}`));
    });
  });
  return {
    url: `http://127.0.0.1:${String(porta)}${caminho}`,
    porta,
    filho,
    linhas,
    async parar() {
      if (filho.exitCode === null && filho.signalCode === null) filho.kill('SIGTERM');
      await saida;
    },
  };
}

/** The fixture, through tsx; it prints the "ouvindo em" line iniciar() waits for. */
export const iniciarPerguntas = () => iniciar(PERGUNTAS, { PORT: '0' });

/** The example server of 2026-generation MCP tasks (the `io.modelcontextprotocol/tasks` extension), on a free port. */
export const iniciarTarefas2026 = () => iniciar('exemplos/tarefas-2026.ts', { PORT: '0' });

/** One server as the mcpServers file writes it. */
export type ServidorNoArquivo =
  | { readonly url: string; readonly headers?: Record<string, string>; readonly tools?: readonly string[] }
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Record<string, string>;
      readonly tools?: readonly string[];
    };

/** server-memory over stdio, its graph in `arquivo` (absolute: a relative path resolves inside node_modules). */
export const memoria = (arquivo: string): ServidorNoArquivo => ({
  command: process.execPath,
  args: [MEMORY],
  env: { MEMORY_FILE_PATH: arquivo },
});

/** server-filesystem over stdio, allowed only into `pasta` (absolute; the agent offers no MCP roots, so the argument rules). */
export const sistemaDeArquivos = (pasta: string): ServidorNoArquivo => ({ command: process.execPath, args: [FILESYSTEM, pasta] });

/** The fixture test/apoio/servidores/lento.ts over stdio: server-memory that takes 3 s to serve, its graph in the folder. */
export const servidorLento = (pasta: Pasta): ServidorNoArquivo => ({
  command: process.execPath,
  args: ['--import', 'tsx', 'test/apoio/servidores/lento.ts'],
  env: { MEMORY_FILE_PATH: join(pasta.caminho, 'grafo.jsonl') },
});

/** The fixture test/apoio/servidores/tarefas-2025.ts over stdio: task tools that fail, or that the server cancels. */
export const tarefas2025 = (): ServidorNoArquivo => ({
  command: process.execPath,
  args: ['--import', 'tsx', 'test/apoio/servidores/tarefas-2025.ts'],
});

/** A temporary folder for one describe block: its config file, a memory graph, a SQLite TASKS_DB. */
export interface Pasta {
  readonly caminho: string;
  /** Writes `{"mcpServers": ...}` to a file in the folder and returns its path. */
  config(servidores: Record<string, ServidorNoArquivo>, nome?: string): string;
  apagar(): void;
}

export function pastaTemporaria(): Pasta {
  const caminho = mkdtempSync(join(tmpdir(), 'ponte-generica-'));
  return {
    caminho,
    config(servidores, nome = 'mcp.json') {
      const arquivo = join(caminho, nome);
      writeFileSync(arquivo, JSON.stringify({ mcpServers: servidores }, null, 2));
      return arquivo;
    },
    apagar: () => rmSync(caminho, { recursive: true, force: true }),
  };
}

/** The agent bundle bridging the servers of `config` (AGENTE_MCP_CONFIG). */
export const iniciarAgenteGenerico = (config: string, env: Record<string, string> = {}): Promise<Processo> =>
  iniciar(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', AGENTE_MCP_CONFIG: config, ...env });

/**
 * server-everything and one agent bridging it alone, for the tests of one
 * describe block: both started before them (free ports, each ready when it
 * says so), stopped after, the config folder removed. A test that reads the
 * agent's log sees only its own block's calls. `tools`: the server's allow-list in the file.
 */
export function everythingComAgente(tools?: readonly string[]): { readonly agente: Processo; readonly everything: ServidorExterno } {
  let pasta: Pasta | undefined;
  let everything: ServidorExterno | undefined;
  let agente: Processo | undefined;
  before(async () => {
    pasta = pastaTemporaria();
    everything = await iniciarEverything();
    agente = await iniciarAgenteGenerico(pasta.config({ everything: { url: everything.url, ...(tools ? { tools: [...tools] } : {}) } }));
  });
  after(async () => {
    await agente?.parar();
    await everything?.parar();
    pasta?.apagar();
  });
  const iniciado = <T>(processo: T | undefined, nome: string): T => {
    if (processo === undefined) throw new Error(`${nome} nao subiu antes deste teste`);
    return processo;
  };
  return {
    get agente() {
      return iniciado(agente, 'agente');
    },
    get everything() {
      return iniciado(everything, 'server-everything');
    },
  };
}
