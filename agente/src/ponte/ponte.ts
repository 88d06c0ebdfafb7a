/**
 * THE bridge between MCP's multi-round-trip requests and A2A Tasks, in the
 * spec's order:
 *   1-2. a request opens a Task and becomes an MCP tools/call;
 *   3-4. a question from the server (input_required, or elicitation/create
 *        on an older server's session) pauses the Task, and hands over the
 *        question to keep with that Task, whose requestState is never shown;
 *   5.   the client's answer continues the call: the original tools/call
 *        again on a new JSON-RPC id, with inputResponses and the state
 *        echoed unchanged (or, on a session, the answer to its request);
 *   6.   a result completes the Task with its artifact; a refusal ends it.
 * It translates protocol and decides no server's rule: what differs between
 * servers is the profile's (perfil.ts). What it returns is the step's
 * outcome; the executor stores it with the Task, in one write. A call whose
 * outcome never arrived is `incerto` when replaying it is safe, and is
 * replayed until it gives one.
 */
import {
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkHttpError,
  UrlElicitationRequiredError,
  type ElicitResult,
  type InputRequiredResult,
} from '@modelcontextprotocol/client';
import { objeto } from 'compartilhado/log';
import type { ConexaoMcp, OpcoesDaChamada } from '../mcp/conexao.js';
import { ChamadaNaoEnviada } from '../mcp/naoEnviada.js';
import { pedeUrl } from './perguntas.js';
import { Recusa, RecusaAntesDaChamada, type Perfil } from './perfil.js';
import { traceparentFilho, type Trace } from './trace.js';
import type { Chamada, Desfecho, Dono, Entrada, Pausa, Pedido, Questao, Respostas } from './tipos.js';
import { ChamadaViva, type ChamadasVivas, type Ouvido } from './vivas.js';

/** The code MCP answers a refused requestState with (expired, most likely, on a continuation). */
const PARAMETROS_INVALIDOS: number = ProtocolErrorCode.InvalidParams;

/** Rounds of questions one request may take: a server that asks forever ends the Task instead. */
export const MAXIMO_DE_RODADAS = 8;

/** A Task paused with no pause stored (written by an agent before pauses were claimed instead of taken). */
export const MENSAGEM_SEM_PAUSA =
  'A pergunta desta Task nao esta mais guardada (o agente parou no meio da resposta): envie o pedido de novo.';

/** A session-era question whose call lives in another process, or in this one before a restart. */
export const MENSAGEM_SESSAO_PERDIDA =
  'A pergunta desta Task foi feita na sessao MCP de outro processo do agente (ou antes de um reinicio), e essa chamada se perdeu: servidores MCP anteriores a 2026-07-28 perguntam durante a chamada, e a pausa vive so no processo que a abriu. Envie o pedido de novo.';

const falhou = (mensagem: string): Desfecho => ({ estado: 'falhou', mensagem });

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
 * knows it never sent, a refused connection, an HTTP 4xx or a JSON-RPC refusal (invalid params, unknown method...) never
 * ran the tool. A timeout, a connection lost after sending, a 5xx, and an
 * internal error (-32603: the server's database answered an error, maybe
 * after a commit whose acknowledgement was lost): it may have.
 */
function talvezFeita(erro: unknown): boolean {
  if (erro instanceof ChamadaNaoEnviada) return false;
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

/** A call that may have had its effect: the step must be replayed (when safe), never failed as if nothing happened. */
class SemDesfecho extends Error {}

/** The call a pause continues. */
const chamadaDa = (pausa: Pausa): Chamada => ({
  skill: pausa.skill,
  ...(pausa.servidor === undefined ? {} : { servidor: pausa.servidor }),
  ferramenta: pausa.ferramenta,
  argumentos: pausa.argumentos,
});

type Pausada = Extract<Desfecho, { estado: 'pausada' }>;

/** What a step runs with besides its request: a replay is told so; progress and cancellation reach the call. */
export interface OpcoesDoPasso {
  readonly repeticao?: boolean;
  readonly aoProgredir?: OpcoesDaChamada['aoProgredir'];
  readonly sinal?: AbortSignal;
}

interface Rodada {
  readonly taskId: string;
  readonly chamada: Chamada;
  readonly conexao: ConexaoMcp;
  readonly origem: { readonly trace: Trace; readonly dono?: Dono };
  readonly rodada: number;
  readonly antes: unknown;
}

/** What a client's cancel tells a call cut short: the server was told, and what it did stays done. */
export const MENSAGEM_DE_CANCELADA =
  'Task cancelada a pedido do cliente: a chamada foi interrompida e o servidor MCP, avisado; o que a ferramenta ja tinha feito fica feito.';

export class Ponte {
  /** Calls running in this process that a cancel may cut short, by Task. */
  private readonly emCurso = new Map<string, AbortController>();

  constructor(
    private readonly perfil: Perfil,
    private readonly vivas: ChamadasVivas,
  ) {}

  /** Steps 1-4: a new Task's request, one tools/call. A replay (`repeticao`) runs only a call safe to run again. */
  async atender(taskId: string, pedido: Omit<Pedido, 'criadaEm'>, opcoes: OpcoesDoPasso = {}): Promise<Desfecho> {
    const chamada = this.perfil.ler(pedido.pedido, taskId);
    if ('erro' in chamada) return { estado: chamada.rejeitar ? 'rejeitada' : 'falhou', mensagem: chamada.erro };
    const conexao = this.perfil.conexao(chamada);
    if (!conexao) return falhou(mensagemSemServidor(chamada));
    const origem = { trace: pedido.trace, dono: pedido.dono };
    if (opcoes.repeticao && this.perfil.efeito(chamada) === 'unico') return falhou(mensagemDeInterrompida(chamada));
    return this.falando(taskId, conexao, chamada, opcoes, async (comSinal) => {
      // Read before the call: an effect the server had is never turned into a failure by a read after it.
      const antes = await this.perfil.antes(chamada, traceparentFilho(pedido.trace));
      const rodada: Rodada = { taskId, chamada, conexao, origem, rodada: 1, antes };
      return this.traduzir(rodada, await this.comEfeito(chamada, conexao, () => this.ouvir(rodada, comSinal)));
    });
  }

  /**
   * Step 5, before anything is claimed: the answer to relay, or, for one
   * that cannot be relayed, the same question again with the reason
   * (nothing is sent to MCP), or the end of a Task whose call is lost.
   */
  escolher(taskId: string, pausa: Pausa, entrada: Entrada): { respostas: Respostas } | Desfecho {
    if (pausa.sessao !== undefined && !this.vivas.tem(taskId, pausa.sessao)) return falhou(MENSAGEM_SESSAO_PERDIDA);
    const lidas = this.perfil.lerRespostas(pausa, entrada);
    if (!('erro' in lidas)) return lidas;
    return this.reapresentar(pausa, lidas.erro);
  }

  /**
   * A client's cancel: a call running here is aborted (the SDK tells the
   * server with notifications/cancelled) and a session's question waiting
   * here is given up. Only a call the profile calls cancelable is cut short
   * (never a room booking, whose effect would outlive a CANCELED Task).
   * True when a running call was told to stop.
   */
  cancelar(taskId: string): boolean {
    this.vivas.cancelar(taskId);
    const emCurso = this.emCurso.get(taskId);
    emCurso?.abort();
    return emCurso !== undefined;
  }

  /**
   * The pause the client sees for these questions: the same question again
   * (an answer refused with `erro`, or a claimed pause with no answer to
   * replay), or a new one, as the profile shows it.
   */
  reapresentar(pausa: Pick<Pausa, 'perguntas'>, erro?: string): Pausada {
    return { estado: 'pausada', ...this.perfil.apresentar(pausa.perguntas, erro), ...(pedeUrl(pausa.perguntas) ? { url: true } : {}) };
  }

  /**
   * Step 5, the call: continues it with the answers. A 2026 server keys the
   * retry by its state, so replaying it has the effect once; a session's
   * call gets the answer to the request it is waiting on. A failure that
   * proves nothing was done leaves the question as it was, to be answered
   * again; on a replay (`repeticao`) it proves nothing of the earlier
   * attempt, so the outcome stays uncertain.
   */
  async responder(taskId: string, pausa: Pausa, respostas: Respostas, trace: Trace, opcoes: OpcoesDoPasso = {}): Promise<Desfecho> {
    const chamada = chamadaDa(pausa);
    const conexao = this.perfil.conexao(chamada);
    if (!conexao) return falhou(mensagemSemServidor(chamada));
    const origem = { trace: pausa.trace, ...(pausa.dono ? { dono: pausa.dono } : {}) };
    // The same question, with why the answer was not relayed on a line of its own.
    const mesma = (motivo: string): Desfecho => {
      const erro = `${motivo} ${this.perfil.palavras.nadaFeito}: envie a resposta de novo.`;
      return { ...this.reapresentar(pausa, erro), mensagem: `${this.perfil.apresentar(pausa.perguntas).mensagem}\n${erro}` };
    };
    // A replayed answer to a session's question: the call it went to is gone, and it may have acted on the answer.
    if (pausa.sessao !== undefined && opcoes.repeticao)
      return falhou(this.perfil.efeito(chamada) === 'nenhum' ? MENSAGEM_SESSAO_PERDIDA : mensagemDeInterrompida(chamada));
    const viva = pausa.sessao === undefined ? undefined : this.vivas.tomar(taskId, pausa.sessao);
    if (pausa.sessao !== undefined && !viva) return falhou(MENSAGEM_SESSAO_PERDIDA);
    if (opcoes.repeticao && this.perfil.efeito(chamada) === 'unico') return falhou(mensagemDeInterrompida(chamada));
    return this.falando(
      taskId,
      conexao,
      chamada,
      opcoes,
      async (comSinal) => {
        const antes = await this.perfil.antes(chamada, traceparentFilho(trace));
        const rodada: Rodada = { taskId, chamada, conexao, origem, rodada: pausa.rodada + 1, antes };
        if (viva) {
          // A session's questions reach the Task one at a time (ChamadaViva queues them), and only elicitations pause it.
          const [chave = ''] = Object.keys(pausa.perguntas);
          viva.aoProgredir = comSinal.aoProgredir;
          comSinal.sinal?.addEventListener('abort', () => viva.abandonar(), { once: true });
          viva.responder((respostas[chave] as ElicitResult | undefined) ?? { action: 'cancel' });
          return this.traduzir(rodada, { ...(await this.comEfeito(chamada, conexao, () => proximoDe(viva))), viva });
        }
        const continuacao =
          pausa.requestState === undefined ? {} : { continuacao: { inputResponses: respostas, requestState: pausa.requestState } };
        return this.traduzir(rodada, await this.comEfeito(chamada, conexao, () => this.ouvir(rodada, comSinal, continuacao)));
      },
      (erro) => {
        // The state was refused (expired, most likely): answering again cannot help.
        if (erro instanceof ProtocolError && erro.code === PARAMETROS_INVALIDOS && pausa.requestState !== undefined)
          return falhou(`${recusado(erro)} A pergunta pode ter expirado: envie o pedido de novo.`);
        if (viva) return undefined;
        if (erro instanceof ProtocolError) return mesma(`O servidor MCP nao concluiu a resposta (${String(erro.code)}: ${erro.message}).`);
        const recusadas = this.perfil.credenciaisRecusadas(erro, conexao);
        if (recusadas) return mesma(recusadas);
        if (erro instanceof Recusa) return undefined;
        return mesma(`O servidor MCP esta inalcancavel em ${conexao.onde} (${textoDoErro(erro)}).`);
      },
    );
  }

  /** One call, and what it did: its result, or (on a session) the question it asked while running. */
  private async ouvir(
    rodada: Rodada,
    opcoes: OpcoesDoPasso,
    extra: Pick<OpcoesDaChamada, 'continuacao'> = {},
  ): Promise<Ouvido & { readonly viva?: ChamadaViva }> {
    const { chamada, conexao } = rodada;
    const daChamada: OpcoesDaChamada = {
      traceparent: traceparentFilho(rodada.origem.trace),
      ...extra,
      ...(chamada.meta ? { meta: chamada.meta } : {}),
      ...(opcoes.aoProgredir && this.perfil.progresso ? { aoProgredir: opcoes.aoProgredir } : {}),
      ...(opcoes.sinal ? { sinal: opcoes.sinal } : {}),
    };
    if (conexao.era() === 'sessao') {
      const viva = new ChamadaViva((aoPerguntar, sinal, aoProgredir) =>
        conexao.chamar(chamada.ferramenta, chamada.argumentos, {
          ...daChamada,
          aoPerguntar,
          sinal: opcoes.sinal ? AbortSignal.any([opcoes.sinal, sinal]) : sinal,
          aoProgredir,
        }),
      );
      viva.aoProgredir = opcoes.aoProgredir;
      return { ...(await proximoDe(viva)), viva };
    }
    return ouvidoDe(conexao.chamar(chamada.ferramenta, chamada.argumentos, daChamada).then((resultado) => ({ resultado })));
  }

  /** Steps 4 and 6: what the call did, as the Task's next state. */
  private traduzir(rodada: Rodada, ouvido: Ouvido & { readonly viva?: ChamadaViva }): Desfecho {
    if ('questao' in ouvido) return this.pausar(rodada, { [`pergunta-${String(rodada.rodada)}`]: ouvido.questao }, ouvido);
    // A URL to visit before the call (-32042): no state to echo, so the answer makes the call again.
    if ('urls' in ouvido) return this.pausar(rodada, Object.fromEntries(ouvido.urls.map((url, i) => [`url-${String(i + 1)}`, url])), {});
    const { resultado } = ouvido;
    if (isInputRequiredResult(resultado)) return this.pausar(rodada, questoesDe(resultado), { requestState: resultado.requestState });
    return this.perfil.concluir(rodada.chamada, resultado, rodada.antes);
  }

  /** Steps 3-4: the question to keep, and the pause the client sees. */
  private pausar(
    rodada: Rodada,
    perguntas: Record<string, Questao>,
    continua: { readonly requestState?: string | undefined; readonly viva?: ChamadaViva },
  ): Desfecho {
    const { viva } = continua;
    const recusada =
      rodada.rodada > MAXIMO_DE_RODADAS
        ? `O servidor MCP perguntou ${String(MAXIMO_DE_RODADAS)} vezes seguidas sem concluir: a Task termina aqui.`
        : this.perfil.perguntaRecusada?.(rodada.chamada, perguntas);
    if (recusada) {
      viva?.responder({ action: 'cancel' });
      throw new Recusa(recusada);
    }
    if (viva) this.vivas.guardar(rodada.taskId, viva);
    const { chamada, origem } = rodada;
    const pergunta = {
      skill: chamada.skill,
      ...(chamada.servidor === undefined ? {} : { servidor: chamada.servidor }),
      ferramenta: chamada.ferramenta,
      argumentos: chamada.argumentos,
      perguntas,
      ...(continua.requestState === undefined ? {} : { requestState: continua.requestState }),
      ...(viva ? { sessao: this.vivas.este } : {}),
      rodada: rodada.rodada,
      ...origem,
    };
    return { ...this.reapresentar({ perguntas }), pergunta };
  }

  /** A call that may change something: a failure that may have done it becomes SemDesfecho, never a failed Task. */
  private async comEfeito<T>(chamada: Chamada, conexao: ConexaoMcp, chamar: () => Promise<T>): Promise<T> {
    try {
      return await chamar();
    } catch (erro) {
      if (this.perfil.efeito(chamada) !== 'nenhum' && talvezFeita(erro) && !this.perfil.credenciaisRecusadas(erro, conexao))
        throw new SemDesfecho(textoDoErro(erro), { cause: erro });
      throw erro;
    }
  }

  /**
   * MCP failures end the Task with a message the client can act on; the
   * agent keeps serving. A call whose outcome is unknown is replayed when
   * the profile says that is safe (`incerto`), and fails saying so when
   * not. On a replay a failure of this attempt says nothing of the earlier
   * one, so the outcome stays uncertain. `antes` may turn a failure into another outcome (a
   * question kept); undefined leaves it to the rules below.
   */
  private async falando(
    taskId: string,
    conexao: ConexaoMcp,
    chamada: Chamada,
    opcoes: OpcoesDoPasso,
    conversa: (opcoes: OpcoesDoPasso) => Promise<Desfecho>,
    antes?: (erro: unknown) => Desfecho | undefined,
  ): Promise<Desfecho> {
    const cancelavel = this.perfil.cancelavel(chamada) ? new AbortController() : undefined;
    if (cancelavel) this.emCurso.set(taskId, cancelavel);
    try {
      return await conversa(cancelavel ? { ...opcoes, sinal: cancelavel.signal } : opcoes);
    } catch (erro) {
      if (cancelavel?.signal.aborted) return { estado: 'cancelada', mensagem: MENSAGEM_DE_CANCELADA };
      const final =
        (erro instanceof Recusa && !(erro instanceof RecusaAntesDaChamada)) ||
        (erro instanceof ProtocolError && erro.code === PARAMETROS_INVALIDOS);
      const incerto = erro instanceof SemDesfecho || (opcoes.repeticao === true && !final && this.perfil.efeito(chamada) !== 'nenhum');
      if (incerto) {
        const mensagem = `Sem desfecho do servidor MCP em ${conexao.onde} (${textoDoErro(erro)}): ${this.perfil.palavras.efeito}.`;
        if (this.perfil.efeito(chamada) === 'repetivel')
          return {
            estado: 'incerto',
            mensagem: `${mensagem} A Task segue em andamento e o agente repete a mesma chamada, ${this.perfil.palavras.repeticao}, ate ter o desfecho.`,
          };
        return falhou(
          `${mensagem} A ferramenta nao se declara segura de repetir, entao o agente nao a repete: confira no servidor antes de pedir de novo.`,
        );
      }
      const outro = antes?.(erro);
      if (outro) return outro;
      if (erro instanceof Recusa) return falhou(erro.message);
      if (erro instanceof ProtocolError) return falhou(recusado(erro));
      const recusadas = this.perfil.credenciaisRecusadas(erro, conexao);
      if (recusadas) return falhou(recusadas);
      const mensagem = textoDoErro(erro);
      if (erro instanceof SdkError || erro instanceof TypeError) return falhou(`Servidor MCP indisponivel em ${conexao.onde}: ${mensagem}`);
      return falhou(`Falha inesperada ao falar com o servidor MCP: ${mensagem}`);
    } finally {
      if (cancelavel && this.emCurso.get(taskId) === cancelavel) this.emCurso.delete(taskId);
    }
  }
}

/** input_required's questions: every one must be an elicitation (the agent declares no sampling or roots). */
function questoesDe(resultado: InputRequiredResult): Record<string, Questao> {
  const questoes: Record<string, Questao> = {};
  for (const [chave, pedido] of Object.entries(resultado.inputRequests ?? {})) {
    if (pedido.method !== 'elicitation/create')
      throw new Recusa(`O servidor MCP pediu ${pedido.method}, que este agente nao oferece (nao declara sampling nem roots).`);
    // The SDK hands input_required over unchecked: a question is kept only if every agent can read it back and show it.
    if (!legivel(pedido.params)) throw new Recusa(`O servidor MCP fez uma pergunta fora do formato do MCP ("${chave}").`);
    questoes[chave] = pedido.params;
  }
  if (Object.keys(questoes).length === 0 || resultado.requestState === undefined)
    throw new Recusa('O servidor MCP pediu uma resposta sem dizer a pergunta (input_required sem inputRequests ou sem requestState).');
  return questoes;
}

/** A question with what showing and answering it needs: its message, and a schema (form) or a URL. */
function legivel(questao: Questao): boolean {
  const lida: Record<string, unknown> = { ...questao };
  if (typeof lida.message !== 'string') return false;
  return questao.mode === 'url' ? typeof lida.url === 'string' : objeto(lida.requestedSchema) !== undefined;
}

/** What the bridge heard of a call: a URL the server needs visited first (-32042) is a question too. */
async function ouvidoDe(ouvir: Promise<Ouvido>): Promise<Ouvido> {
  try {
    return await ouvir;
  } catch (erro) {
    if (erro instanceof UrlElicitationRequiredError) return { urls: erro.elicitations };
    throw erro;
  }
}

const proximoDe = (viva: ChamadaViva) => ouvidoDe(viva.proximo());

const mensagemSemServidor = (chamada: Chamada) =>
  `O servidor MCP ${chamada.servidor ?? '(sem nome)'} nao esta configurado (AGENTE_MCP_CONFIG): a Task nao pode seguir.`;

const mensagemDeInterrompida = (chamada: Chamada) =>
  `A chamada de ${chamada.skill} foi interrompida (o agente que a fazia parou) e o desfecho e desconhecido: a ferramenta nao se declara segura de repetir, entao o agente nao a repete. Confira no servidor antes de pedir de novo.`;
