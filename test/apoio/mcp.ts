/** A raw MCP-over-HTTP caller for tests: the wire exactly as the validator writes it. */
export const VERSAO = '2026-07-28';
export const CAPACIDADES_FORM = { elicitation: { form: {} } };

export interface Chamada {
  metodo: string;
  params?: Record<string, unknown>;
  id?: string | number;
  /** Replaces the default envelope fields; `undefined` values remove them. */
  meta?: Record<string, unknown>;
  headers?: Record<string, string | undefined>;
  corpo?: string;
}

export interface Resposta {
  status: number;
  corpo: any;
  texto: string;
  headers: Headers;
}

let proximoId = 1;

export async function chamar(url: string, chamada: Chamada): Promise<Resposta> {
  const params = { ...chamada.params };
  const nome = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': VERSAO,
    'io.modelcontextprotocol/clientCapabilities': CAPACIDADES_FORM,
    ...chamada.meta,
  };
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSAO,
    'mcp-method': chamada.metodo,
    ...(nome ? { 'mcp-name': nome } : {}),
    ...chamada.headers,
  };
  const corpo =
    chamada.corpo ??
    JSON.stringify({ jsonrpc: '2.0', id: chamada.id ?? proximoId++, method: chamada.metodo, params: { ...params, _meta: meta } });
  const resposta = await fetch(url, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(headers).filter((par): par is [string, string] => par[1] !== undefined)),
    body: corpo,
  });
  const texto = await resposta.text();
  let json: unknown;
  try {
    json = JSON.parse(texto);
  } catch {
    json = undefined;
  }
  return { status: resposta.status, corpo: json, texto, headers: resposta.headers };
}

export const chamarFerramenta = (url: string, name: string, args: Record<string, unknown>, extra: Omit<Chamada, 'metodo'> = {}) =>
  chamar(url, { ...extra, metodo: 'tools/call', params: { name, arguments: args, ...extra.params } });

/** Joined text blocks of a tool result. */
export const textoDe = (resposta: Resposta): string =>
  (resposta.corpo?.result?.content ?? []).map((bloco: { text?: string }) => bloco.text ?? '').join(' ');
