/**
 * What the console's Fio panel shows of an exchange, for the agent that
 * serves the MCP ones and the page that shows them with its own A2A ones:
 * the request's method, JSON-RPC id and traceparent, its duration and, with
 * telemetry on, the trace id to look up, and both bodies with
 * every `requestState` (the MCP server's sealed state, for the server's
 * eyes only) written as `<selado: N bytes>`. No Node import: the page is
 * built from this file too.
 */
import { camposDoPedidoMcp } from './log.js';

export interface Troca {
  readonly protocolo: 'A2A' | 'MCP';
  readonly metodo: string;
  /** The JSON-RPC id, as JSON ("3" and 3 differ). */
  readonly id: string;
  readonly traceparent?: string;
  /** The HTTP status of the answer, when the agent noted it. */
  readonly http?: number;
  /** From the request sent to its answer read whole (a stream's, to its end), as the side that made it measured. */
  readonly ms: number;
  /** With telemetry on, the trace the exchange ran in (32 hex): what to look up where the spans are exported. */
  readonly traceId?: string;
  /** The MCP server's name, for an agent with several (AGENTE_MCP_CONFIG); absent, the room agent's one. */
  readonly servidor?: string;
  /** `recebida`: a request the MCP server made to the agent (elicitation/create on a session); absent, the agent's own. */
  readonly sentido?: 'recebida';
  /** The request went out and no answer has come yet (a session's call waiting on the person's answer): `resposta` is empty. */
  readonly pendente?: true;
  /** When the request went and when its answer came, as places in one count of the agent's: what happened first, across exchanges. */
  readonly pedidoEm?: number;
  readonly respostaEm?: number;
  readonly pedido: string;
  readonly resposta: string;
}

/** The title fields of an exchange, from its request body (parsed JSON); what cannot be read is "-". */
export function cabecalhoDaTroca(corpo: unknown): Pick<Troca, 'metodo' | 'id' | 'traceparent'> {
  const { metodo, id, traceparent } = camposDoPedidoMcp(corpo);
  return { metodo: String(metodo), id: String(id), ...(typeof traceparent === 'string' && traceparent !== '-' ? { traceparent } : {}) };
}

export function selarEstados(valor: unknown): unknown {
  if (Array.isArray(valor)) return valor.map(selarEstados);
  if (typeof valor !== 'object' || valor === null) return valor;
  return Object.fromEntries(
    Object.entries(valor).map(([chave, dentro]) => [
      chave,
      chave === 'requestState' && typeof dentro === 'string'
        ? `<selado: ${String(new TextEncoder().encode(dentro).length)} bytes>`
        : selarEstados(dentro),
    ]),
  );
}

/** A JSON text with its states sealed. What is not JSON keeps no state's value, even one cut short or with escapes. */
export function selarTexto(texto: string, espacos?: number): string {
  try {
    return JSON.stringify(selarEstados(JSON.parse(texto)), null, espacos);
  } catch {
    return texto.replace(/"requestState"\s*:\s*"(?:\\.|[^"\\])*("|$)/g, '"requestState":"<selado>"');
  }
}
