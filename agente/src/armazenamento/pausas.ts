/**
 * Where a Task keeps its open step: a pause, with what MCP needs to
 * continue, or a step being run, with what a replay needs. It lives beside
 * the Task, never inside it: nothing here may appear in an A2A response.
 * One interface, two engines side by side (memory; SQL through kysely, for
 * SQLite and PostgreSQL), one contract test for all.
 */
import type { Kysely } from 'kysely';
import { conforme } from 'compartilhado/contrato';
import * as z from 'zod';
import { ServerTaskCapabilitiesV1Schema } from '@modelcontextprotocol/ext-tasks/core/v1';
import { ehPausa, type Passo, type Pausa, type Respostas } from '../ponte/tipos.js';

/**
 * A step being run: by whom, until when the claim holds, and, for an
 * answer, the answer relayed. Past `ate`, any agent's sweep may run the
 * same step again: the MCP server makes the replay idempotent.
 */
export interface Reivindicacao {
  readonly por: string;
  readonly ate: number;
  /** The answers relayed, as MCP's inputResponses. */
  readonly respostas?: Respostas;
}

export interface PassoGuardado {
  readonly passo: Passo;
  readonly reivindicacao?: Reivindicacao;
}

// spanId: the request's span, with telemetry on (an answer links to it); a pause stored without it still reads.
const TraceGuardado = z.object({ traceId: z.string(), flags: z.string(), spanId: z.string().optional() });
const DonoGuardado = z.object({ tenant: z.string(), usuario: z.string() });
/** A question as MCP wrote it: checked as far as the bridge reads it. */
const QuestaoGuardada = z.looseObject({ message: z.string() });
const Comum = { argumentos: z.record(z.string(), z.unknown()), trace: TraceGuardado, dono: DonoGuardado.optional(), criadaEm: z.number() };

/**
 * A pause written before the bridge was generic: a room booking's one
 * question, `chave` and `alternativas`; read as the question it was.
 */
const PausaDeSala = z
  .object({ ferramenta: z.string(), chave: z.string(), requestState: z.string(), alternativas: z.array(z.string()), ...Comum })
  .transform(({ chave, alternativas, ...pausa }): Pausa => ({
    ...pausa,
    skill: 'reservar-sala',
    perguntas: {
      [chave]: {
        mode: 'form',
        message: 'Escolha uma sala alternativa.',
        requestedSchema: { type: 'object', properties: { sala: { type: 'string', enum: alternativas } }, required: ['sala'] },
      },
    },
    rodada: 1,
  }));

/** An MCP task a step follows, or a 2026 task's question waits on (TarefaMcp). */
const TarefaMcpGuardada = z.object({
  referencia: z.object({
    endpointId: z.string(),
    generation: z.enum(['v1', 'v2']),
    taskId: z.string(),
    originalOperation: z.literal('tools/call'),
  }),
  local: z.literal(true).optional(),
  sessaoMcp: z.string().optional(),
  versao: z.string().optional(),
  capacidades: ServerTaskCapabilitiesV1Schema.optional(),
});

/** What a store gives back is checked, not trusted: it was written by some process, some time ago. */
const PassoNoBanco = z.union([
  z.object({
    pedido: z.object({ texto: z.string(), dados: z.unknown().optional() }),
    trace: TraceGuardado,
    dono: DonoGuardado,
    criadaEm: z.number(),
  }),
  z.object({
    skill: z.string(),
    servidor: z.string().optional(),
    ferramenta: z.string(),
    perguntas: z.record(z.string(), QuestaoGuardada),
    requestState: z.string().optional(),
    tarefaMcp: TarefaMcpGuardada.optional(),
    sessao: z.string().optional(),
    rodada: z.number(),
    ...Comum,
  }),
  PausaDeSala,
  z.object({
    skill: z.string(),
    servidor: z.string().optional(),
    ferramenta: z.string(),
    tarefaMcp: TarefaMcpGuardada,
    ...Comum,
  }),
]) as z.ZodType<Passo>;
const RespostasGuardadas = z.record(z.string(), z.looseObject({}));
const ReivindicacaoNoBanco = z.union([
  // Written before answers were keyed: the one answer to a room pause's one question, keyed when read (see lerReivindicacao).
  // Tried first: the new shape, a plain object, would read it too, dropping the answer.
  z.object({ por: z.string(), ate: z.number(), resposta: z.looseObject({ action: z.string() }) }),
  z.object({ por: z.string(), ate: z.number(), respostas: RespostasGuardadas.optional() }),
]);

const lerPasso = (texto: string): Passo => conforme(PassoNoBanco, JSON.parse(texto), 'o passo guardado');
function lerReivindicacao(texto: string, passo: Passo): Reivindicacao {
  const lida = conforme(ReivindicacaoNoBanco, JSON.parse(texto), 'a reivindicacao guardada');
  if (!('resposta' in lida)) return lida as Reivindicacao;
  const [chave = ''] = ehPausa(passo) ? Object.keys(passo.perguntas) : [];
  return { por: lida.por, ate: lida.ate, respostas: { [chave]: lida.resposta } as Respostas };
}

/**
 * At most one open step per Task. Unclaimed steps are pauses waiting for
 * an answer, in age order (criadaEm); a claimed step is being run, and its
 * claim is a lease: it expires, it is never a delete.
 */
export interface Pausas {
  /**
   * Keeps the Task's step, replacing any, claimed when `reivindicacao` is
   * given. An unclaimed step's place in age order is its criadaEm, so a
   * pause claimed and released keeps the place it had.
   */
  guardar(taskId: string, passo: Passo, reivindicacao?: Reivindicacao): Promise<void>;
  ler(taskId: string): Promise<PassoGuardado | undefined>;
  /**
   * Claims the step unless a claim still holds at `agora`: of many racing
   * claimers, one gets it. Answers the step claimed, or undefined.
   */
  reivindicar(taskId: string, reivindicacao: Reivindicacao, agora: number): Promise<Passo | undefined>;
  apagar(taskId: string): Promise<void>;
  /** Ids of the unclaimed steps created at or before `instante`, oldest first, at most `limite`. */
  ate(instante: number, limite: number): Promise<string[]>;
  /** Ids of the claimed steps whose claim ran out before `agora`, at most `limite`. */
  vencidas(agora: number, limite: number): Promise<string[]>;
  /** How many unclaimed steps (paused Tasks) there are. */
  total(): Promise<number>;
}

interface NaMemoria {
  readonly texto: string;
  readonly criadaEm: number;
}

/**
 * In memory: the unclaimed steps in a Map in age order, the claimed ones
 * apart. New pauses are the youngest and go at the end; one released with
 * an older age is slotted back where it was.
 */
export class PausasEmMemoria implements Pausas {
  /** The step as JSON text (half the memory of the object) beside the age the sweep reads. */
  private porTask = new Map<string, NaMemoria>();
  private readonly emAndamento = new Map<string, NaMemoria & { reivindicacao: Reivindicacao }>();
  /** No step in porTask is younger than this. */
  private maisNova = Number.NEGATIVE_INFINITY;

  guardar(taskId: string, passo: Passo, reivindicacao?: Reivindicacao): Promise<void> {
    this.porTask.delete(taskId);
    this.emAndamento.delete(taskId);
    const guardado = { texto: JSON.stringify(passo), criadaEm: passo.criadaEm };
    if (reivindicacao) this.emAndamento.set(taskId, { ...guardado, reivindicacao });
    else this.naOrdem(taskId, guardado);
    return Promise.resolve();
  }

  ler(taskId: string): Promise<PassoGuardado | undefined> {
    const livre = this.porTask.get(taskId);
    if (livre) return Promise.resolve({ passo: lerPasso(livre.texto) });
    const reivindicado = this.emAndamento.get(taskId);
    if (!reivindicado) return Promise.resolve(undefined);
    const passo = lerPasso(reivindicado.texto);
    return Promise.resolve({ passo, reivindicacao: reivindicado.reivindicacao });
  }

  reivindicar(taskId: string, reivindicacao: Reivindicacao, agora: number): Promise<Passo | undefined> {
    // Checked and written in the same synchronous step: that is what makes it atomic here.
    const livre = this.porTask.get(taskId);
    const vencida = this.emAndamento.get(taskId);
    const guardado = livre ?? (vencida && vencida.reivindicacao.ate < agora ? vencida : undefined);
    if (!guardado) return Promise.resolve(undefined);
    this.porTask.delete(taskId);
    this.emAndamento.set(taskId, { texto: guardado.texto, criadaEm: guardado.criadaEm, reivindicacao });
    return Promise.resolve(lerPasso(guardado.texto));
  }

  apagar(taskId: string): Promise<void> {
    this.porTask.delete(taskId);
    this.emAndamento.delete(taskId);
    return Promise.resolve();
  }

  ate(instante: number, limite: number): Promise<string[]> {
    const ids: string[] = [];
    for (const [taskId, pausa] of this.porTask) {
      if (pausa.criadaEm > instante || ids.length >= limite) break;
      ids.push(taskId);
    }
    return Promise.resolve(ids);
  }

  vencidas(agora: number, limite: number): Promise<string[]> {
    const ids: string[] = [];
    for (const [taskId, { reivindicacao }] of this.emAndamento) {
      if (ids.length >= limite) break;
      if (reivindicacao.ate < agora) ids.push(taskId);
    }
    return Promise.resolve(ids);
  }

  total(): Promise<number> {
    return Promise.resolve(this.porTask.size);
  }

  private naOrdem(taskId: string, guardado: NaMemoria): void {
    if (guardado.criadaEm >= this.maisNova) {
      this.porTask.set(taskId, guardado);
      this.maisNova = guardado.criadaEm;
      return;
    }
    const emOrdem = new Map<string, NaMemoria>();
    for (const [id, outro] of this.porTask) {
      if (!emOrdem.has(taskId) && outro.criadaEm > guardado.criadaEm) emOrdem.set(taskId, guardado);
      emOrdem.set(id, outro);
    }
    emOrdem.set(taskId, guardado);
    this.porTask = emOrdem;
  }
}

export interface TabelaDePausas {
  a2a_pausas: {
    task_id: string;
    criada_em: number | string;
    dados: string;
    /** The claim's expiry (epoch ms); null while the step waits unclaimed. */
    reivindicada_ate: number | string | null;
    reivindicacao: string | null;
  };
}

const TABELA = 'a2a_pausas';

/** Steps in the same database as the Tasks, in a table no A2A response reads. */
export class PausasNoBanco implements Pausas {
  /** A database or one transaction of it (kysely types the two apart). */
  constructor(private readonly db: Pick<Kysely<TabelaDePausas>, 'selectFrom' | 'insertInto' | 'updateTable' | 'deleteFrom'>) {}

  async guardar(taskId: string, passo: Passo, reivindicacao?: Reivindicacao): Promise<void> {
    const mudancas = {
      criada_em: passo.criadaEm,
      dados: JSON.stringify(passo),
      reivindicada_ate: reivindicacao?.ate ?? null,
      reivindicacao: reivindicacao ? JSON.stringify(reivindicacao) : null,
    };
    await this.db
      .insertInto(TABELA)
      .values({ task_id: taskId, ...mudancas })
      .onConflict((conflito) => conflito.column('task_id').doUpdateSet(mudancas))
      .execute();
  }

  async ler(taskId: string): Promise<PassoGuardado | undefined> {
    const linha = await this.db.selectFrom(TABELA).select(['dados', 'reivindicacao']).where('task_id', '=', taskId).executeTakeFirst();
    if (!linha) return undefined;
    const passo = lerPasso(linha.dados);
    return { passo, ...(linha.reivindicacao ? { reivindicacao: lerReivindicacao(linha.reivindicacao, passo) } : {}) };
  }

  async reivindicar(taskId: string, reivindicacao: Reivindicacao, agora: number): Promise<Passo | undefined> {
    const linha = await this.db
      .updateTable(TABELA)
      .set({ reivindicada_ate: reivindicacao.ate, reivindicacao: JSON.stringify(reivindicacao) })
      .where('task_id', '=', taskId)
      .where((eb) => eb.or([eb('reivindicada_ate', 'is', null), eb('reivindicada_ate', '<', agora)]))
      .returning('dados')
      .executeTakeFirst();
    return linha && lerPasso(linha.dados);
  }

  async apagar(taskId: string): Promise<void> {
    await this.db.deleteFrom(TABELA).where('task_id', '=', taskId).execute();
  }

  async ate(instante: number, limite: number): Promise<string[]> {
    const linhas = await this.db
      .selectFrom(TABELA)
      .select('task_id')
      .where('reivindicada_ate', 'is', null)
      .where('criada_em', '<=', instante)
      .orderBy('criada_em')
      .limit(limite)
      .execute();
    return linhas.map((linha) => linha.task_id);
  }

  async vencidas(agora: number, limite: number): Promise<string[]> {
    const linhas = await this.db
      .selectFrom(TABELA)
      .select('task_id')
      .where('reivindicada_ate', '<', agora)
      .orderBy('reivindicada_ate')
      .limit(limite)
      .execute();
    return linhas.map((linha) => linha.task_id);
  }

  async total(): Promise<number> {
    const { quantas } = await this.db
      .selectFrom(TABELA)
      .select((eb) => eb.fn.countAll<number | string>().as('quantas'))
      .where('reivindicada_ate', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(quantas);
  }
}
