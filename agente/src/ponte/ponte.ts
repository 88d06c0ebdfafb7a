/**
 * THE bridge between MCP's multi-round-trip requests and A2A Tasks, in the
 * spec's order:
 *   1-2. a request opens a Task and becomes an MCP tools/call;
 *   3-4. input_required pauses the Task with the alternatives, and hands
 *        over the question to keep with that Task (see Pausas), whose
 *        requestState is never shown;
 *   5.   the client's answer repeats the original tools/call on a new
 *        JSON-RPC id, with inputResponses and the state echoed unchanged;
 *   6.   a booking completes the Task with its artifact; a refusal cancels it.
 * It translates protocol and decides no room rule. What it returns is the
 * step's outcome; the executor stores it with the Task, in one write.
 * A booking call whose outcome never arrived is no failure: it is
 * `incerto`, and is replayed with the same key until it gives one.
 */
import {
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkHttpError,
  type CallToolResult,
  type ElicitResult,
  type InputRequiredResult,
} from '@modelcontextprotocol/client';
import {
  Disponibilidade,
  FERRAMENTAS,
  META_IDEMPOTENCIA,
  ListaDeSalas,
  ResultadoDaReserva,
  URI_DA_POLITICA,
  versaoDaPolitica,
  type PedidoDeReserva,
} from 'compartilhado/contrato';
import { objeto } from 'compartilhado/log';
import * as z from 'zod';
import { BancoIndisponivel } from '../armazenamento/banco.js';
import { lerEscolha, lerPedido, SKILLS, type Consulta, type Entrada, type Escolha, type Ilegivel } from '../salas/intencao.js';
import type { Dono } from '../a2a/escopo.js';
import { credenciaisRecusadas, type ClienteMcp, type Continuacao, type ResultadoDaFerramenta } from '../mcp/cliente.js';
import type { Pausa } from '../armazenamento/pausas.js';
import { traceparentFilho, type Trace } from './trace.js';

/** The code MCP answers a refused requestState with (expired, most likely, on a continuation). */
const PARAMETROS_INVALIDOS: number = ProtocolErrorCode.InvalidParams;

/** The artifact `reserva`: the booking as the MCP server made it, plus the policy version read from the resource. */
export type ReservaFeita = PedidoDeReserva & { readonly reserva: string; readonly politica: string };

/** What a completed Task hands over: a named object, sent as JSON text and as a data part. */
export interface Artefato {
  readonly nome: 'reserva' | 'salas' | 'disponibilidade';
  readonly dados: Readonly<Record<string, unknown>>;
}

/** What a paused Task shows besides its text line: the options, the server's question, and why an answer was not taken. */
export interface Alternativas {
  readonly alternativas: readonly string[];
  readonly pergunta?: Readonly<Record<string, unknown>>;
  readonly erro?: string;
}

/** A question the MCP server asked, as the bridge keeps it until the answer. */
export type Pergunta = Omit<Pausa, 'criadaEm'>;

export type Desfecho =
  | { readonly estado: 'concluida'; readonly mensagem: string; readonly artefato: Artefato }
  /** `pergunta`: a new question to keep; without it, the question the Task had stays as it was. */
  | { readonly estado: 'pausada'; readonly mensagem: string; readonly dados: Alternativas; readonly pergunta?: Pergunta }
  | { readonly estado: 'cancelada' | 'falhou'; readonly mensagem: string }
  /** The booking call's outcome never arrived: the Task stays WORKING and the same call is replayed. */
  | { readonly estado: 'incerto'; readonly mensagem: string };

type Mcp = Pick<ClienteMcp, 'ferramentas' | 'lerTexto' | 'chamar' | 'url'>;

/** A Task paused with no pause stored (written by an agent before pauses were claimed instead of taken). */
export const MENSAGEM_SEM_PAUSA =
  'A pergunta desta Task nao esta mais guardada (o agente parou no meio da resposta): envie o pedido de novo.';

/** The pause text is compared byte for byte by clients: no prefix, no greeting. */
export const linhaDeAlternativas = (alternativas: readonly string[]) => `alternativas: ${alternativas.join(', ')}`;

const PERGUNTA_DESCONHECIDA = 'O servidor MCP fez uma pergunta que este agente nao sabe repassar.';

const falhou = (mensagem: string): Desfecho => ({ estado: 'falhou', mensagem });

function pausada(pausa: Pick<Alternativas, 'alternativas' | 'pergunta'>, erro?: string): Desfecho & { estado: 'pausada' } {
  const { alternativas, pergunta } = pausa;
  return {
    estado: 'pausada',
    mensagem: linhaDeAlternativas(alternativas),
    dados: { alternativas, ...(pergunta ? { pergunta } : {}), ...(erro ? { erro } : {}) },
  };
}

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
 * Whether a failed call may have had its effect. A refused connection, an
 * HTTP 4xx or a JSON-RPC refusal (invalid params, unknown method...) never
 * ran the tool. A timeout, a connection lost after sending, a 5xx, and an
 * internal error (-32603: the server's database answered an error, maybe
 * after a commit whose acknowledgement was lost): it may have.
 */
function talvezFeita(erro: unknown): boolean {
  if (erro instanceof ProtocolError) return erro.code === (ProtocolErrorCode.InternalError as number);
  if (erro instanceof SdkHttpError) return erro.status >= 500;
  return !causas(erro).some((causa) => {
    const codigo = typeof causa === 'object' && causa !== null && 'code' in causa ? causa.code : undefined;
    return typeof codigo === 'string' && NAO_CHEGOU.has(codigo);
  });
}

/** The server's own refusal, as a failed Task says it. */
const recusado = (erro: ProtocolError) => `O servidor MCP recusou o pedido (${String(erro.code)}: ${erro.message}).`;

const textoDoErro = (erro: unknown) => (erro instanceof Error ? erro.message : String(erro));

/** A booking call that may have booked: the step must be replayed, never failed. */
class SemDesfecho extends Error {}

/** The answer to relay for the client's choice, or why the choice is not one of the options. */
function respostaPara(escolha: Escolha | Ilegivel, alternativas: readonly string[]): { resposta: ElicitResult } | Ilegivel {
  if ('erro' in escolha) return escolha;
  if ('recusar' in escolha) return { resposta: { action: 'decline' } };
  if (!alternativas.includes(escolha.sala)) return { erro: `"${escolha.sala}" nao esta entre as alternativas.` };
  return { resposta: { action: 'accept', content: { sala: escolha.sala } } };
}

/** An expected failure whose message is meant for the client as it is. */
class Recusa extends Error {}

/**
 * A refusal found before the call was sent (the tool not listed, the
 * policy without its version): on a replay it says nothing of the earlier
 * attempt, which may have booked before the server changed.
 */
class RecusaAntesDaChamada extends Recusa {}

export class Ponte {
  constructor(private readonly mcp: Mcp) {}

  /**
   * Steps 1-4: a new Task's request, one tools/call after discovering the
   * tool. The booking carries the Task id as its idempotency key, so a
   * replay of this step (`repeticao`) returns the booking the first run made.
   */
  async atender(taskId: string, entrada: Entrada, trace: Trace, dono: Dono, repeticao = false): Promise<Desfecho> {
    const pedido = lerPedido(entrada);
    if ('erro' in pedido) return falhou(pedido.erro);
    const semDesfechoSeFalhar = repeticao && pedido.skill === SKILLS.reservar;
    return this.falando(async () => {
      switch (pedido.skill) {
        case SKILLS.listar:
          return listadas(await this.chamar(FERRAMENTAS.listar, {}, trace));
        case SKILLS.consultar:
          return consultada(pedido.consulta, await this.chamar(FERRAMENTAS.consultar, { ...pedido.consulta }, trace));
        case SKILLS.reservar: {
          // Read before the call: a booking the server made is never turned into a failure by a read after it.
          const politica = await this.versaoDaPolitica(trace);
          const argumentos = { ...pedido.reserva };
          const resultado = await this.chamar(FERRAMENTAS.reservar, argumentos, trace, taskId);
          return traduzir(argumentos, resultado, { trace, dono }, politica);
        }
      }
    }, semDesfechoSeFalhar);
  }

  /**
   * Step 5, before anything is claimed: the answer to relay for the
   * client's choice, or, for anything but one of the offered rooms or
   * recusar, the same question again (nothing is sent to MCP).
   */
  escolher(pausa: Pausa, entrada: Entrada, perguntaFeita?: Readonly<Record<string, unknown>>): { resposta: ElicitResult } | Desfecho {
    const escolhida = respostaPara(lerEscolha(entrada), pausa.alternativas);
    if (!('erro' in escolhida)) return escolhida;
    return pausada({ alternativas: pausa.alternativas, ...(perguntaFeita ? { pergunta: perguntaFeita } : {}) }, escolhida.erro);
  }

  /**
   * Step 5, the call: the original tools/call again, with the answer and
   * the state echoed. The server keys it by that state, so replaying it
   * never books twice. A failure that proves nothing was done leaves the
   * question as it was, to be answered again; on a replay (`repeticao`) it
   * proves nothing of the earlier attempt, so the outcome stays uncertain.
   */
  async responder(pausa: Pausa, resposta: ElicitResult, trace: Trace, repeticao = false): Promise<Desfecho> {
    const continuacao: Continuacao = { inputResponses: { [pausa.chave]: resposta }, requestState: pausa.requestState };
    const naoFeita = (motivo: string): Desfecho => {
      const mesma = pausada(pausa, `${motivo} Nada foi reservado: envie a resposta de novo.`);
      return { ...mesma, mensagem: `${mesma.mensagem}\n${mesma.dados.erro ?? ''}` };
    };
    return this.falando(
      async () => {
        const politica = await this.versaoDaPolitica(trace);
        const resultado = await this.comEfeito(() =>
          this.mcp.chamar(pausa.ferramenta, pausa.argumentos, traceparentFilho(trace), continuacao),
        );
        return traduzir(pausa.argumentos, resultado, { trace, ...(pausa.dono ? { dono: pausa.dono } : {}) }, politica);
      },
      repeticao,
      (erro) => {
        // The state was refused (expired, most likely): answering again cannot help.
        if (erro instanceof ProtocolError && erro.code === PARAMETROS_INVALIDOS)
          return falhou(`${recusado(erro)} A pergunta pode ter expirado: envie o pedido de novo.`);
        if (erro instanceof ProtocolError)
          return naoFeita(`O servidor MCP nao concluiu a resposta (${String(erro.code)}: ${erro.message}).`);
        const recusadas = credenciaisRecusadas(erro, this.mcp.url);
        if (recusadas) return naoFeita(recusadas);
        if (erro instanceof Recusa) return undefined;
        return naoFeita(`O servidor MCP esta inalcancavel em ${this.mcp.url.href} (${textoDoErro(erro)}).`);
      },
    );
  }

  /** Discovery, then the call: the tool list is the server's, not ours (cached while its ttlMs allows). */
  private async chamar(
    ferramenta: string,
    argumentos: Record<string, unknown>,
    trace: Trace,
    chave?: string,
  ): Promise<ResultadoDaFerramenta> {
    const ferramentas = await this.mcp.ferramentas(traceparentFilho(trace));
    if (!ferramentas.some((oferecida) => oferecida.name === ferramenta)) {
      throw new RecusaAntesDaChamada(`O servidor MCP nao oferece a ferramenta ${ferramenta}.`);
    }
    if (chave === undefined) return this.mcp.chamar(ferramenta, argumentos, traceparentFilho(trace));
    return this.comEfeito(() =>
      this.mcp.chamar(ferramenta, argumentos, traceparentFilho(trace), undefined, { [META_IDEMPOTENCIA]: chave }),
    );
  }

  /** A call that books: a failure that may have booked becomes SemDesfecho, never a failed Task. */
  private async comEfeito(chamada: () => Promise<ResultadoDaFerramenta>): Promise<ResultadoDaFerramenta> {
    try {
      return await chamada();
    } catch (erro) {
      if (talvezFeita(erro) && !credenciaisRecusadas(erro, this.mcp.url)) throw new SemDesfecho(textoDoErro(erro), { cause: erro });
      throw erro;
    }
  }

  /**
   * The version declared on the first line of politica://uso (`versao: ...`).
   * Cached while the server's ttlMs allows.
   */
  private async versaoDaPolitica(trace: Trace): Promise<string> {
    const versao = versaoDaPolitica(await this.mcp.lerTexto(URI_DA_POLITICA, traceparentFilho(trace)));
    if (!versao) throw new RecusaAntesDaChamada(`${URI_DA_POLITICA} nao declara a versao na primeira linha.`);
    return versao;
  }

  /**
   * MCP failures end the Task with a message the client can act on; the
   * agent keeps serving. `semDesfechoSeFalhar`: this replays a booking an
   * earlier attempt may have made, so a failure of this attempt (refused,
   * unreachable, the server's database down) says nothing of that one: the
   * outcome stays uncertain. Only a refused state, or our own refusal of
   * what the server answered, are final. `antes` may turn a failure into
   * another outcome (a question kept); undefined leaves it to the rules below.
   */
  private async falando(
    conversa: () => Promise<Desfecho>,
    semDesfechoSeFalhar = false,
    antes?: (erro: unknown) => Desfecho | undefined,
  ): Promise<Desfecho> {
    try {
      return await conversa();
    } catch (erro) {
      if (erro instanceof BancoIndisponivel) throw erro;
      const final =
        (erro instanceof Recusa && !(erro instanceof RecusaAntesDaChamada)) ||
        (erro instanceof ProtocolError && erro.code === PARAMETROS_INVALIDOS);
      if (erro instanceof SemDesfecho || (semDesfechoSeFalhar && !final))
        return {
          estado: 'incerto',
          mensagem: `Sem desfecho do servidor MCP em ${this.mcp.url.href} (${textoDoErro(erro)}): a reserva pode ter sido feita. A Task segue em andamento e o agente repete a mesma chamada, que o servidor nao executa duas vezes, ate ter o desfecho.`,
        };
      const outro = antes?.(erro);
      if (outro) return outro;
      if (erro instanceof Recusa) return falhou(erro.message);
      if (erro instanceof ProtocolError) return falhou(recusado(erro));
      const recusadas = credenciaisRecusadas(erro, this.mcp.url);
      if (recusadas) return falhou(recusadas);
      const mensagem = textoDoErro(erro);
      if (erro instanceof SdkError || erro instanceof TypeError)
        return falhou(`Servidor MCP indisponivel em ${this.mcp.url.href}: ${mensagem}`);
      return falhou(`Falha inesperada ao falar com o servidor MCP: ${mensagem}`);
    }
  }
}

/** Steps 4 and 6: reservar_sala's result becomes the Task's next state. */
function traduzir(
  argumentos: Record<string, unknown>,
  resultado: ResultadoDaFerramenta,
  origem: Pick<Pausa, 'trace' | 'dono'>,
  politica: string,
): Desfecho {
  if (isInputRequiredResult(resultado)) {
    const { pergunta, esquema } = lerPergunta(resultado, argumentos, origem);
    return { ...pausada({ alternativas: pergunta.alternativas, ...(esquema ? { pergunta: esquema } : {}) }), pergunta };
  }
  if (resultado.isError) return falhou(textoDe(resultado));
  const reserva = lerReserva(resultado.structuredContent, politica);
  if ('motivo' in reserva) return { estado: 'cancelada', mensagem: `Nenhuma sala reservada (${reserva.motivo}).` };
  return {
    estado: 'concluida',
    mensagem: `Reserva ${reserva.reserva} confirmada na ${reserva.sala}.`,
    artefato: { nome: 'reserva', dados: reserva },
  };
}

/**
 * A read-only tool's answer: its error text, or its structuredContent
 * checked against the contract and kept exactly as the server wrote it
 * (key order included: the artifact's text is that JSON).
 */
function lerConteudo<T>(
  ferramenta: string,
  esquema: z.ZodType<T>,
  resultado: ResultadoDaFerramenta,
): Desfecho | { dados: Record<string, unknown>; lido: T } {
  if (isInputRequiredResult(resultado)) throw new Recusa(PERGUNTA_DESCONHECIDA);
  if (resultado.isError) return falhou(textoDe(resultado));
  const dados = objeto(resultado.structuredContent);
  const lido = esquema.safeParse(dados);
  if (!lido.success || dados === undefined) {
    const porque = lido.success ? 'sem structuredContent' : z.prettifyError(lido.error);
    throw new Recusa(`O servidor MCP respondeu ${ferramenta} fora do contrato: ${porque}`);
  }
  return { dados, lido: lido.data };
}

function listadas(resultado: ResultadoDaFerramenta): Desfecho {
  const conteudo = lerConteudo(FERRAMENTAS.listar, ListaDeSalas, resultado);
  if ('estado' in conteudo) return conteudo;
  const { salas } = conteudo.lido;
  const mensagem = `${String(salas.length)} salas: ${salas.map((sala) => sala.id).join(', ')}.`;
  return { estado: 'concluida', mensagem, artefato: { nome: 'salas', dados: conteudo.dados } };
}

function consultada(consulta: Consulta, resultado: ResultadoDaFerramenta): Desfecho {
  const conteudo = lerConteudo(FERRAMENTAS.consultar, Disponibilidade, resultado);
  if ('estado' in conteudo) return conteudo;
  const { livre, conflitos } = conteudo.lido;
  const intervalo = `de ${consulta.inicio} a ${consulta.fim}`;
  const mensagem = livre
    ? `${consulta.sala} livre ${intervalo}.`
    : `${consulta.sala} ocupada ${intervalo}: ${conflitos.map((conflito) => conflito.id).join(', ')}.`;
  return { estado: 'concluida', mensagem, artefato: { nome: 'disponibilidade', dados: conteudo.dados } };
}

/**
 * The one form-mode question this agent knows how to relay: a choice of
 * `sala` among an enum (or a single const, or titled options). The SDK
 * hands input_required over unvalidated, so it is checked here.
 */
const OpcoesDeSala = z.union([
  z.object({ enum: z.array(z.string()).nonempty() }).transform((sala) => sala.enum),
  z.object({ oneOf: z.array(z.object({ const: z.string() })).nonempty() }).transform((sala) => sala.oneOf.map((opcao) => opcao.const)),
  z.object({ const: z.string() }).transform((sala) => [sala.const]),
]);
const PerguntaDeSala = z.object({
  method: z.literal('elicitation/create'),
  params: z.object({ mode: z.literal('form'), requestedSchema: z.object({ properties: z.object({ sala: OpcoesDeSala }) }) }),
});

/**
 * The question to keep until the answer, and the schema as the server wrote
 * it, for clients that render the question themselves. The schema goes to
 * the Task's status message only: the pause need not keep a second copy.
 */
function lerPergunta(
  resultado: InputRequiredResult,
  argumentos: Record<string, unknown>,
  origem: Pick<Pausa, 'trace' | 'dono'>,
): { pergunta: Pergunta; esquema?: Readonly<Record<string, unknown>> } {
  const entradas = Object.entries(resultado.inputRequests ?? {});
  const [entrada] = entradas;
  const pergunta = entradas.length === 1 ? PerguntaDeSala.safeParse(entrada?.[1]) : undefined;
  if (!entrada || !pergunta?.success || resultado.requestState === undefined) {
    throw new Recusa(PERGUNTA_DESCONHECIDA);
  }
  const alternativas = pergunta.data.params.requestedSchema.properties.sala;
  const esquema = objeto(objeto(objeto(entrada[1])?.params)?.requestedSchema);
  return {
    pergunta: {
      ferramenta: FERRAMENTAS.reservar,
      argumentos,
      chave: entrada[0],
      requestState: resultado.requestState,
      alternativas,
      ...origem,
    },
    ...(esquema ? { esquema } : {}),
  };
}

/** reservar_sala's structuredContent, checked against the contract: the booking made, or why none was. */
function lerReserva(conteudo: unknown, politica: string): ReservaFeita | { motivo: string } {
  const lido = ResultadoDaReserva.safeParse(conteudo);
  if (!lido.success) throw new Recusa(`O servidor MCP respondeu ${FERRAMENTAS.reservar} fora do contrato: ${z.prettifyError(lido.error)}`);
  const { reservado, reserva, sala, inicio, fim, responsavel, motivo } = lido.data;
  if (!reservado) return { motivo: motivo ?? 'recusado' };
  if (reserva === null || sala === null || inicio === null || fim === null || responsavel === null) {
    throw new Recusa(`O servidor MCP respondeu ${FERRAMENTAS.reservar} com uma reserva incompleta.`);
  }
  return { reserva, sala, inicio, fim, responsavel, politica };
}

function textoDe(resultado: CallToolResult): string {
  const texto = resultado.content
    .map((bloco) => (bloco.type === 'text' ? bloco.text : ''))
    .filter(Boolean)
    .join('\n');
  return texto || 'A ferramenta falhou sem mensagem.';
}
