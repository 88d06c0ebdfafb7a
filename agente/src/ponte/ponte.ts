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
 * outcome; the executor stores it with the Task, in one write. What a
 * failure means for the step is falhas.ts's to say: a call whose outcome
 * never arrived is `incerto` when replaying it is safe, and is replayed
 * until it gives one.
 */
import { isInputRequiredResult, UrlElicitationRequiredError, type ElicitResult, type InputRequests } from '@modelcontextprotocol/client';
import { objeto } from 'compartilhado/log';
import { ehPerguntaDaTarefa, type ConexaoMcp, type OpcoesDaChamada, type TarefaMcp } from '../mcp/conexao.js';
import { classificar, desfechoDa, falhaDoResultado, naChamada, PRIMEIRA_CHAMADA, RESPOSTA, type Falha, type Situacao } from './falhas.js';
import { pedeUrl } from './perguntas.js';
import { Recusa, type Efeito, type Perfil } from './perfil.js';
import { traceparentFilho, type Trace } from './trace.js';
import type { Chamada, Desfecho, Dono, Entrada, Pausa, Pedido, Questao, Respostas, Seguimento } from './tipos.js';
import { ChamadaViva, type ChamadasVivas, type Ouvido } from './vivas.js';

/** Rounds of questions one request may take: a server that asks forever ends the Task instead. */
export const MAXIMO_DE_RODADAS = 8;

/** A Task paused with no pause stored (written by an agent before pauses were claimed instead of taken). */
export const MENSAGEM_SEM_PAUSA =
  'A pergunta desta Task nao esta mais guardada (o agente parou no meio da resposta): envie o pedido de novo.';

/** A session-era question whose call lives in another process, or in this one before a restart. */
export const MENSAGEM_SESSAO_PERDIDA =
  'A pergunta desta Task foi feita na sessao MCP de outro processo do agente (ou antes de um reinicio), e essa chamada se perdeu: servidores MCP anteriores a 2026-07-28 perguntam durante a chamada, e a pausa vive so no processo que a abriu. Envie o pedido de novo.';

const falhou = (mensagem: string): Desfecho => ({ estado: 'falhou', mensagem });

/** The call a pause continues, or a follow of an MCP task follows. */
const chamadaDa = (passo: Pausa | Seguimento): Chamada => ({
  skill: passo.skill,
  ...(passo.servidor === undefined ? {} : { servidor: passo.servidor }),
  ferramenta: passo.ferramenta,
  argumentos: passo.argumentos,
});

type Pausada = Extract<Desfecho, { estado: 'pausada' }>;

/** A step's options, and what replaying its call would do now (see Ponte.seguivel). */
interface Seguivel {
  readonly opcoes: OpcoesDoPasso;
  readonly efeito: () => Efeito;
}

/** A step on an MCP task that exists: replaying it follows the task again (after its answer's tasks/update), always safe. */
const sempreRepetivel = (opcoes: OpcoesDoPasso): Seguivel => ({ opcoes, efeito: () => 'repetivel' });

/**
 * What a step runs with besides its request: a replay is told so; progress
 * and cancellation reach the call; the MCP task a call starts is handed to
 * `aoSeguir` as the step to keep.
 */
export interface OpcoesDoPasso {
  readonly repeticao?: boolean;
  readonly aoProgredir?: OpcoesDaChamada['aoProgredir'];
  readonly aoSeguir?: (seguimento: Seguimento) => void;
  readonly sinal?: AbortSignal;
}

interface Rodada {
  readonly taskId: string;
  readonly chamada: Chamada;
  readonly conexao: ConexaoMcp;
  readonly origem: { readonly trace: Trace; readonly dono?: Dono };
  readonly rodada: number;
  /** What the profile's preparation read for `concluir` (the room policy's version). */
  readonly preparo: unknown;
  /** The step's outcome for a failure, as its row in falhas.ts's table says. */
  readonly falhar: (falha: Falha) => Desfecho;
}

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
    const seguivel = this.seguivel(chamada, opcoes);
    const falhar = (falha: Falha) => desfechoDa(falha, PRIMEIRA_CHAMADA, this.situacao(conexao, seguivel.efeito()));
    return this.falando(taskId, chamada, seguivel, falhar, async (comSinal) => {
      // Read before the call: an effect the server had is never turned into a failure by a read after it.
      const preparo = await this.perfil.preparar(chamada, traceparentFilho(pedido.trace));
      const rodada: Rodada = { taskId, chamada, conexao, origem, rodada: 1, preparo, falhar };
      return this.traduzir(rodada, await naChamada(() => this.ouvir(rodada, comSinal)));
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
   * A 2026 MCP task's question whose A2A Task ended unanswered (cancelled,
   * expired, evicted): the task is cancelled on its server (tasks/cancel),
   * best effort, rather than left waiting until its TTL.
   */
  largar(pausa: Pausa): void {
    const { tarefaMcp } = pausa;
    const chamada = chamadaDa(pausa);
    const conexao = this.perfil.conexao(chamada);
    if (!tarefaMcp || !conexao) return;
    // Followed again with its cancel already asked for: tasks/get, then tasks/cancel (tarefa.ts).
    const opcoes = {
      traceparent: traceparentFilho(pausa.trace),
      retomar: tarefaMcp,
      sinal: AbortSignal.abort(new Error('Task A2A encerrada')),
    };
    void conexao.chamar(chamada.ferramenta, chamada.argumentos, opcoes).catch(() => undefined);
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
   * attempt, so the outcome stays uncertain. Which failure does what is
   * the answer's row of its era in falhas.ts.
   */
  async responder(taskId: string, pausa: Pausa, respostas: Respostas, trace: Trace, opcoes: OpcoesDoPasso = {}): Promise<Desfecho> {
    const chamada = chamadaDa(pausa);
    const conexao = this.perfil.conexao(chamada);
    if (!conexao) return falhou(mensagemSemServidor(chamada));
    const origem = { trace: pausa.trace, ...(pausa.dono ? { dono: pausa.dono } : {}) };
    // A replayed answer to a session's question: the call it went to is gone, and it may have acted on the answer.
    if (pausa.sessao !== undefined && opcoes.repeticao)
      return falhou(this.perfil.efeito(chamada) === 'nenhum' ? MENSAGEM_SESSAO_PERDIDA : mensagemDeInterrompida(chamada));
    const viva = pausa.sessao === undefined ? undefined : this.vivas.tomar(taskId, pausa.sessao);
    if (pausa.sessao !== undefined && !viva) return falhou(MENSAGEM_SESSAO_PERDIDA);
    // A 2026 task's question: the answer is tasks/update, then the task followed again; both safe to repeat.
    const { tarefaMcp } = pausa;
    if (opcoes.repeticao && !tarefaMcp && this.perfil.efeito(chamada) === 'unico') return falhou(mensagemDeInterrompida(chamada));
    // Only a call waiting in this process holds a 2025 server's question; any other answer makes a new call, as in 2026.
    const seguivel = tarefaMcp ? sempreRepetivel(opcoes) : this.seguivel(chamada, opcoes);
    const falhar = (falha: Falha) =>
      desfechoDa(falha, RESPOSTA[viva ? 'sessao' : 'moderna'], {
        ...this.situacao(conexao, seguivel.efeito()),
        // The same question, with why the answer was not relayed on a line of its own.
        manter: (erro: string): Desfecho => ({
          ...this.reapresentar(pausa, erro),
          mensagem: `${this.perfil.apresentar(pausa.perguntas).mensagem}\n${erro}`,
        }),
        comEstado: pausa.requestState !== undefined,
      });
    return this.falando(taskId, chamada, seguivel, falhar, async (comSinal) => {
      const preparo = await this.perfil.preparar(chamada, traceparentFilho(trace));
      const rodada: Rodada = { taskId, chamada, conexao, origem, rodada: pausa.rodada + 1, preparo, falhar };
      if (viva) {
        // A session's questions reach the Task one at a time (ChamadaViva queues them), and only elicitations pause it.
        const [chave = ''] = Object.keys(pausa.perguntas);
        viva.aoProgredir = comSinal.aoProgredir;
        viva.aoSeguir = this.aoSeguir(rodada, comSinal);
        comSinal.sinal?.addEventListener('abort', () => viva.abandonar(), { once: true });
        viva.responder((respostas[chave] as ElicitResult | undefined) ?? { action: 'cancel' });
        return this.traduzir(rodada, { ...(await naChamada(() => proximoDe(viva))), viva });
      }
      const continuacao = tarefaMcp
        ? { retomar: tarefaMcp, respostasDaTarefa: respostas }
        : pausa.requestState === undefined
          ? {}
          : { continuacao: { inputResponses: respostas, requestState: pausa.requestState } };
      return this.traduzir(rodada, await naChamada(() => this.ouvir(rodada, comSinal, continuacao)));
    });
  }

  /**
   * A step whose call became an MCP task, taken over from a follower that
   * stopped: the same task followed again to its end, never a new call.
   * Following is a read, safe to repeat: a follow whose outcome never
   * arrived is replayed until the task gives one.
   */
  async seguir(taskId: string, seguimento: Seguimento, opcoes: OpcoesDoPasso = {}): Promise<Desfecho> {
    const { tarefaMcp, trace, dono } = seguimento;
    const daTarefa: Chamada = { ...chamadaDa(seguimento), tarefa: true };
    const conexao = this.perfil.conexao(daTarefa);
    if (!conexao) return falhou(mensagemSemServidor(daTarefa));
    const falhar = (falha: Falha) => desfechoDa(falha, PRIMEIRA_CHAMADA, this.situacao(conexao, 'repetivel'));
    return this.falando(taskId, daTarefa, sempreRepetivel(opcoes), falhar, async (comSinal) => {
      const preparo = await this.perfil.preparar(daTarefa, traceparentFilho(trace));
      const origem = { trace, ...(dono ? { dono } : {}) };
      const rodada: Rodada = { taskId, chamada: daTarefa, conexao, origem, rodada: 1, preparo, falhar };
      return this.traduzir(rodada, await naChamada(() => this.ouvir(rodada, comSinal, { retomar: tarefaMcp })));
    });
  }

  /** One call, and what it did: its result, or (on a session) the question it asked while running. */
  private async ouvir(
    rodada: Rodada,
    opcoes: OpcoesDoPasso,
    extra: Pick<OpcoesDaChamada, 'continuacao' | 'retomar' | 'respostasDaTarefa'> = {},
  ): Promise<Ouvido & { readonly viva?: ChamadaViva }> {
    const { chamada, conexao } = rodada;
    const aoSeguir = this.aoSeguir(rodada, opcoes);
    const daChamada: OpcoesDaChamada = {
      traceparent: traceparentFilho(rodada.origem.trace),
      ...extra,
      ...(chamada.meta ? { meta: chamada.meta } : {}),
      ...(chamada.tarefa ? { tarefa: chamada.tarefa } : {}),
      ...(opcoes.aoProgredir && this.perfil.progresso ? { aoProgredir: opcoes.aoProgredir } : {}),
      ...(aoSeguir ? { aoSeguir } : {}),
      ...(opcoes.sinal ? { sinal: opcoes.sinal } : {}),
    };
    if (conexao.era() === 'sessao') {
      const viva = new ChamadaViva((aoPerguntar, sinal, ouvintes) =>
        conexao.chamar(chamada.ferramenta, chamada.argumentos, {
          ...daChamada,
          ...ouvintes,
          aoPerguntar,
          sinal: opcoes.sinal ? AbortSignal.any([opcoes.sinal, sinal]) : sinal,
        }),
      );
      viva.aoProgredir = opcoes.aoProgredir;
      viva.aoSeguir = aoSeguir;
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
    if (ehPerguntaDaTarefa(resultado)) {
      const { tarefa, inputRequests } = resultado.perguntaDaTarefa;
      return this.pausar(rodada, questoesDe(inputRequests), { tarefaMcp: tarefa });
    }
    if (isInputRequiredResult(resultado)) {
      if (resultado.requestState === undefined)
        throw new Recusa('O servidor MCP pediu uma resposta sem o requestState que a continua (input_required sem requestState).');
      return this.pausar(rodada, questoesDe(resultado.inputRequests), { requestState: resultado.requestState });
    }
    if (resultado.isError) return rodada.falhar(falhaDoResultado(resultado, this.perfil.falhaSemTexto(rodada.chamada)));
    return this.perfil.concluir(rodada.chamada, resultado, rodada.preparo);
  }

  /** Steps 3-4: the question to keep, and the pause the client sees. */
  private pausar(
    rodada: Rodada,
    perguntas: Record<string, Questao>,
    continua: { readonly requestState?: string | undefined; readonly viva?: ChamadaViva; readonly tarefaMcp?: TarefaMcp },
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
      ...(continua.tarefaMcp ? { tarefaMcp: continua.tarefaMcp } : {}),
      ...(viva ? { sessao: this.vivas.este } : {}),
      rodada: rodada.rodada,
      ...origem,
    };
    return { ...this.reapresentar({ perguntas }), pergunta };
  }

  /** What falhas.ts's rows need of this step's call. */
  private situacao(conexao: ConexaoMcp, efeito: Efeito): Situacao {
    const { palavras } = this.perfil;
    return { onde: conexao.onde, efeito, palavras, credenciais: this.perfil.credenciaisRecusadas(conexao) };
  }

  /**
   * Where a call tells the MCP task it started: as the step that follows
   * it (what a sweep needs to follow it again), for the step's `aoSeguir`.
   */
  private aoSeguir(rodada: Rodada, opcoes: OpcoesDoPasso): ((tarefa: TarefaMcp) => void) | undefined {
    const { aoSeguir } = opcoes;
    if (!aoSeguir) return undefined;
    const { chamada, origem } = rodada;
    return (tarefaMcp) =>
      aoSeguir({
        skill: chamada.skill,
        ...(chamada.servidor === undefined ? {} : { servidor: chamada.servidor }),
        ferramenta: chamada.ferramenta,
        argumentos: chamada.argumentos,
        tarefaMcp,
        ...origem,
        criadaEm: Date.now(),
      });
  }

  /**
   * The step's options, and what replaying its call would do: once the
   * call has become an MCP task another agent can follow (kept as the
   * step), replaying the step follows the task again, which is safe
   * whatever the tool does; before that, it is the tool's own word.
   */
  private seguivel(chamada: Chamada, opcoes: OpcoesDoPasso): Seguivel {
    const { aoSeguir } = opcoes;
    let seguida = false;
    return {
      opcoes: aoSeguir
        ? {
            ...opcoes,
            aoSeguir: (seguimento) => {
              seguida ||= seguimento.tarefaMcp.local !== true;
              aoSeguir(seguimento);
            },
          }
        : opcoes,
      efeito: () => (seguida ? 'repetivel' : this.perfil.efeito(chamada)),
    };
  }

  /**
   * Runs a step's exchange with MCP. A failure never escapes: it is
   * classified once (falhas.ts) and `falhar` gives the step's outcome, a
   * message the client can act on; the agent keeps serving. A client's
   * cancel cuts short only a call the profile calls cancelable.
   */
  private async falando(
    taskId: string,
    chamada: Chamada,
    { opcoes, efeito }: Seguivel,
    falhar: (falha: Falha) => Desfecho,
    conversa: (opcoes: OpcoesDoPasso) => Promise<Desfecho>,
  ): Promise<Desfecho> {
    const cancelavel = this.perfil.cancelavel(chamada) ? new AbortController() : undefined;
    if (cancelavel) this.emCurso.set(taskId, cancelavel);
    try {
      return await conversa(cancelavel ? { ...opcoes, sinal: cancelavel.signal } : opcoes);
    } catch (erro) {
      const tentativa = {
        efeito: efeito(),
        repeticao: opcoes.repeticao === true,
        cancelada: cancelavel?.signal.aborted === true,
      };
      return falhar(classificar(erro, tentativa));
    } finally {
      if (cancelavel && this.emCurso.get(taskId) === cancelavel) this.emCurso.delete(taskId);
    }
  }
}

/** The questions of an input_required or of a 2026 task: every one must be an elicitation (the agent declares no sampling or roots). */
function questoesDe(inputRequests: InputRequests | undefined): Record<string, Questao> {
  const questoes: Record<string, Questao> = {};
  for (const [chave, pedido] of Object.entries(inputRequests ?? {})) {
    if (pedido.method !== 'elicitation/create')
      throw new Recusa(`O servidor MCP pediu ${pedido.method}, que este agente nao oferece (nao declara sampling nem roots).`);
    // The SDK hands input_required over unchecked: a question is kept only if every agent can read it back and show it.
    if (!legivel(pedido.params)) throw new Recusa(`O servidor MCP fez uma pergunta fora do formato do MCP ("${chave}").`);
    questoes[chave] = pedido.params;
  }
  if (Object.keys(questoes).length === 0) throw new Recusa('O servidor MCP pediu uma resposta sem dizer a pergunta (sem inputRequests).');
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
