/**
 * MCP requests written by hand, the wire exactly as the course's validator
 * writes it (envelope in `_meta`, Mcp-* headers mirroring the body): for the
 * tests that must send what no SDK client would, and for the bench.
 */
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { REVISAO_MCP } from 'compartilhado/contrato';
import * as z from 'zod';

export const CAPACIDADES_FORM = { elicitation: { form: {} } };

export interface Chamada {
  metodo: string;
  params?: Record<string, unknown>;
  /** Replaces the default envelope fields; `undefined` values remove them. */
  meta?: Record<string, unknown>;
  /** Replaces the default headers; `undefined` values remove them. */
  headers?: Record<string, string | undefined>;
}

const definidos = (pares: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(pares).filter((par): par is [string, string] => par[1] !== undefined));

export function pedidoMcp(chamada: Chamada, id: string | number): { headers: Record<string, string>; body: string } {
  const params = { ...chamada.params };
  const nome = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const meta = { [PROTOCOL_VERSION_META_KEY]: REVISAO_MCP, [CLIENT_CAPABILITIES_META_KEY]: CAPACIDADES_FORM, ...chamada.meta };
  const headers = definidos({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISAO_MCP,
    'mcp-method': chamada.metodo,
    'mcp-name': nome,
    ...chamada.headers,
  });
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: chamada.metodo, params: { ...params, _meta: meta } }) };
}

const RespostaComPergunta = z.object({ result: z.object({ inputRequests: z.record(z.string(), z.unknown()), requestState: z.string() }) });

/** The key of the single question and the state to echo, from the body of an input_required reply. */
export function chaveEEstado(corpo: string): { chave: string; requestState: string } {
  const { inputRequests, requestState } = RespostaComPergunta.parse(JSON.parse(corpo)).result;
  const [chave] = Object.keys(inputRequests);
  if (chave === undefined) throw new Error('input_required sem pergunta');
  return { chave, requestState };
}
