/**
 * The sweep, any agent's: ends every pause nobody answered in time, and
 * takes over every step whose claim ran out (its agent died, or the call's
 * outcome never arrived), replaying it (the room booking with the same
 * idempotency key; a generic tool only when it says a replay is safe: see
 * Ponte; an MCP task followed again, apart from the pass) until the step
 * gives a definite outcome. And the cap on paused
 * Tasks: past it, the oldest ones end. Every change goes through the
 * lifecycle's transitions, in the Task's turn.
 */
import { noBanco } from '../armazenamento/banco.js';
import { contextoDe, DONO_ANONIMO } from '../armazenamento/escopo.js';
import type { Exclusao } from '../armazenamento/exclusao.js';
import type { Pausas } from '../armazenamento/pausas.js';
import type { Ponte } from '../ponte/ponte.js';
import { ehPedido, ehSeguimento, type Desfecho, type Dono } from '../ponte/tipos.js';
import { Andamento } from './andamento.js';
import { MENSAGEM_DE_PAUSA_EXPIRADA, type Ciclo } from './ciclo.js';

export const mensagemDeExcesso = (maximo: number) =>
  `Pausa descartada: o agente ja guardava ${maximo} Tasks pausadas e esta era a mais antiga. Envie o pedido de novo.`;

const LOTE_DA_VARREDURA = 500;

type PonteDaVarredura = Pick<Ponte, 'atender' | 'responder' | 'reapresentar' | 'cancelar' | 'seguir' | 'largar'>;

export class Varredura {
  /** The Tasks whose MCP task this agent follows again, apart from the passes. */
  private readonly seguindo = new Set<string>();

  constructor(
    private readonly ciclo: Ciclo,
    /** Read to find the Tasks to change; every change is the lifecycle's. */
    private readonly pausas: Pick<Pausas, 'ler' | 'ate' | 'vencidas'>,
    private readonly exclusao: Exclusao,
    private readonly maxPausadas: number,
    private readonly agora: () => number = Date.now,
  ) {}

  /**
   * Over the cap (`pausadas` counted with the newest pause), the oldest
   * paused Tasks end, and what waited on their questions is told (`ponte`);
   * failing to end them must not fail this one.
   */
  async conterExcesso(pausadas: number, ponte?: Pick<PonteDaVarredura, 'cancelar' | 'largar'>): Promise<void> {
    const excesso = pausadas - this.maxPausadas;
    if (excesso <= 0) return;
    const ids = await noBanco(this.pausas.ate(Number.MAX_SAFE_INTEGER, excesso));
    await this.descartarAs(ids, mensagemDeExcesso(this.maxPausadas), undefined, ponte).catch(() => undefined);
  }

  /**
   * One pass: ends every expired pause nobody is answering, and replays
   * every step whose claim ran out. Returns how many Tasks it changed.
   */
  async varrer(ponte: PonteDaVarredura, log: (linha: string) => void = () => undefined): Promise<number> {
    let mudadas = 0;
    for (;;) {
      const ids = await this.pausas.ate(this.agora() - this.ciclo.validade, LOTE_DA_VARREDURA);
      const nesteLote = await this.descartarAs(ids, MENSAGEM_DE_PAUSA_EXPIRADA, log, ponte);
      mudadas += nesteLote;
      // A batch of Tasks all being answered now would come back unchanged: stop rather than spin.
      if (ids.length < LOTE_DA_VARREDURA || nesteLote === 0) break;
    }
    for (const taskId of await this.pausas.vencidas(this.agora(), LOTE_DA_VARREDURA)) {
      if (this.seguindo.has(taskId)) continue;
      if (await this.segueTarefa(taskId)) {
        this.seguirDeNovo(taskId, ponte, log);
        mudadas += 1;
        continue;
      }
      // One Task's replay failing (the database gone again) leaves it claimed for the next pass, and the others go on.
      const desfecho = await this.exclusao
        .seLivre(taskId, () => this.repetir(taskId, ponte))
        .catch((erro: unknown) => {
          log(`varredura: a Task ${taskId} fica para a proxima passada (${erro instanceof Error ? erro.message : String(erro)})`);
          return undefined;
        });
      if (desfecho === undefined) continue;
      mudadas += 1;
      log(`varredura: passo da Task ${taskId} repetido, desfecho ${desfecho}`);
    }
    return mudadas;
  }

  /** Sweeps every `intervaloMs`; the timer never keeps the process alive. */
  periodicamente(intervaloMs: number, ponte: PonteDaVarredura, log: (linha: string) => void): void {
    let varrendo = false;
    setInterval(() => {
      // A pass that outlasts the interval (a replay waiting on MCP) is not stacked on.
      if (varrendo) return;
      varrendo = true;
      void this.varrer(ponte, log)
        .catch((erro: unknown) => log(`varredura de passos falhou: ${erro instanceof Error ? erro.message : String(erro)}`))
        .finally(() => (varrendo = false));
    }, intervaloMs).unref();
  }

  /**
   * A step that follows an MCP task, whose follower stopped: followed
   * again here, in the Task's turn, apart from the pass (a task may run
   * for minutes, and the sweep goes on meanwhile).
   */
  private seguirDeNovo(taskId: string, ponte: PonteDaVarredura, log: (linha: string) => void): void {
    this.seguindo.add(taskId);
    void this.exclusao
      .seLivre(taskId, () => this.repetir(taskId, ponte))
      .then(
        (desfecho) => {
          if (desfecho !== undefined) log(`varredura: tarefa MCP da Task ${taskId} seguida de novo, desfecho ${desfecho}`);
        },
        (erro: unknown) =>
          log(`varredura: a Task ${taskId} fica para a proxima passada (${erro instanceof Error ? erro.message : String(erro)})`),
      )
      .finally(() => this.seguindo.delete(taskId));
  }

  /** Whether the step follows an MCP task; a step that cannot be read now is replayed as any other (and fails there, said). */
  private async segueTarefa(taskId: string): Promise<boolean> {
    const guardado = await noBanco(this.pausas.ler(taskId)).catch(() => undefined);
    return guardado !== undefined && ehSeguimento(guardado.passo);
  }

  /**
   * Replays a step whose claim ran out, in the Task's turn: claimed anew,
   * run again with the same key and answer (or, for an MCP task, followed
   * again), its progress told, its outcome concluded.
   */
  private async repetir(taskId: string, ponte: PonteDaVarredura): Promise<Desfecho['estado'] | undefined> {
    const alvo = { taskId, contexto: contextoDe(await this.donoDoPasso(taskId)) };
    const retomado = await this.ciclo.retomar(alvo);
    if (!retomado) return undefined;
    const { passo, respostas } = retomado;
    const andamento = new Andamento(this.ciclo, alvo);
    const opcoes = { ...andamento.opcoes, repeticao: true };
    const desfecho: Desfecho = ehPedido(passo)
      ? await ponte.atender(taskId, passo, opcoes)
      : ehSeguimento(passo)
        ? await ponte.seguir(taskId, passo, andamento.opcoes)
        : respostas
          ? await ponte.responder(taskId, passo, respostas, passo.trace, opcoes)
          : // A pause claimed with no answer recorded has nothing to replay: the same question, answerable again.
            ponte.reapresentar(passo);
    await andamento.terminar();
    await this.ciclo.concluir(alvo, desfecho, passo, { ...(respostas ? { respostas } : {}), foraDoPedido: true });
    return desfecho.estado;
  }

  /**
   * In each Task's turn, and only if free: a Task being answered right now
   * is not abandoned, and waiting for it here (maybe inside another Task's
   * turn) could wait forever. Only an unclaimed pause is ended.
   */
  private async descartarAs(
    taskIds: readonly string[],
    mensagem: string,
    log: (linha: string) => void = () => undefined,
    /**
     * Told of each pause ended: a call still waiting here on its question is
     * given up (a session's, see ponte/vivas.ts), and a 2026 MCP task waiting
     * on it is cancelled on its server.
     */
    ponte?: Pick<PonteDaVarredura, 'cancelar' | 'largar'>,
  ): Promise<number> {
    let descartadas = 0;
    for (const taskId of taskIds) {
      // One Task that cannot be ended now (its row unreadable, the database gone again) does not stop the others.
      const descartada = await this.exclusao
        .seLivre(taskId, async () => {
          const alvo = { taskId, contexto: contextoDe(await this.donoDoPasso(taskId)) };
          if (!(await this.ciclo.descartar(alvo, mensagem, (pausa) => ponte?.largar(pausa)))) return false;
          ponte?.cancelar(taskId);
          return true;
        })
        .catch((erro: unknown) => {
          log(`varredura: a pausa da Task ${taskId} fica para a proxima passada (${erro instanceof Error ? erro.message : String(erro)})`);
          return false;
        });
      if (descartada) descartadas += 1;
    }
    return descartadas;
  }

  /** Whose the Task is, as its step recorded: the sweep acts outside any request, where the owner finds it. */
  private async donoDoPasso(taskId: string): Promise<Dono> {
    return (await noBanco(this.pausas.ler(taskId)))?.passo.dono ?? DONO_ANONIMO;
  }
}
