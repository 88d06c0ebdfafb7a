/**
 * Following a Task through its event log (armazenamento/diario.ts), on
 * whichever agent its steps run: the events after a position, read as they
 * are stored and woken by the Campainha, until the last leaves the Task
 * where nothing more happens without a client (a terminal state, or a
 * question or URL waiting for an answer). The log is the only source: a step run on
 * this same agent is not also heard from its in-process bus, so no event
 * comes twice. Nothing is buffered here: a slow reader is read for at its
 * own pace, and a follow that outlives `duracaoMaximaMs` ends (the client
 * may subscribe again, with Last-Event-ID).
 */
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { noBanco } from '../armazenamento/banco.js';
import type { Campainha } from '../armazenamento/campainha.js';
import type { Anotado, Diario } from '../armazenamento/diario.js';
import { TERMINAIS } from '../ciclo/maquina.js';

/** States a followed Task stops in: nothing more happens to it until a client acts, or ever. */
const PARADAS: ReadonlySet<TaskState> = new Set([...TERMINAIS, TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/** Events read per query: a Task keeps at most MAXIMO_POR_TASK anyway. */
const LOTE = 50;

/**
 * A follow reads the log again this long after its last read even unwoken:
 * a LISTEN connection gone half-open (a network cut with no reset) raises
 * no error and wakes no one, and the log is the truth anyway.
 */
const RELEITURA_MS = 30_000;

/** False after `ms`, unless `cancelar` comes first (then the timer is gone). */
function releitura(ms: number): { readonly vencida: Promise<false>; cancelar(): void } {
  let relogio: NodeJS.Timeout | undefined;
  const vencida = new Promise<false>((resolver) => {
    relogio = setTimeout(() => resolver(false), ms);
  });
  return { vencida, cancelar: () => clearTimeout(relogio) };
}

/** The Task state an event carries, if it carries one. */
export function estadoDoEvento(evento: StreamResponse): TaskState | undefined {
  const { payload } = evento;
  if (payload?.$case === 'task') return payload.value.status?.state;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state;
  return undefined;
}

/** Whether a Task left by this event stops being followed. */
export function para(evento: StreamResponse): boolean {
  const estado = estadoDoEvento(evento);
  return estado !== undefined && PARADAS.has(estado);
}

/** The Task an event is of. */
export function taskDoEvento(evento: StreamResponse): string | undefined {
  const { payload } = evento;
  if (payload?.$case === 'task') return payload.value.id;
  if (payload?.$case === 'statusUpdate' || payload?.$case === 'artifactUpdate') return payload.value.taskId;
  return undefined;
}

/** Resolves when `sinal` aborts; `soltar` drops the listener, so a long-lived signal does not gather them. */
function aoAbortar(sinal: AbortSignal): { readonly abortado: Promise<void>; soltar(): void } {
  let soltar = (): void => undefined;
  const abortado = new Promise<void>((resolver) => {
    if (sinal.aborted) {
      resolver();
      return;
    }
    const ouvir = () => resolver();
    sinal.addEventListener('abort', ouvir, { once: true });
    soltar = () => sinal.removeEventListener('abort', ouvir);
  });
  return { abortado, soltar };
}

export class Acompanhamento {
  constructor(
    private readonly diario: Pick<Diario, 'ler' | 'extremos'>,
    private readonly campainha: Pick<Campainha, 'esperar'>,
    /** How long one follow may last: a pause's lifetime and one claim, after which a paused Task has been swept. */
    private readonly duracaoMaximaMs: number,
  ) {}

  extremos(taskId: string, escopo: string) {
    return noBanco(this.diario.extremos(taskId, escopo));
  }

  /** The Task's events after `depoisDe` that are stored now, oldest first: a finished Task's replay. */
  async *guardados(taskId: string, escopo: string, depoisDe: number): AsyncGenerator<Anotado, void, undefined> {
    let posicao = depoisDe;
    for (;;) {
      const lidos = await noBanco(this.diario.ler(taskId, escopo, posicao, LOTE));
      yield* lidos;
      const ultimo = lidos.at(-1);
      if (!ultimo || lidos.length < LOTE) return;
      posicao = ultimo.seq;
    }
  }

  /**
   * The Task's events after `depoisDe`, as they are stored, until one that
   * stops the Task is the last stored; ends early when `fim` aborts (the
   * client is gone) or after duracaoMaximaMs.
   */
  async *seguir(taskId: string, escopo: string, depoisDe: number, fim?: AbortSignal): AsyncGenerator<Anotado, void, undefined> {
    const prazo = AbortSignal.timeout(this.duracaoMaximaMs);
    const basta = aoAbortar(fim ? AbortSignal.any([prazo, fim]) : prazo);
    // One reaction to the end for the whole follow, not one more at every wake.
    const acabou = basta.abortado.then(() => true);
    let posicao = depoisDe;
    let parada = false;
    try {
      for (;;) {
        // Registered before the read: a wake between the read and the wait is not lost.
        const espera = this.campainha.esperar(taskId);
        const lidos = await noBanco(this.diario.ler(taskId, escopo, posicao, LOTE)).catch((erro: unknown) => {
          espera.desistir();
          throw erro;
        });
        if (lidos.length === 0) {
          // Stopped, and nothing stored after: the end. A stop followed by more (a replay past a pause since answered) goes on.
          const vigia = releitura(RELEITURA_MS);
          const parou = parada || (await Promise.race([espera.tocada.then(() => false), vigia.vencida, acabou]));
          vigia.cancelar();
          espera.desistir();
          if (parou) return;
          continue;
        }
        espera.desistir();
        for (const anotado of lidos) {
          yield anotado;
          posicao = anotado.seq;
          parada = para(anotado.evento);
        }
      }
    } finally {
      basta.soltar();
    }
  }
}
