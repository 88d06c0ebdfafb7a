/**
 * THE bridge between MCP's multi-round-trip requests and A2A Tasks, in the
 * spec's order:
 *   1-2. a request opens a Task and becomes an MCP tools/call;
 *   3-4. input_required pauses the Task with the alternatives, and the
 *        requestState is kept with that Task (see Pausas), never shown;
 *   5.   the client's answer repeats the original tools/call on a new
 *        JSON-RPC id, with inputResponses and the state echoed unchanged;
 *   6.   a booking completes the Task with its artifact; a refusal cancels it.
 * It translates protocol and decides no room rule.
 */
import {
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  type CallToolResult,
  type ElicitResult,
  type InputRequiredResult,
} from '@modelcontextprotocol/client';
import {
  Disponibilidade,
  FERRAMENTAS,
  ListaDeSalas,
  ResultadoDaReserva,
  URI_DA_POLITICA,
  versaoDaPolitica,
  type PedidoDeReserva,
} from 'compartilhado/contrato';
import { objeto } from 'compartilhado/log';
import * as z from 'zod';
import { BancoIndisponivel } from './banco.js';
import { lerEscolha, lerPedido, SKILLS, type Consulta, type Entrada, type Escolha, type Ilegivel } from './intencao.js';
import { DONO_ANONIMO, type Dono } from './escopo.js';
import { MENSAGEM_DE_PAUSA_EXPIRADA } from './limites.js';
import { credenciaisRecusadas, type ClienteMcp, type ResultadoDaFerramenta } from './mcp-cliente.js';
import type { Pausa } from './pausas.js';
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

export type Desfecho =
  | { readonly estado: 'concluida'; readonly mensagem: string; readonly artefato: Artefato }
  | { readonly estado: 'pausada'; readonly mensagem: string; readonly dados: Alternativas }
  | { readonly estado: 'cancelada' | 'falhou'; readonly mensagem: string };

type Mcp = Pick<ClienteMcp, 'ferramentas' | 'lerTexto' | 'chamar' | 'url'>;

/** A question the MCP server asked, as the bridge keeps it until the answer. */
export type Pergunta = Omit<Pausa, 'criadaEm'>;

/** Where pauses wait, dated and capped by one clock (see limites.ts). */
export interface PausasDaPonte {
  /** Keeps a new question for the Task, dated now. */
  abrir(taskId: string, pergunta: Pergunta): Promise<void>;
  /** Takes the Task's pause (of two callers, only one gets it), saying whether it outlived its requestState. */
  tomar(taskId: string): Promise<{ pausa: Pausa; expirada: boolean } | undefined>;
  /** Puts a taken pause back unchanged, in the place it had in age order. */
  devolver(taskId: string, pausa: Pausa): Promise<void>;
  apagar(taskId: string): Promise<void>;
}

/** A Task paused with no pause stored: an agent stopped after taking it and before answering. */
export const MENSAGEM_SEM_PAUSA =
  'A pergunta desta Task nao esta mais guardada (o agente parou no meio da resposta): envie o pedido de novo.';

/** The pause text is compared byte for byte by clients: no prefix, no greeting. */
export const linhaDeAlternativas = (alternativas: readonly string[]) => `alternativas: ${alternativas.join(', ')}`;

const PERGUNTA_DESCONHECIDA = 'O servidor MCP fez uma pergunta que este agente nao sabe repassar.';

const falhou = (mensagem: string): Desfecho => ({ estado: 'falhou', mensagem });

function pausada(pausa: Pick<Alternativas, 'alternativas' | 'pergunta'>, erro?: string): Desfecho {
  const { alternativas, pergunta } = pausa;
  return {
    estado: 'pausada',
    mensagem: linhaDeAlternativas(alternativas),
    dados: { alternativas, ...(pergunta ? { pergunta } : {}), ...(erro ? { erro } : {}) },
  };
}

/** The answer to relay for the client's choice, or why the choice is not one of the options. */
function respostaPara(escolha: Escolha | Ilegivel, alternativas: readonly string[]): { resposta: ElicitResult } | Ilegivel {
  if ('erro' in escolha) return escolha;
  if ('recusar' in escolha) return { resposta: { action: 'decline' } };
  if (!alternativas.includes(escolha.sala)) return { erro: `"${escolha.sala}" nao esta entre as alternativas.` };
  return { resposta: { action: 'accept', content: { sala: escolha.sala } } };
}

/** An expected failure whose message is meant for the client as it is. */
class Recusa extends Error {}

export class Ponte {
  constructor(
    private readonly mcp: Mcp,
    private readonly pausas: PausasDaPonte,
  ) {}

  /** Steps 1-4: a new Task's request, one tools/call after discovering the tool. */
  async atender(taskId: string, entrada: Entrada, trace: Trace, dono: Dono): Promise<Desfecho> {
    const pedido = lerPedido(entrada);
    if ('erro' in pedido) return falhou(pedido.erro);
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
          const resultado = await this.chamar(FERRAMENTAS.reservar, argumentos, trace);
          return this.traduzir(taskId, argumentos, resultado, { trace, dono }, politica);
        }
      }
    });
  }

  /**
   * Step 5, whole: take the Task's pause (read and removed at once, so two
   * answers cannot both reach MCP), then answer it. `aoTomar` is told once
   * the pause is taken: the Task is working from then on.
   */
  async retomar(
    taskId: string,
    entrada: Entrada,
    traceDaRequisicao: Trace | undefined,
    aoTomar: () => void,
    /** The question's schema as the Task shows it, to show again with a wrong answer. */
    perguntaFeita?: Readonly<Record<string, unknown>>,
  ): Promise<Desfecho> {
    const tomada = await this.pausas.tomar(taskId);
    if (!tomada) return falhou(MENSAGEM_SEM_PAUSA);
    aoTomar();
    const { pausa } = tomada;
    if (tomada.expirada) return falhou(MENSAGEM_DE_PAUSA_EXPIRADA);
    const trace = traceDaRequisicao ?? pausa.trace;
    const escolhida = respostaPara(lerEscolha(entrada), pausa.alternativas);
    // Anything but one of the offered rooms, or recusar, asks the same question again without calling MCP.
    if ('erro' in escolhida) {
      await this.pausas.devolver(taskId, pausa);
      return pausada({ alternativas: pausa.alternativas, ...(perguntaFeita ? { pergunta: perguntaFeita } : {}) }, escolhida.erro);
    }
    return this.falando(async () => {
      const politica = await this.versaoDaPolitica(trace);
      const resultado = await this.mcp.chamar(pausa.ferramenta, pausa.argumentos, traceparentFilho(trace), {
        inputResponses: { [pausa.chave]: escolhida.resposta },
        requestState: pausa.requestState,
      });
      return this.traduzir(taskId, pausa.argumentos, resultado, { trace, dono: pausa.dono ?? DONO_ANONIMO }, politica);
    }, true);
  }

  /** Steps 4 and 6: reservar_sala's result becomes the Task's next state. */
  private async traduzir(
    taskId: string,
    argumentos: Record<string, unknown>,
    resultado: ResultadoDaFerramenta,
    origem: Pick<Pausa, 'trace' | 'dono'>,
    politica: string,
  ): Promise<Desfecho> {
    if (isInputRequiredResult(resultado)) {
      const { pergunta, esquema } = lerPergunta(resultado, argumentos, origem);
      await this.pausas.abrir(taskId, pergunta);
      return pausada({ alternativas: pergunta.alternativas, ...(esquema ? { pergunta: esquema } : {}) });
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

  /** Discovery, then the call: the tool list is the server's, not ours (cached while its ttlMs allows). */
  private async chamar(ferramenta: string, argumentos: Record<string, unknown>, trace: Trace): Promise<ResultadoDaFerramenta> {
    const ferramentas = await this.mcp.ferramentas(traceparentFilho(trace));
    if (!ferramentas.some((oferecida) => oferecida.name === ferramenta)) {
      throw new Recusa(`O servidor MCP nao oferece a ferramenta ${ferramenta}.`);
    }
    return this.mcp.chamar(ferramenta, argumentos, traceparentFilho(trace));
  }

  /**
   * The version declared on the first line of politica://uso (`versao: ...`).
   * Cached while the server's ttlMs allows.
   */
  private async versaoDaPolitica(trace: Trace): Promise<string> {
    const versao = versaoDaPolitica(await this.mcp.lerTexto(URI_DA_POLITICA, traceparentFilho(trace)));
    if (!versao) throw new Recusa(`${URI_DA_POLITICA} nao declara a versao na primeira linha.`);
    return versao;
  }

  /** MCP failures end the Task with a message the client can act on; the agent keeps serving. */
  private async falando(conversa: () => Promise<Desfecho>, continuacao = false): Promise<Desfecho> {
    try {
      return await conversa();
    } catch (erro) {
      if (erro instanceof Recusa) return falhou(erro.message);
      if (erro instanceof BancoIndisponivel) throw erro;
      if (erro instanceof ProtocolError) {
        const dica = continuacao && erro.code === PARAMETROS_INVALIDOS ? ' A pergunta pode ter expirado: envie o pedido de novo.' : '';
        return falhou(`O servidor MCP recusou o pedido (${erro.code}: ${erro.message}).${dica}`);
      }
      const recusadas = credenciaisRecusadas(erro, this.mcp.url);
      if (recusadas) return falhou(recusadas);
      const mensagem = erro instanceof Error ? erro.message : String(erro);
      if (erro instanceof SdkError || erro instanceof TypeError)
        return falhou(`Servidor MCP indisponivel em ${this.mcp.url.href}: ${mensagem}`);
      return falhou(`Falha inesperada ao falar com o servidor MCP: ${mensagem}`);
    }
  }
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
