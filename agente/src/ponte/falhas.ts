/**
 * What an MCP failure means for a step, decided here and nowhere else.
 * `classificar` reads a failed attempt as one closed union (Falha): nothing
 * was done, the effect is uncertain, or the server answered. A table per
 * way the step's call is made maps each case to the Task's outcome
 * (Desfecho): a new Task's first call, and an answer in each MCP era
 * (docs/qualquer-servidor.md, "As duas eras"). The bridge (ponte.ts) only says where a
 * failure came from and looks the row up.
 */
import { ProtocolError, ProtocolErrorCode, SdkError, SdkHttpError, type CallToolResult } from '@modelcontextprotocol/client';
import { recusouCredenciais, type Era } from '../mcp/conexao.js';
import { ChamadaNaoEnviada, SeguimentoInterrompido } from '../mcp/naoEnviada.js';
import { textoDe } from './generico.js';
import { Recusa, RecusaAntesDaChamada, type Efeito, type Perfil } from './perfil.js';
import type { Desfecho } from './tipos.js';

/** What a failure is for a step. Every case names what the table needs to tell the client. */
export type Falha =
  /**
   * Nothing the call could do was done: it never reached the server, was
   * refused before it ran, or only reads (a read does nothing). The step
   * may be tried again; the Task's state is the only thing at stake.
   *  - `antes-da-chamada`: the profile's own check before sending (RecusaAntesDaChamada);
   *  - `credenciais`: the server refused the agent's credentials (HTTP 401);
   *  - `indisponivel`: an SDK or transport failure: the server not reached, an HTTP refusal, a read that timed out;
   *  - `inesperada`: anything else, a read's failure or a bug.
   */
  | {
      readonly tipo: 'nada-feito';
      readonly caso: 'antes-da-chamada' | 'credenciais' | 'indisponivel' | 'inesperada';
      readonly mensagem: string;
    }
  /**
   * The call may have had its effect and its outcome never arrived: the
   * step stays claimed and is replayed when the tool says replaying is
   * safe, and is never failed as if nothing happened.
   *  - `sem-resposta`: this attempt was sent and its answer lost (a timeout, a connection dropped, a 5xx, -32603);
   *  - `repeticao`: a replay failed, which proves nothing of the earlier attempt;
   *  - `cancelada`: the client cancelled the running call; what the tool did stays done.
   */
  | { readonly tipo: 'incerto'; readonly caso: 'sem-resposta' | 'repeticao' | 'cancelada'; readonly mensagem: string }
  /**
   * The server answered, and the answer is the outcome:
   *  - `erro`: a JSON-RPC error, with its code; `parametros-invalidos`
   *    (-32602) is the one a refused requestState gets;
   *  - `recusada`: an answer the agent refuses (outside the contract, a
   *    question it will not relay, too many rounds);
   *  - `isError`: the tool's own failure, with its text.
   */
  | { readonly tipo: 'resposta'; readonly caso: 'erro' | 'parametros-invalidos'; readonly codigo: number; readonly mensagem: string }
  | { readonly tipo: 'resposta'; readonly caso: 'recusada' | 'isError'; readonly mensagem: string };

/** What the classification needs of the attempt besides its error. */
export interface Tentativa {
  readonly efeito: Efeito;
  /** A replay of a step whose earlier attempt's outcome is unknown. */
  readonly repeticao: boolean;
  /** The client cancelled the running call. */
  readonly cancelada: boolean;
}

/**
 * A failure of the call itself, as `naChamada` marks it: only a request that
 * was sent can have had its effect. One before it (the profile reading the
 * policy) or after it (reading the answer) cannot.
 */
class FalhaNaChamada extends Error {}

/** Runs the call: what it throws is marked as thrown by the call. */
export async function naChamada<T>(chamar: () => Promise<T>): Promise<T> {
  try {
    return await chamar();
  } catch (erro) {
    throw new FalhaNaChamada(textoDoErro(erro), { cause: erro });
  }
}

/** The code MCP answers a refused requestState with (expired, most likely, on a continuation). */
const PARAMETROS_INVALIDOS: number = ProtocolErrorCode.InvalidParams;

/** Network failures that prove a request never reached the server: nothing it could do was done. */
const NAO_CHEGOU = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function causas(erro: unknown): unknown[] {
  const cadeia: unknown[] = [];
  for (let atual = erro; atual !== undefined && cadeia.length < 8; atual = atual instanceof Error ? atual.cause : undefined) {
    cadeia.push(atual);
    if (atual instanceof AggregateError) cadeia.push(...(atual.errors as unknown[]));
  }
  return cadeia;
}

/**
 * Whether a failed call may have had its effect. A call the connection
 * knows it never sent, a refused connection, an HTTP 4xx or a JSON-RPC
 * refusal (invalid params, unknown method...) never ran the tool. A
 * timeout, a connection lost after sending, a 5xx, and an internal error
 * (-32603: the server's database answered an error, maybe after a commit
 * whose acknowledgement was lost): it may have.
 */
function talvezFeita(erro: unknown): boolean {
  if (erro instanceof SeguimentoInterrompido) return true;
  if (erro instanceof ChamadaNaoEnviada) return false;
  if (erro instanceof ProtocolError) return erro.code === (ProtocolErrorCode.InternalError as number);
  if (erro instanceof SdkHttpError) return erro.status >= 500;
  return !causas(erro).some((causa) => {
    const codigo = typeof causa === 'object' && causa !== null && 'code' in causa ? causa.code : undefined;
    return typeof codigo === 'string' && NAO_CHEGOU.has(codigo);
  });
}

const textoDoErro = (erro: unknown) => (erro instanceof Error ? erro.message : String(erro));

/**
 * A failed attempt as a Falha. Read-only calls are never uncertain: a read
 * does nothing. A replay's failure that is not the server's final word
 * leaves the earlier attempt as uncertain as it was.
 */
export function classificar(lancado: unknown, tentativa: Tentativa): Falha {
  const doChamado = lancado instanceof FalhaNaChamada;
  const erro = doChamado ? lancado.cause : lancado;
  const mensagem = textoDoErro(erro);
  if (tentativa.cancelada) return { tipo: 'incerto', caso: 'cancelada', mensagem };
  if (tentativa.efeito !== 'nenhum') {
    if (doChamado && talvezFeita(erro) && !recusouCredenciais(erro)) return { tipo: 'incerto', caso: 'sem-resposta', mensagem };
    const final =
      (erro instanceof Recusa && !(erro instanceof RecusaAntesDaChamada)) ||
      (erro instanceof ProtocolError && erro.code === PARAMETROS_INVALIDOS);
    if (tentativa.repeticao && !final) return { tipo: 'incerto', caso: 'repeticao', mensagem };
  }
  if (erro instanceof RecusaAntesDaChamada) return { tipo: 'nada-feito', caso: 'antes-da-chamada', mensagem };
  if (erro instanceof Recusa) return { tipo: 'resposta', caso: 'recusada', mensagem };
  if (erro instanceof ProtocolError)
    return { tipo: 'resposta', caso: erro.code === PARAMETROS_INVALIDOS ? 'parametros-invalidos' : 'erro', codigo: erro.code, mensagem };
  if (recusouCredenciais(erro)) return { tipo: 'nada-feito', caso: 'credenciais', mensagem };
  if (erro instanceof SdkError || erro instanceof TypeError) return { tipo: 'nada-feito', caso: 'indisponivel', mensagem };
  return { tipo: 'nada-feito', caso: 'inesperada', mensagem };
}

/** A result the tool marked isError: a failure that is the server's answer; `semTexto` says it when the tool gave no text. */
export const falhaDoResultado = (resultado: CallToolResult, semTexto: string): Falha => ({
  tipo: 'resposta',
  caso: 'isError',
  mensagem: textoDe(resultado) || semTexto,
});

/** What a client's cancel tells a call cut short: the server was told, and what it did stays done. */
export const MENSAGEM_DE_CANCELADA =
  'Task cancelada a pedido do cliente: a chamada foi interrompida e o servidor MCP, avisado; o que a ferramenta ja tinha feito fica feito.';

/** What the rows need of the step. */
export interface Situacao {
  /** The server, as a message names it (ConexaoMcp.onde). */
  readonly onde: string;
  readonly efeito: Efeito;
  readonly palavras: Perfil['palavras'];
  /** What the profile tells when the server refused the agent's credentials. */
  readonly credenciais: string;
}

/** An answer's step besides: the question it answered, which a failure that did nothing may keep. */
export interface SituacaoDaResposta extends Situacao {
  /** The Task's question as it was, with why the answer was not relayed. */
  readonly manter: (erro: string) => Desfecho;
  /** The answer echoed a requestState (2026-07-28), so -32602 means the server refused that state. */
  readonly comEstado: boolean;
}

type Caso = Falha['caso'];
/** One row per case: the outcome of a step that failed so. */
export type Tabela<S extends Situacao> = { readonly [C in Caso]: (falha: Falha & { readonly caso: C }, situacao: S) => Desfecho };

const falhou = (mensagem: string): Desfecho => ({ estado: 'falhou', mensagem });

const recusado = ({ codigo, mensagem }: { codigo: number; mensagem: string }) =>
  `O servidor MCP recusou o pedido (${String(codigo)}: ${mensagem}).`;

/** A call whose outcome is unknown: replayed when the tool says that is safe (`incerto`), failed saying so when not. */
function semDesfecho({ mensagem }: Falha, { onde, efeito, palavras }: Situacao): Desfecho {
  const texto = `Sem desfecho do servidor MCP em ${onde} (${mensagem}): ${palavras.efeito}.`;
  if (efeito === 'repetivel')
    return {
      estado: 'incerto',
      mensagem: `${texto} A Task segue em andamento e o agente repete a mesma chamada, ${palavras.repeticao}, ate ter o desfecho.`,
    };
  return falhou(
    `${texto} A ferramenta nao se declara segura de repetir, entao o agente nao a repete: confira no servidor antes de pedir de novo.`,
  );
}

/** A new Task's first call, in either era: a failure ends the Task with a message the client can act on. */
export const PRIMEIRA_CHAMADA: Tabela<Situacao> = {
  'antes-da-chamada': ({ mensagem }) => falhou(mensagem),
  credenciais: (_, { credenciais }) => falhou(credenciais),
  indisponivel: ({ mensagem }, { onde }) => falhou(`Servidor MCP indisponivel em ${onde}: ${mensagem}`),
  inesperada: ({ mensagem }) => falhou(`Falha inesperada ao falar com o servidor MCP: ${mensagem}`),
  'sem-resposta': semDesfecho,
  repeticao: semDesfecho,
  cancelada: () => ({ estado: 'cancelada', mensagem: MENSAGEM_DE_CANCELADA }),
  erro: (falha) => falhou(recusado(falha)),
  'parametros-invalidos': (falha) => falhou(recusado(falha)),
  recusada: ({ mensagem }) => falhou(mensagem),
  isError: ({ mensagem }) => falhou(mensagem),
};

/** The answer was not relayed and nothing was done: the same question, to be answered again. */
const deNovo = (motivo: string, { manter, palavras }: SituacaoDaResposta) =>
  manter(`${motivo} ${palavras.nadaFeito}: envie a resposta de novo.`);

const naoConcluiu = ({ codigo, mensagem }: { codigo: number; mensagem: string }) =>
  `O servidor MCP nao concluiu a resposta (${String(codigo)}: ${mensagem}).`;

const inalcancavel = ({ mensagem }: Falha, { onde }: Situacao) => `O servidor MCP esta inalcancavel em ${onde} (${mensagem}).`;

/**
 * An answer's step, one strategy per era:
 *  - `moderna` (2026-07-28): the answer rides a new call (the requestState
 *    echoed), which any agent can make again at any time, so a failure
 *    that did nothing keeps the question; a refused state ends the Task,
 *    as answering again cannot help. A URL question (-32042, either era)
 *    continues the same way: its answer makes the call again;
 *  - `sessao` (2025 and older): the answer went to the call waiting in
 *    this process, and a failure ends that call with it: the Task ends as
 *    a first call's would.
 */
export const RESPOSTA: Readonly<Record<Era, Tabela<SituacaoDaResposta>>> = {
  moderna: {
    ...PRIMEIRA_CHAMADA,
    credenciais: (_, situacao) => deNovo(situacao.credenciais, situacao),
    indisponivel: (falha, situacao) => deNovo(inalcancavel(falha, situacao), situacao),
    inesperada: (falha, situacao) => deNovo(inalcancavel(falha, situacao), situacao),
    erro: (falha, situacao) => deNovo(naoConcluiu(falha), situacao),
    'parametros-invalidos': (falha, situacao) =>
      situacao.comEstado
        ? falhou(`${recusado(falha)} A pergunta pode ter expirado: envie o pedido de novo.`)
        : deNovo(naoConcluiu(falha), situacao),
  },
  sessao: PRIMEIRA_CHAMADA,
};

/** The row of `falha` in `tabela`: the step's outcome. */
export function desfechoDa<S extends Situacao>(falha: Falha, tabela: Tabela<S>, situacao: S): Desfecho {
  // Each row takes its own case; TypeScript cannot correlate the case looked up with the union it narrows.
  const regra = tabela[falha.caso] as (falha: Falha, situacao: S) => Desfecho;
  return regra(falha, situacao);
}
