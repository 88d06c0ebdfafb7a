/**
 * A raw MCP-over-HTTP caller for tests: the wire exactly as the validator
 * writes it. Replies are read through small schemas; structured results
 * through the contract's own (compartilhado/contrato).
 */
import { conforme } from 'compartilhado/contrato';
import * as z from 'zod';
import { pedidoMcp, type Chamada as Pedido } from '../../scripts/mcp-cru.js';

export interface Chamada extends Pedido {
  id?: string | number;
  /** A body sent as it is, instead of the one the call describes. */
  corpo?: string;
}

const CorpoMcp = z.looseObject({
  id: z.unknown().optional(),
  result: z
    .looseObject({
      resultType: z.string().optional(),
      content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
      structuredContent: z.record(z.string(), z.unknown()).optional(),
      isError: z.boolean().optional(),
      inputRequests: z.record(z.string(), z.unknown()).optional(),
      requestState: z.string().optional(),
    })
    .optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.record(z.string(), z.unknown()).optional() }).optional(),
});

export interface Resposta {
  status: number;
  /** The JSON-RPC body; undefined when the body is not a JSON object. */
  corpo: z.infer<typeof CorpoMcp> | undefined;
  texto: string;
  headers: Headers;
}

let proximoId = 1;

export async function chamar(url: string, chamada: Chamada): Promise<Resposta> {
  const { headers, body } = pedidoMcp(chamada, chamada.id ?? proximoId++);
  const resposta = await fetch(url, { method: 'POST', headers, body: chamada.corpo ?? body });
  const texto = await resposta.text();
  let corpo: Resposta['corpo'];
  try {
    corpo = CorpoMcp.parse(JSON.parse(texto));
  } catch {
    corpo = undefined;
  }
  return { status: resposta.status, corpo, texto, headers: resposta.headers };
}

export const chamarFerramenta = (url: string, name: string, args: Record<string, unknown>, extra: Omit<Chamada, 'metodo'> = {}) =>
  chamar(url, { ...extra, metodo: 'tools/call', params: { name, arguments: args, ...extra.params } });

/** Joined text blocks of a tool result. */
export const textoDe = (resposta: Resposta): string => (resposta.corpo?.result?.content ?? []).map((bloco) => bloco.text ?? '').join(' ');

/** A result's structuredContent, read through the tool's contract schema. */
export const estruturado = <T>(resposta: Resposta, esquema: z.ZodType<T>): T =>
  conforme(esquema, resposta.corpo?.result?.structuredContent, 'o structuredContent');

const PerguntaDeSala = z.looseObject({
  method: z.literal('elicitation/create'),
  params: z.looseObject({
    mode: z.string().optional(),
    message: z.string(),
    requestedSchema: z.looseObject({
      properties: z.looseObject({
        sala: z.looseObject({ type: z.string(), enum: z.array(z.string()).optional(), const: z.string().optional() }),
      }),
      required: z.array(z.string()).optional(),
    }),
  }),
});

/** The single question of an input_required result: its key, the offered rooms in order, the state to echo. */
export function pergunta(resposta: Resposta) {
  const resultado = resposta.corpo?.result;
  const entradas = Object.entries(resultado?.inputRequests ?? {});
  const [entrada] = entradas;
  if (entradas.length !== 1 || !entrada || resultado?.requestState === undefined)
    throw new Error(`sem uma pergunta: ${resposta.texto.slice(0, 300)}`);
  const [chave, pedido] = entrada;
  const elicitacao = conforme(PerguntaDeSala, pedido, 'a pergunta do input_required');
  const sala = elicitacao.params.requestedSchema.properties.sala;
  return {
    chave,
    elicitacao,
    alternativas: sala.enum ?? (sala.const === undefined ? [] : [sala.const]),
    requestState: resultado.requestState,
  };
}
