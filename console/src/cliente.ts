/**
 * The console's A2A client: the SDK's own, on this page's origin (the
 * card's URLs may name 127.0.0.1 where the page was opened as localhost),
 * with a fetch that hands each exchange to the Fio panel as it ends. A
 * stream is split in two: the SDK reads one copy as it arrives, the panel
 * gets the other once it is over.
 */
import { Client, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { cabecalhoDe, type Troca } from './fio.js';

export type AoTrocar = (troca: Troca) => void;

/** The fetch the SDK client uses, and a promise that every exchange it made so far has reached the panel. */
function fetchComFio(aoTrocar: AoTrocar): { fetchImpl: typeof fetch; assentado: () => Promise<void> } {
  const pendentes = new Set<Promise<void>>();
  const fetchImpl: typeof fetch = async (entrada, init) => {
    const pedido = typeof init?.body === 'string' ? init.body : '';
    const resposta = await fetch(entrada, init);
    const registrar = (texto: string) => {
      if (pedido) aoTrocar({ protocolo: 'A2A', ...cabecalhoDe(pedido), pedido, resposta: texto });
    };
    if (!resposta.body || !resposta.headers.get('content-type')?.includes('text/event-stream')) {
      registrar(await resposta.clone().text());
      return resposta;
    }
    const [paraOSdk, paraOFio] = resposta.body.tee();
    const registrado = new Response(paraOFio).text().then(registrar);
    pendentes.add(registrado);
    void registrado.finally(() => pendentes.delete(registrado));
    return new Response(paraOSdk, { status: resposta.status, statusText: resposta.statusText, headers: resposta.headers });
  };
  return { fetchImpl, assentado: () => Promise.all(pendentes).then(() => undefined) };
}

export interface Conexao {
  readonly cliente: Client;
  readonly streaming: boolean;
  /** Resolves once every A2A exchange so far is on the panel (a stream's copy is read to its end apart). */
  readonly assentado: () => Promise<void>;
}

/** The MCP exchanges the agent made for a Task (GET /console/tarefas/{id}/mcp), states already sealed by it. */
export async function trocasMcp(taskId: string): Promise<Troca[]> {
  const resposta = await fetch(`/console/tarefas/${encodeURIComponent(taskId)}/mcp`);
  if (!resposta.ok) return [];
  const { trocas } = (await resposta.json()) as { trocas?: Troca[] };
  return trocas ?? [];
}

export async function conectar(aoTrocar: AoTrocar): Promise<Conexao> {
  const { fetchImpl, assentado } = fetchComFio(aoTrocar);
  const card = await new DefaultAgentCardResolver({ fetchImpl }).resolve(location.origin);
  // The SDK types these options as a class it does not export: a plain object is what it reads.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
  const transporte = await new JsonRpcTransportFactory({ fetchImpl }).create(new URL('/a2a', location.origin).href, card);
  return { cliente: new Client(transporte, card), streaming: card.capabilities?.streaming === true, assentado };
}
