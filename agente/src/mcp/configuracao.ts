/**
 * AGENTE_MCP_CONFIG: the MCP servers the agent bridges, in the `mcpServers`
 * file other MCP clients read (Claude Desktop, Cursor, Cline, ...), with an
 * optional `agentCard` that names the agent. Checked whole at start; any
 * fault stops the process with one line naming the file and the server.
 * Header and env values, and whatever `${VAR}` takes from the environment,
 * are credentials: no message ever quotes them.
 */
import { readFileSync } from 'node:fs';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { objeto } from 'compartilhado/log';
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

/**
 * What goes between `${` and `}`: a variable of the agent's environment,
 * `VAR`, or `VAR:-padrao` (the default when VAR is unset or empty, as the
 * shell reads it). `env:VAR` is how VS Code and Windsurf write the same.
 */
const REFERENCIA = /^(?:env:)?([a-z_][a-z0-9_]*)(?::-(.*))?$/is;
const REFERENCIA_MAL_FORMADA = 'referencia mal formada: escreva ${NOME} ou ${NOME:-padrao}';

/**
 * Fields other clients write that change nothing here, accepted with one
 * warning line: whether a person approves each call (the agent asks no one:
 * its A2A caller decides), a per-server wait (AGENTE_MCP_TIMEOUT_SECONDS is
 * the one every request gets, and the one a step's claim is sized for),
 * and labels for a client's own screens.
 */
const IGNORADOS = ['autoApprove', 'alwaysAllow', 'timeout', 'description', 'title', 'name'] as const;

/** `type` (or `transport`): the transport's kind as each client spells it, by the shape it goes with. */
const TIPOS_STDIO: Readonly<Record<string, 'stdio'>> = { stdio: 'stdio' };
const TIPOS_HTTP: Readonly<Record<string, TransporteHttp>> = {
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  // Cursor and Cline write it so.
  streamableHttp: 'streamable-http',
  sse: 'sse',
};

interface Comum {
  readonly nome: string;
  /** Only these tools become skills; absent, all of them. */
  readonly tools?: readonly string[];
  /**
   * What `${VAR}` took from the environment, by variable (never a default
   * written in the file): credentials, each replaced by its reference in
   * every text that leaves mcp/ (descricao.ts). Absent when none was read.
   */
  readonly variaveis?: Readonly<Record<string, string>>;
}

export interface ServidorStdio extends Comum {
  readonly command: string;
  readonly args: readonly string[];
  /** Added over the SDK's minimal inherited environment (PATH, HOME, USER, ...), never over the agent's whole one. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The command's file name as the file writes it, when that names a variable: what messages show instead. */
  readonly comandoComoEscrito?: string;
}

/** Streamable HTTP, or the 2024-11-05 HTTP+SSE transport (a GET stream and POSTs to the endpoint it names). */
export type TransporteHttp = 'streamable-http' | 'sse';

export interface ServidorHttp extends Comum {
  readonly url: URL;
  readonly transporte: TransporteHttp;
  readonly headers: Readonly<Record<string, string>>;
  /** The URL's origin and path as the file writes them, when they name a variable: what messages show instead. */
  readonly urlComoEscrita?: string;
}

export type ServidorConfigurado = ServidorStdio | ServidorHttp;

export const ehHttp = (servidor: ServidorConfigurado): servidor is ServidorHttp => 'url' in servidor;

// A missing one is left to motivo ("obrigatorio"), like any other missing field.
const urlHttp = z.url({
  protocol: /^https?$/,
  error: (issue) => (issue.input === undefined ? undefined : 'esperado uma URL http(s) absoluta'),
});

const tools = z
  .array(z.string().min(1))
  .min(1, { error: 'lista vazia: omita "tools" para oferecer todas as ferramentas' })
  .refine((nomes) => new Set(nomes).size === nomes.length, { error: 'nomes repetidos' })
  .optional();

const Stdio = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[^=\0]+$/, { error: 'nome de variavel invalido' }), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  tools,
});

const Http = z.strictObject({
  url: urlHttp
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

/** `agentCard`: what the file says of the agent, over the generic card's defaults (A2A AgentCard fields, as its JSON spells them). */
const CardDoArquivo = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().min(1).optional(),
  version: z.string().min(1).optional(),
  provider: z.strictObject({ organization: z.string().min(1), url: urlHttp }).optional(),
  documentationUrl: urlHttp.optional(),
  iconUrl: urlHttp.optional(),
});
export type CardDoArquivo = z.infer<typeof CardDoArquivo>;

const Arquivo = z.strictObject({ mcpServers: z.record(z.string(), z.unknown()), agentCard: CardDoArquivo.default({}) });

/** A line said at start about one server of the file (mcp! servidor=... aviso=...). */
export interface Aviso {
  readonly servidor: string;
  readonly aviso: string;
}

export interface ArquivoMcp {
  /** The servers to bridge, in the file's order, less the disabled ones. */
  readonly servidores: readonly ServidorConfigurado[];
  /** Empty when the file has no `agentCard`: the card is then the generic one, as it always was. */
  readonly card: CardDoArquivo;
  readonly avisos: readonly Aviso[];
}

const TIPOS: Readonly<Record<string, string>> = { string: 'texto', array: 'lista', object: 'objeto', record: 'objeto' };

/** Every zod fault said in the file's terms, without the value that caused it (it may be a credential). */
const motivo: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type')
    return issue.input === undefined ? 'obrigatorio' : `esperado ${TIPOS[issue.expected] ?? issue.expected}`;
  if (issue.code === 'too_small') return 'vazio';
  return undefined;
};

const emCampo = (caminho: string, mensagem: string) => (caminho ? `campo "${caminho}": ${mensagem}` : mensagem);

function primeiroErro(erro: z.ZodError): string {
  const [issue] = erro.issues;
  if (!issue) return 'invalido';
  const caminho = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const campos = issue.keys.map((chave) => JSON.stringify(chave)).join(', ');
    return `${caminho ? `em "${caminho}": ` : ''}campo${issue.keys.length > 1 ? 's' : ''} desconhecido${issue.keys.length > 1 ? 's' : ''} ${campos}`;
  }
  // A record key's own fault comes wrapped: its message is the inner one.
  return emCampo(caminho, issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message);
}

/** A piece of a text as the file writes it: literal, or a `${...}` reference (`texto` then as written, braces included). */
interface Trecho {
  readonly texto: string;
  readonly variavel?: string;
  readonly padrao?: string;
}

/** A text cut into literal runs and references; undefined when a `${` is not a reference (no `}`, or not a variable's name). */
function trechos(modelo: string): Trecho[] | undefined {
  const lidos: Trecho[] = [];
  let resto = modelo;
  for (let inicio = resto.indexOf('${'); inicio !== -1; inicio = resto.indexOf('${')) {
    const fim = resto.indexOf('}', inicio);
    const referencia = fim === -1 ? null : REFERENCIA.exec(resto.slice(inicio + 2, fim));
    // A default is written text: a `${` in it would read as a reference nobody expands.
    if (!referencia?.[1] || referencia[2]?.includes('${')) return undefined;
    if (inicio > 0) lidos.push({ texto: resto.slice(0, inicio) });
    lidos.push({
      texto: resto.slice(inicio, fim + 1),
      variavel: referencia[1],
      ...(referencia[2] === undefined ? {} : { padrao: referencia[2] }),
    });
    resto = resto.slice(fim + 1);
  }
  if (resto) lidos.push({ texto: resto });
  return lidos;
}

/**
 * The pieces up to the first literal `corte` (exclusive), or from the last
 * one (exclusive) when `deTras`, joined as written; undefined when no
 * reference is among them (the text shown is then the value's own).
 */
function comoEscrito(lidos: readonly Trecho[], corte: RegExp, deTras: boolean): string | undefined {
  const ordem = deTras ? [...lidos].reverse() : lidos;
  const tomados: Trecho[] = [];
  for (const trecho of ordem) {
    const posicoes = trecho.variavel === undefined ? [...trecho.texto.matchAll(corte)].map(({ index }) => index) : [];
    if (posicoes.length === 0) {
      tomados.push(trecho);
      continue;
    }
    const posicao = deTras ? (posicoes.at(-1) ?? 0) + 1 : (posicoes[0] ?? 0);
    tomados.push({ texto: deTras ? trecho.texto.slice(posicao) : trecho.texto.slice(0, posicao) });
    break;
  }
  if (!tomados.some((trecho) => trecho.variavel !== undefined)) return undefined;
  return (deTras ? tomados.reverse() : tomados).map(({ texto }) => texto).join('');
}

type Ambiente = Readonly<Record<string, string | undefined>>;

/** A reference that cannot be expanded: the message names the field and the variable, never a value. */
class ReferenciaRecusada extends Error {}

/** Expands an entry's references, field by field, recording what came from the environment. */
class Expansao {
  readonly variaveis = new Map<string, string>();

  constructor(private readonly ambiente: Ambiente) {}

  /** One field's text expanded; `caminho` names it in a fault. Anything but a string is left for the shape check to refuse. */
  valor(valor: unknown, caminho: string): unknown {
    if (typeof valor !== 'string' || !valor.includes('${')) return valor;
    const lidos = trechos(valor);
    if (!lidos) throw new ReferenciaRecusada(emCampo(caminho, REFERENCIA_MAL_FORMADA));
    return lidos
      .map(({ texto, variavel, padrao }) => {
        if (variavel === undefined) return texto;
        const doAmbiente = this.ambiente[variavel];
        if (padrao !== undefined && !doAmbiente) return padrao;
        if (doAmbiente === undefined)
          throw new ReferenciaRecusada(
            emCampo(caminho, `a variavel de ambiente ${variavel} nao esta definida; defina-a ou de um padrao: \${${variavel}:-padrao}`),
          );
        if (doAmbiente) this.variaveis.set(variavel, doAmbiente);
        return doAmbiente;
      })
      .join('');
  }

  lista(valor: unknown, caminho: string): unknown {
    return Array.isArray(valor) ? valor.map((item, indice) => this.valor(item, `${caminho}.${String(indice)}`)) : valor;
  }

  /** An object's values (header values, env values); its keys are names, never expanded. */
  valores(valor: unknown, caminho: string): unknown {
    const pares = objeto(valor);
    if (!pares) return valor;
    return Object.fromEntries(Object.entries(pares).map(([chave, item]) => [chave, this.valor(item, `${caminho}.${chave}`)]));
  }
}

/** `type` and `transport` say the same thing: either, both alike, or neither (the shape then says it). */
function tipoDe(
  entrada: Record<string, unknown>,
  temUrl: boolean,
): { readonly tipo: TransporteHttp | 'stdio' } | { readonly erro: string } {
  const [campo, outro] = (['type', 'transport'] as const).filter((nome) => entrada[nome] !== undefined);
  if (campo === undefined) return { tipo: temUrl ? 'streamable-http' : 'stdio' };
  if (outro !== undefined && entrada[campo] !== entrada[outro]) return { erro: '"type" e "transport" dizem transportes diferentes' };
  const valor = entrada[campo];
  const tipo = typeof valor === 'string' ? (temUrl ? TIPOS_HTTP : TIPOS_STDIO)[valor] : undefined;
  if (tipo !== undefined) return { tipo };
  return {
    erro: emCampo(
      campo,
      temUrl ? 'esperado "http", "streamable-http" ou "sse" para um servidor com "url"' : 'esperado "stdio" para um servidor com "command"',
    ),
  };
}

type Lido = { readonly servidor: ServidorConfigurado; readonly ignorados: readonly string[] } | { readonly desativado: true };

/** Fields read before the shape is checked, or set aside: what the shape sees is the rest. */
const FORA_DA_FORMA = new Set<string>(['disabled', 'type', 'transport', ...IGNORADOS]);

function servidor(nome: string, valor: unknown, ambiente: Ambiente): Lido | string {
  const entrada = objeto(valor);
  if (!entrada) return 'esperado um objeto';
  const { disabled } = entrada;
  if (disabled !== undefined && typeof disabled !== 'boolean') return emCampo('disabled', 'esperado true ou false');
  // Skipped whole, as the clients that write it do: a server switched off need not be valid.
  if (disabled) return { desativado: true };
  if (!NOME.test(nome)) return 'nome invalido: use so letras, digitos, "_" e "-" (ate 64)';
  const temComando = 'command' in entrada;
  const temUrl = 'url' in entrada;
  if (temComando && temUrl) return 'use "command" (stdio) ou "url" (HTTP), nao os dois';
  if (!temComando && !temUrl) return 'falta "command" (stdio) ou "url" (HTTP)';
  const tipo = tipoDe(entrada, temUrl);
  if ('erro' in tipo) return tipo.erro;
  const ignorados = IGNORADOS.filter((campo) => campo in entrada);
  const resto = Object.fromEntries(Object.entries(entrada).filter(([campo]) => !FORA_DA_FORMA.has(campo)));

  const expansao = new Expansao(ambiente);
  let expandida: Record<string, unknown>;
  try {
    expandida = {
      ...resto,
      ...(temUrl
        ? { url: expansao.valor(resto.url, 'url'), ...('headers' in resto ? { headers: expansao.valores(resto.headers, 'headers') } : {}) }
        : {
            command: expansao.valor(resto.command, 'command'),
            ...('args' in resto ? { args: expansao.lista(resto.args, 'args') } : {}),
            ...('env' in resto ? { env: expansao.valores(resto.env, 'env') } : {}),
            ...('cwd' in resto ? { cwd: expansao.valor(resto.cwd, 'cwd') } : {}),
          }),
    };
  } catch (erro) {
    if (erro instanceof ReferenciaRecusada) return erro.message;
    throw erro;
  }
  const variaveis = expansao.variaveis.size > 0 ? { variaveis: Object.fromEntries(expansao.variaveis) } : {};
  const escrito = (campo: unknown, corte: RegExp, deTras: boolean) => {
    const lidos = typeof campo === 'string' && campo.includes('${') ? trechos(campo) : undefined;
    return lidos && comoEscrito(lidos, corte, deTras);
  };

  if (temUrl) {
    const lido = Http.safeParse(expandida, { error: motivo });
    if (!lido.success) return primeiroErro(lido.error);
    const urlComoEscrita = escrito(resto.url, /[?#]/g, false);
    return {
      servidor: {
        nome,
        ...lido.data,
        transporte: tipo.tipo === 'sse' ? 'sse' : 'streamable-http',
        ...variaveis,
        ...(urlComoEscrita ? { urlComoEscrita } : {}),
      },
      ignorados,
    };
  }
  const lido = Stdio.safeParse(expandida, { error: motivo });
  if (!lido.success) return primeiroErro(lido.error);
  const comandoComoEscrito = escrito(resto.command, /\//g, true);
  return { servidor: { nome, ...lido.data, ...variaveis, ...(comandoComoEscrito ? { comandoComoEscrito } : {}) }, ignorados };
}

function avisoDeIgnorados(ignorados: readonly string[]): string {
  const varios = ignorados.length > 1;
  const prazo = ignorados.includes('timeout') ? '; o prazo de cada pedido e AGENTE_MCP_TIMEOUT_SECONDS' : '';
  return `campo${varios ? 's' : ''} ignorado${varios ? 's' : ''} (nada aqui ${varios ? 'os' : 'o'} usa): ${ignorados.join(', ')}${prazo}`;
}

/**
 * The file's text, checked: its servers, its agentCard and the warnings to
 * say at start. `ambiente` is what `${VAR}` reads. Pure, for tests.
 */
export function lerConfiguracaoMcp(texto: string, arquivo: string, ambiente: Ambiente = process.env): ArquivoMcp {
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
  const { mcpServers, agentCard } = lido.data;
  const nomes = Object.keys(mcpServers);
  if (nomes.length === 0) throw falha('"mcpServers" vazio: configure pelo menos um servidor');
  const vistos = new Map<string, string>();
  const servidores: ServidorConfigurado[] = [];
  const avisos: Aviso[] = [];
  for (const nome of nomes) {
    const rotulo = `servidor ${JSON.stringify(nome)}`;
    const resultado = servidor(nome, mcpServers[nome], ambiente);
    if (typeof resultado === 'string') throw falha(`${rotulo}: ${resultado}`);
    if ('desativado' in resultado) {
      avisos.push({ servidor: nome, aviso: 'desativado (disabled: true), nao sera conectado' });
      continue;
    }
    const outro = vistos.get(nome.toLowerCase());
    if (outro !== undefined) throw falha(`${rotulo}: difere de "${outro}" so em maiusculas`);
    vistos.set(nome.toLowerCase(), nome);
    const { ignorados } = resultado;
    if (ignorados.length > 0) avisos.push({ servidor: nome, aviso: avisoDeIgnorados(ignorados) });
    servidores.push(resultado.servidor);
  }
  if (servidores.length === 0) throw falha('todos os servidores estao desativados ("disabled": true): ative pelo menos um');
  return { servidores, card: agentCard, avisos };
}

/** The servers of the file's text, as lerConfiguracaoMcp reads them. */
export const lerServidores = (texto: string, arquivo: string, ambiente: Ambiente = process.env): readonly ServidorConfigurado[] =>
  lerConfiguracaoMcp(texto, arquivo, ambiente).servidores;

/** The file named by AGENTE_MCP_CONFIG, read and checked. */
export function lerArquivoMcp(arquivo: string, ambiente: Ambiente = process.env): ArquivoMcp {
  let texto: string;
  try {
    texto = readFileSync(arquivo, 'utf8');
  } catch (erro) {
    const codigo = erro instanceof Error && 'code' in erro ? String(erro.code) : 'erro de leitura';
    throw new ConfiguracaoInvalida(`AGENTE_MCP_CONFIG=${arquivo}: nao foi possivel ler o arquivo (${codigo})`);
  }
  return lerConfiguracaoMcp(texto, arquivo, ambiente);
}
