/** Environment read and validated once, before anything listens. */
import { isIPv6 } from 'node:net';
import { ConfiguracaoInvalida, lerInteiro, lerPorta } from 'compartilhado/ambiente';
import { ehTokenAceitavel, Identidades, TAMANHO_MINIMO_DO_TOKEN } from 'compartilhado/identidade';
import { lerEsperaDoBanco } from 'compartilhado/espera';
import { lerOrigens } from 'compartilhado/origem';
import { lerChaveDoCard, type ChaveDoCard } from './a2a/assinatura.js';
import { lerArquivoMcp, type ArquivoMcp } from './mcp/configuracao.js';

export interface Configuracao {
  readonly porta: number;
  readonly host: string;
  /** AGENTE_GRPC_PORTA: the gRPC binding's port on the same host (0 takes a free one); undefined leaves gRPC off. */
  readonly portaGrpc: number | undefined;
  readonly mcpUrl: URL;
  /** AGENTE_MCP_CONFIG: the mcpServers file (the MCP servers to bridge, what the card says of the agent); undefined bridges the room server at MCP_URL. */
  readonly arquivoMcp: ArquivoMcp | undefined;
  /** AGENTE_TOKENS: who may call the A2A endpoints; undefined means anyone (the course's default). */
  readonly identidades: Identidades | undefined;
  /** AGENTE_LIMITE_POR_MINUTO: requests per identity per minute; undefined means no limit. */
  readonly limitePorMinuto: number | undefined;
  /** MCP_TOKEN: the agent's own bearer token for the MCP server (its MCP_TOKENS); undefined sends none. */
  readonly tokenDoMcp: string | undefined;
  /** AGENTE_CHAVE_CARD: the private key that signs the card (and the extended card); undefined serves them unsigned. */
  readonly chaveDoCard: ChaveDoCard | undefined;
  /** Public base URL for the card; undefined means "derive from the port actually bound". */
  readonly urlPublica: URL | undefined;
  /** AGENTE_ORIGENS: browser origins allowed besides the agent's own (see compartilhado/origem). */
  readonly origens: readonly string[];
  /** AGENTE_CONSOLE: the web console at / (on unless 0). */
  readonly console: boolean;
  readonly limiteDoCorpoBytes: number;
  /** TASKS_DB: a SQLite file or a postgres:// URL; undefined keeps Tasks in memory. */
  readonly banco: string | undefined;
  /** DB_WAIT_SECONDS: how long a PostgreSQL TASKS_DB that does not answer yet is waited for at start. */
  readonly esperaDoBancoMs: number;
  readonly maxTarefas: number;
  readonly maxPausadas: number;
  /** How long a paused Task waits for its answer: the MCP server's requestState lifetime. */
  readonly validadeDaPausaMs: number;
  /** AGENTE_MCP_TIMEOUT_SECONDS: how long an MCP request is waited for; a booking not answered by then is replayed. */
  readonly prazoDoMcpMs: number;
  /** AGENTE_SWEEP_SECONDS: how often expired pauses are ended and steps whose claim ran out are replayed. */
  readonly varreduraMs: number;
  /** AGENTE_PUSH_HOSTS: the only hosts (or host:port) a push notification may be POSTed to, against server-side request forgery. */
  readonly hostsDePush: ReadonlySet<string>;
}

/** An http(s) URL from the environment: with a default it is always there, without one it may be absent. */
function url(env: NodeJS.ProcessEnv, nome: string, padrao: string): URL;
function url(env: NodeJS.ProcessEnv, nome: string): URL | undefined;
function url(env: NodeJS.ProcessEnv, nome: string, padrao?: string): URL | undefined {
  const bruto = env[nome] || padrao;
  if (bruto === undefined) return undefined;
  try {
    const valor = new URL(bruto);
    if (valor.protocol !== 'http:' && valor.protocol !== 'https:') throw new Error();
    return valor;
  } catch {
    throw new ConfiguracaoInvalida(`${nome}=${bruto}: esperado uma URL http(s) absoluta`);
  }
}

/** An IPv6 address as a URL writes it, `[::1]`, without its brackets; any other host as it is. */
export const semColchetes = (host: string): string => host.replace(/^\[(.*)\]$/, '$1');

/** A host name or IP address as URL parsing writes it (127.1 is 127.0.0.1), IPv6 without brackets; undefined for anything else. */
function host(entrada: string): string | undefined {
  const endereco = semColchetes(entrada);
  // Host characters only: with a scheme, port, path or userinfo, `http://${entrada}/` would parse as another host or drop the rest.
  const naUrl = isIPv6(endereco) ? `[${endereco}]` : /^[a-z0-9._-]+$/.test(entrada) ? entrada : undefined;
  if (naUrl === undefined || !URL.canParse(`http://${naUrl}/`)) return undefined;
  return semColchetes(new URL(`http://${naUrl}/`).hostname);
}

/**
 * One AGENTE_PUSH_HOSTS entry: a host (any port), or `host:porta` / `[ipv6]:porta`
 * for that port only. A port entry keeps IPv6 in brackets, so `::1` (any port)
 * and `[::1]:9000` never read as each other.
 */
function destinoPermitido(entrada: string): string | undefined {
  const comPorta = /^(\[[^\]]*\]|[^:[\]]+):(\d{1,5})$/.exec(entrada);
  if (!comPorta) return host(entrada);
  const nome = host(comPorta[1] ?? '');
  const porta = Number(comPorta[2]);
  if (nome === undefined || porta < 1 || porta > 65535) return undefined;
  return `${isIPv6(nome) ? `[${nome}]` : nome}:${String(porta)}`;
}

/** Comma-separated destinations, compared with a webhook URL's host (and port) exactly; unset or empty means loopback, any port. */
function destinos(env: NodeJS.ProcessEnv, nome: string, padrao: readonly string[]): ReadonlySet<string> {
  const bruto = env[nome] ?? '';
  const entradas = bruto
    .split(',')
    .map((entrada) => entrada.trim().toLowerCase())
    .filter((entrada) => entrada !== '');
  if (entradas.length === 0) return new Set(padrao);
  return new Set(
    entradas.map((entrada) => {
      const valor = destinoPermitido(entrada);
      if (valor === undefined)
        throw new ConfiguracaoInvalida(
          `${nome}=${bruto}: "${entrada}" nao e um host; esperado nomes ou enderecos IP separados por virgula, cada um com porta opcional (host:porta, [ipv6]:porta), sem esquema, caminho ou espaco (ex.: localhost,127.0.0.1:9000,::1)`,
        );
      return valor;
    }),
  );
}

function tokenDoMcp(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.MCP_TOKEN?.trim();
  if (!token) return undefined;
  // The server's own rule (compartilhado/identidade): a token it would never accept is refused here, at start, without echoing it.
  if (!ehTokenAceitavel(token))
    throw new ConfiguracaoInvalida(
      `MCP_TOKEN: esperado um token Bearer de pelo menos ${String(TAMANHO_MINIMO_DO_TOKEN)} caracteres (letras, digitos, -._~+/)`,
    );
  return token;
}

/** gRPC is HTTP/2 on a listener of its own: never AGENTE_PORT's. */
function portaGrpc(env: NodeJS.ProcessEnv, porta: number): number | undefined {
  if (!env.AGENTE_GRPC_PORTA) return undefined;
  const grpc = lerPorta(env, 'AGENTE_GRPC_PORTA', 0);
  if (grpc !== 0 && grpc === porta)
    throw new ConfiguracaoInvalida(`AGENTE_GRPC_PORTA=${String(grpc)}: e a porta de AGENTE_PORT; o gRPC precisa de uma porta sua`);
  return grpc;
}

/** A limit counts requests of an identity: without AGENTE_TOKENS there is none to count. */
function limitePorMinuto(env: NodeJS.ProcessEnv, identidades: Identidades | undefined): number | undefined {
  if (!env.AGENTE_LIMITE_POR_MINUTO) return undefined;
  if (!identidades) throw new ConfiguracaoInvalida('AGENTE_LIMITE_POR_MINUTO vale por identidade: defina AGENTE_TOKENS tambem');
  return lerInteiro(env, 'AGENTE_LIMITE_POR_MINUTO', 0, 1, 1_000_000);
}

export function lerConfiguracao(env: NodeJS.ProcessEnv = process.env): Configuracao {
  const identidades = Identidades.ler(env, 'AGENTE_TOKENS');
  const porta = lerPorta(env, 'AGENTE_PORT', 7300);
  return Object.freeze({
    identidades,
    limitePorMinuto: limitePorMinuto(env, identidades),
    porta,
    host: env.AGENTE_HOST || '127.0.0.1',
    portaGrpc: portaGrpc(env, porta),
    mcpUrl: url(env, 'MCP_URL', 'http://localhost:7301/mcp'),
    arquivoMcp: env.AGENTE_MCP_CONFIG ? lerArquivoMcp(env.AGENTE_MCP_CONFIG, env) : undefined,
    tokenDoMcp: tokenDoMcp(env),
    urlPublica: url(env, 'AGENTE_URL'),
    chaveDoCard: env.AGENTE_CHAVE_CARD ? lerChaveDoCard('AGENTE_CHAVE_CARD', env.AGENTE_CHAVE_CARD) : undefined,
    origens: lerOrigens(env, 'AGENTE_ORIGENS'),
    console: lerInteiro(env, 'AGENTE_CONSOLE', 1, 0, 1) === 1,
    limiteDoCorpoBytes: 64 * 1024,
    banco: env.TASKS_DB || undefined,
    esperaDoBancoMs: lerEsperaDoBanco(env),
    maxTarefas: lerInteiro(env, 'AGENTE_MAX_TASKS', 20_000, 1, 10_000_000),
    maxPausadas: lerInteiro(env, 'AGENTE_MAX_PAUSED', 10_000, 1, 10_000_000),
    validadeDaPausaMs: lerInteiro(env, 'AGENTE_PAUSE_TTL_SECONDS', 600, 60, 1800) * 1000,
    prazoDoMcpMs: lerInteiro(env, 'AGENTE_MCP_TIMEOUT_SECONDS', 20, 1, 120) * 1000,
    varreduraMs: lerInteiro(env, 'AGENTE_SWEEP_SECONDS', 10, 1, 600) * 1000,
    hostsDePush: destinos(env, 'AGENTE_PUSH_HOSTS', ['localhost', '127.0.0.1', '::1']),
  });
}
