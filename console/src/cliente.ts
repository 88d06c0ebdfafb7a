/**
 * The console's A2A client: the SDK's own, on this page's origin (the
 * card's URLs may name 127.0.0.1 where the page was opened as localhost),
 * with a fetch that hands each exchange to the Fio panel as it ends. A
 * stream is split in two: the SDK reads one copy as it arrives, the panel
 * gets the other once it is over. With AGENTE_TOKENS on the agent, the
 * person's token goes as `Authorization: Bearer` on every request; it is
 * kept in this page's memory only.
 */
import type { AgentCard } from '@a2a-js/sdk';
import { Client, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { cabecalhoDaTroca, type Troca } from 'compartilhado/fio';
import { lerJson } from 'compartilhado/json';
import type { TrocaDaPagina } from './fio.js';

export type AoTrocar = (troca: TrocaDaPagina) => void;

export interface Conexao {
  readonly card: AgentCard;
  readonly cliente: Client;
  readonly streaming: boolean;
  /** The card asks for a Bearer token (the agent runs with AGENTE_TOKENS). */
  readonly exigeToken: boolean;
  /** The token sent from now on. */
  readonly usarToken: (token: string) => void;
  /** Resolves once every A2A exchange so far is on the panel (a stream's copy is read to its end apart). */
  readonly assentado: () => Promise<void>;
  /** The MCP exchanges the agent made for a Task (GET /console/tarefas/{id}/mcp), states already sealed by it. */
  readonly trocasMcp: (taskId: string) => Promise<Troca[]>;
}

/**
 * The trace id in the agent's `traceresponse` header (W3C Trace Context
 * Level 2: `00-<trace-id>-<span-id>-<flags>`), which it sends only with its
 * telemetry on: the trace of the request, to look up where it exports.
 */
const TRACERESPONSE = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const traceIdDe = (resposta: Response) => TRACERESPONSE.exec(resposta.headers.get('traceresponse')?.trim() ?? '')?.[1];

/** The SDK types the card's lists as always there, but leaves out what the card's JSON left out. */
const quantos = (lista: readonly unknown[] | undefined) => lista?.length ?? 0;

export async function conectar(aoTrocar: AoTrocar): Promise<Conexao> {
  let token = '';
  const comToken = (init?: RequestInit): RequestInit => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return { ...init, headers };
  };
  const pendentes = new Set<Promise<void>>();
  const fetchImpl: typeof fetch = async (entrada, init) => {
    const pedido = typeof init?.body === 'string' ? init.body : '';
    const comeco = performance.now();
    const resposta = await fetch(entrada, comToken(init));
    const traceId = traceIdDe(resposta);
    // Called once the answer is read whole: a stream's duration runs to its end, as the agent's span does.
    const registrar = (texto: string) => {
      if (!pedido) return;
      const ms = performance.now() - comeco;
      const cabecalho = cabecalhoDaTroca(lerJson(pedido));
      aoTrocar({ protocolo: 'A2A', ...cabecalho, ms, inicio: comeco, ...(traceId ? { traceId } : {}), pedido, resposta: texto });
    };
    if (!resposta.body || !resposta.headers.get('content-type')?.includes('text/event-stream')) {
      registrar(await resposta.clone().text());
      return resposta;
    }
    const [paraOSdk, paraOFio] = resposta.body.tee();
    // The panel's copy failing (the stream cut short) must not fail the step the SDK read whole.
    const registrado = new Response(paraOFio)
      .text()
      .then(registrar)
      .catch(() => undefined);
    pendentes.add(registrado);
    void registrado.finally(() => pendentes.delete(registrado));
    return new Response(paraOSdk, { status: resposta.status, statusText: resposta.statusText, headers: resposta.headers });
  };

  const card = await new DefaultAgentCardResolver({ fetchImpl }).resolve(location.origin);
  // The SDK types these options as a class it does not export: a plain object is what it reads.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
  const transporte = await new JsonRpcTransportFactory({ fetchImpl }).create(new URL('/a2a', location.origin).href, card);
  return {
    card,
    cliente: new Client(transporte, card),
    streaming: card.capabilities?.streaming === true,
    exigeToken: quantos(card.securityRequirements) > 0,
    usarToken: (novo) => (token = novo),
    assentado: () => Promise.all(pendentes).then(() => undefined),
    trocasMcp: async (taskId) => {
      const resposta = await fetch(`/console/tarefas/${encodeURIComponent(taskId)}/mcp`, comToken());
      if (!resposta.ok) return [];
      const { trocas } = (await resposta.json()) as { trocas?: Troca[] };
      return trocas ?? [];
    },
  };
}
