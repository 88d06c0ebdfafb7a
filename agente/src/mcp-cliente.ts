/**
 * The agent's MCP client: one SDK Client kept alive (no protocol state rides
 * on it: every request carries its own envelope), pinned to 2026-07-28,
 * declaring form elicitation, and never answering input_required by itself.
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { resultadoJsonRpc } from 'compartilhado/log';

export const CLIENTE = { name: 'agente-central-de-salas', version: '1.0.0' } as const;
const VERSAO_MCP = '2026-07-28';

/** What a tools/call can come back as, once the SDK has parsed it. */
export type ResultadoDaFerramenta =
  | (CallToolResult & { resultType?: 'complete' })
  | { resultType: 'input_required'; inputRequests?: Record<string, unknown>; requestState?: string };

export interface Continuacao {
  readonly inputResponses: Record<string, unknown>;
  readonly requestState: string;
}

type Log = (linha: string) => void;

/** One stderr line per MCP request the agent makes; never the requestState. */
function fetchComLog(log: Log): typeof fetch {
  return async (entrada, init) => {
    const comeco = performance.now();
    let pedido = '-';
    try {
      const corpo = JSON.parse(String(init?.body ?? '{}'));
      const params = corpo.params ?? {};
      pedido = [
        `metodo=${String(corpo.method ?? '-')}`,
        `id=${JSON.stringify(corpo.id ?? null)}`,
        `nome=${String(params.name ?? params.uri ?? '-')}`,
        `traceparent=${String(params._meta?.traceparent ?? '-')}`,
      ].join(' ');
    } catch {
      // A body that is not JSON: log what we have.
    }
    const linha = (resultado: string) => log(`mcp-> ${pedido} ${resultado} ${(performance.now() - comeco).toFixed(1)}ms`);
    try {
      const resposta = await fetch(entrada, init);
      if (!resposta.headers.get('content-type')?.includes('application/json')) {
        linha(`http=${resposta.status} resultado=-`);
        return resposta;
      }
      // Read once and hand the SDK a fresh Response: cheaper than clone(), which tees the stream.
      const texto = await resposta.text();
      linha(`http=${resposta.status} resultado=${resultadoJsonRpc(texto)}`);
      return new Response(texto, { status: resposta.status, statusText: resposta.statusText, headers: resposta.headers });
    } catch (erro) {
      linha(`resultado=falha ${JSON.stringify(erro instanceof Error ? erro.message : String(erro))}`);
      throw erro;
    }
  };
}

export class ClienteMcp {
  private conexao: Promise<Client> | undefined;

  constructor(
    readonly url: URL,
    private readonly log: Log,
  ) {}

  /** Connects once; a failed connection is retried by the next caller. */
  private cliente(): Promise<Client> {
    this.conexao ??= (async () => {
      const cliente = new Client(CLIENTE, {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: VERSAO_MCP } },
        // The agent must see input_required raw, to pause the A2A Task.
        inputRequired: { autoFulfill: false },
      });
      await cliente.connect(new StreamableHTTPClientTransport(this.url, { fetch: fetchComLog(this.log) }));
      return cliente;
    })();
    this.conexao.catch(() => (this.conexao = undefined));
    return this.conexao;
  }

  conectar(): Promise<void> {
    return this.cliente().then(() => undefined);
  }

  /** tools/list, served from the SDK's cache while the server's ttlMs says it is fresh. */
  async ferramentas(traceparent: string): Promise<Tool[]> {
    const { tools } = await (await this.cliente()).listTools({ _meta: { traceparent } });
    return tools;
  }

  async lerTexto(uri: string, traceparent: string): Promise<string> {
    const { contents } = await (await this.cliente()).readResource({ uri, _meta: { traceparent } });
    const texto = contents.find((conteudo): conteudo is typeof conteudo & { text: string } => 'text' in conteudo);
    if (!texto) throw new Error(`${uri} sem conteudo de texto`);
    return texto.text;
  }

  /** tools/call on a fresh JSON-RPC id; a continuation adds inputResponses and the echoed state. */
  async chamar(
    name: string,
    args: Record<string, unknown>,
    traceparent: string,
    continuacao?: Continuacao,
  ): Promise<ResultadoDaFerramenta> {
    const cliente = await this.cliente();
    const params = { name, arguments: args, ...continuacao, _meta: { traceparent } };
    return (await cliente.request({ method: 'tools/call', params }, { allowInputRequired: true })) as ResultadoDaFerramenta;
  }
}
