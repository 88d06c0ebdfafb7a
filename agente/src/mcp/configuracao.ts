/**
 * AGENTE_MCP_CONFIG: the MCP servers the agent bridges, in the `mcpServers`
 * file other MCP clients read. Checked whole at start; any fault stops the
 * process with one line naming the file and the server. Header and env
 * values are credentials: no message ever quotes them.
 */
import { readFileSync } from 'node:fs';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { z } from 'zod';

/**
 * A server's name becomes part of its skills' ids (`<nome>.<tool>`), so it
 * is kept to what an id carries unescaped: letters, digits, `_` and `-`.
 * Upper and lower case are both allowed, but two names may not differ only
 * in case (they would read as the same skill prefix).
 */
const NOME = /^[a-z0-9_-]{1,64}$/i;
/** An HTTP header name (RFC 9110 token); its value may not break the header line. */
const NOME_DE_CABECALHO = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;
const VALOR_DE_CABECALHO = /^[^\r\n\0]*$/;

interface Comum {
  readonly nome: string;
  /** Only these tools become skills; absent, all of them. */
  readonly tools?: readonly string[];
}

export interface ServidorStdio extends Comum {
  readonly command: string;
  readonly args: readonly string[];
  /** Added over the SDK's minimal inherited environment (PATH, HOME, USER, ...), never over the agent's whole one. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface ServidorHttp extends Comum {
  /** Streamable HTTP endpoint. */
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

export type ServidorConfigurado = ServidorStdio | ServidorHttp;

export const ehHttp = (servidor: ServidorConfigurado): servidor is ServidorHttp => 'url' in servidor;

const tools = z
  .array(z.string().min(1))
  .min(1, { error: 'lista vazia: omita "tools" para oferecer todas as ferramentas' })
  .refine((nomes) => new Set(nomes).size === nomes.length, { error: 'nomes repetidos' })
  .optional();

const Stdio = z.strictObject({
  // Other clients write the transport's kind; only the one this shape means is accepted.
  type: z.literal('stdio', { error: 'esperado "stdio" para um servidor com "command"' }).optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[^=\0]+$/, { error: 'nome de variavel invalido' }), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  tools,
});

const Http = z.strictObject({
  type: z.enum(['http', 'streamable-http'], { error: 'esperado "http" ou "streamable-http" (SSE nao e suportado)' }).optional(),
  url: z
    .url({ protocol: /^https?$/, error: 'esperado uma URL http(s) absoluta' })
    .transform((url) => new URL(url))
    // Messages show a server's URL (mcp/descricao.ts), and fetch refuses one with userinfo, quoting it whole.
    .refine((url) => url.username === '' && url.password === '', {
      error: 'usuario ou senha na URL nao sao aceitos: ponha as credenciais em "headers"',
    }),
  headers: z
    .record(
      z.string().regex(NOME_DE_CABECALHO, { error: 'nome de cabecalho invalido' }),
      z.string().regex(VALOR_DE_CABECALHO, { error: 'valor com quebra de linha' }),
    )
    .default({}),
  tools,
});

const Arquivo = z.strictObject({ mcpServers: z.record(z.string(), z.unknown()) });

const TIPOS: Readonly<Record<string, string>> = { string: 'texto', array: 'lista', object: 'objeto', record: 'objeto' };

/** Every zod fault said in the file's terms, without the value that caused it (it may be a credential). */
const motivo: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type')
    return issue.input === undefined ? 'obrigatorio' : `esperado ${TIPOS[issue.expected] ?? issue.expected}`;
  if (issue.code === 'too_small') return 'vazio';
  return undefined;
};

function primeiroErro(erro: z.ZodError): string {
  const [issue] = erro.issues;
  if (!issue) return 'invalido';
  const caminho = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const campos = issue.keys.map((chave) => JSON.stringify(chave)).join(', ');
    return `${caminho ? `em "${caminho}": ` : ''}campo${issue.keys.length > 1 ? 's' : ''} desconhecido${issue.keys.length > 1 ? 's' : ''} ${campos}`;
  }
  // A record key's own fault comes wrapped: its message is the inner one.
  const mensagem = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return caminho ? `campo "${caminho}": ${mensagem}` : mensagem;
}

function servidor(nome: string, entrada: unknown): ServidorConfigurado | string {
  if (!NOME.test(nome)) return 'nome invalido: use so letras, digitos, "_" e "-" (ate 64)';
  if (typeof entrada !== 'object' || entrada === null || Array.isArray(entrada)) return 'esperado um objeto';
  const temComando = 'command' in entrada;
  const temUrl = 'url' in entrada;
  if (temComando && temUrl) return 'use "command" (stdio) ou "url" (HTTP), nao os dois';
  if (!temComando && !temUrl) return 'falta "command" (stdio) ou "url" (HTTP)';
  const lido = (temUrl ? Http : Stdio).safeParse(entrada, { error: motivo });
  if (!lido.success) return primeiroErro(lido.error);
  return { nome, ...lido.data };
}

/** The file's text, checked: the servers in the file's order. Pure, for tests. */
export function lerServidores(texto: string, arquivo: string): ServidorConfigurado[] {
  const falha = (mensagem: string) => new ConfiguracaoInvalida(`AGENTE_MCP_CONFIG=${arquivo}: ${mensagem}`);
  let bruto: unknown;
  try {
    bruto = JSON.parse(texto);
  } catch (erro) {
    // V8's message quotes the text around the fault, which may be a credential: only the position is kept.
    const posicao = /position (\d+)/.exec(erro instanceof Error ? erro.message : '')?.[1];
    throw falha(`nao e JSON valido${posicao === undefined ? '' : ` (posicao ${posicao})`}`);
  }
  const lido = Arquivo.safeParse(bruto, { error: motivo });
  if (!lido.success) throw falha(primeiroErro(lido.error));
  const nomes = Object.keys(lido.data.mcpServers);
  if (nomes.length === 0) throw falha('"mcpServers" vazio: configure pelo menos um servidor');
  const vistos = new Map<string, string>();
  return nomes.map((nome) => {
    const rotulo = `servidor ${JSON.stringify(nome)}`;
    const outro = vistos.get(nome.toLowerCase());
    if (outro !== undefined) throw falha(`${rotulo}: difere de "${outro}" so em maiusculas`);
    vistos.set(nome.toLowerCase(), nome);
    const resultado = servidor(nome, lido.data.mcpServers[nome]);
    if (typeof resultado === 'string') throw falha(`${rotulo}: ${resultado}`);
    return resultado;
  });
}

/** The file named by AGENTE_MCP_CONFIG, read and checked. */
export function lerArquivoDeServidores(arquivo: string): ServidorConfigurado[] {
  let texto: string;
  try {
    texto = readFileSync(arquivo, 'utf8');
  } catch (erro) {
    const codigo = erro instanceof Error && 'code' in erro ? String(erro.code) : 'erro de leitura';
    throw new ConfiguracaoInvalida(`AGENTE_MCP_CONFIG=${arquivo}: nao foi possivel ler o arquivo (${codigo})`);
  }
  return lerServidores(texto, arquivo);
}
