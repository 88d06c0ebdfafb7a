/**
 * Load through the whole bridge: virtual clients booking rooms over A2A on
 * one or more agents, answering pauses (or refusing), until time runs out.
 * Some pauses get several answers at once, sent to different agents: one
 * must win, the others must meet the Task as the winner left it. It checks
 * the invariants that must hold under concurrency: no 5xx and no JSON-RPC
 * error but the expected ones, every Task driven to a terminal state, every
 * booking its own artifact, and no two bookings of one room overlapping.
 * Under faults (`npm run soak -- --caos`) two options change it: every
 * request has a deadline, and some paused Tasks are canceled.
 */
import { randomUUID } from 'node:crypto';
import type { ReservaFeita } from '../agente/src/salas/perfil.js';
import { CorpoA2A, reservaDaTarefa, tarefaDo, type TarefaNoFio } from './a2a-cru.js';
import { idsDasSalas } from './dados.js';

export interface OpcoesDeCarga {
  /** Base URLs of the agents; each request goes to one of them. */
  readonly agentes: readonly string[];
  readonly segundos: number;
  readonly clientes: number;
  readonly semente?: number;
  /** Each request is given up after this many ms (none by default): under faults a client must never hang. */
  readonly prazoMs?: number;
  /** How often a paused Task is canceled instead of answered, and a Task whose answer got no reply canceled (never by default). */
  readonly chanceDeCancelar?: number;
  /** A pause after a request that got no reply or an internal error (none by default): a client does not hammer an agent that is down. */
  readonly esperaAposFalhaMs?: number;
}

/** A reply with an HTTP status of 500 or more, and when it was asked and answered (epoch ms). */
export interface Resposta5xx {
  readonly inicio: number;
  readonly fim: number;
  readonly agente: string;
  readonly metodo: string;
  readonly status: number;
  readonly corpo: string;
}

/** A booking as a client saw it, in its Task's artifact. */
export type Reserva = Pick<ReservaFeita, 'reserva' | 'sala' | 'inicio' | 'fim'>;

export interface Relatorio {
  readonly pedidos: number;
  readonly erros: string[];
  /** Replies with an HTTP status of 500 or more (also counted in erros). */
  readonly respostas5xx: number;
  /** Each of those replies. */
  readonly lista5xx: Resposta5xx[];
  /** The failures erros lists, counted by kind: network cause, HTTP status, JSON-RPC code, the client's deadline. */
  readonly falhas: Record<string, number>;
  /** Milliseconds per A2A request, in arrival order. */
  readonly latencias: number[];
  readonly tarefas: Record<string, number>;
  readonly reservas: Reserva[];
  /** Pauses answered several times at once, and how those answers came back. */
  readonly concorrentes: { rodadas: number; aplicadas: number; recusadas: number };
  /** CancelTask requests (with chanceDeCancelar), and how they came back. */
  readonly cancelamentos: { pedidos: number; canceladas: number; recusadas: number };
  readonly violacoes: string[];
}

const MAXIMO_DE_PAUSAS_SEGUIDAS = 3;
/** Few enough days that rooms collide and pause often, enough that the agenda does not fill up. */
const DIAS = 20;
/** How often a pause is answered several times at once, and by how many answers. */
const CHANCE_DE_CORRIDA = 0.3;
const RESPOSTAS_NA_CORRIDA = 3;
/** The error a Task that no longer waits for input answers with: expected for the losers of a race. */
const TASK_TERMINAL = -32004;
/** The error a Task whose step is running (or that is finished) answers a cancel with. */
const TASK_NAO_CANCELAVEL = -32002;
const ERRO_INTERNO = -32603;

/** A small seeded generator: the same seed gives the same choices. */
export function aleatorio(semente: number) {
  let estado = semente >>> 0;
  return () => {
    estado = (estado + 0x6d2b79f5) >>> 0;
    let t = estado;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function percentil(valores: readonly number[], p: number): number {
  const ordenados = [...valores].sort((a, b) => a - b);
  return ordenados[Math.min(ordenados.length - 1, Math.floor((p / 100) * ordenados.length))] ?? 0;
}

type Resposta = { task?: TarefaNoFio; erro?: { code: number; message: string } };

/** The kind of a failed request: the client's own deadline, the network code deep in its causes, or a body not read. */
function tipoDaFalhaDeRede(erro: unknown): string {
  if (erro instanceof DOMException && erro.name === 'TimeoutError') return 'prazo do cliente esgotado';
  for (let causa: unknown = erro; causa instanceof Error; causa = causa.cause) {
    if ('code' in causa && typeof causa.code === 'string') return `rede ${causa.code}`;
  }
  return erro instanceof Error ? `resposta ilegivel (${erro.name})` : 'resposta ilegivel';
}

/** The item at `indice`, going round the list (which is never empty). */
function emRoda<T>(lista: readonly T[], indice: number): T {
  const item = lista[indice % lista.length];
  if (item === undefined) throw new Error('lista vazia');
  return item;
}

export async function carga({
  agentes,
  segundos,
  clientes,
  semente = 7,
  prazoMs,
  chanceDeCancelar = 0,
  esperaAposFalhaMs = 0,
}: OpcoesDeCarga): Promise<Relatorio> {
  const fim = Date.now() + segundos * 1000;
  const latencias: number[] = [];
  const erros: string[] = [];
  const falhas: Record<string, number> = {};
  const tarefas: Record<string, number> = {};
  const reservas: Reserva[] = [];
  const concorrentes = { rodadas: 0, aplicadas: 0, recusadas: 0 };
  const cancelamentos = { pedidos: 0, canceladas: 0, recusadas: 0 };
  const lista5xx: Resposta5xx[] = [];
  let respostas5xx = 0;

  const esperarAposFalha = () =>
    esperaAposFalhaMs > 0 ? new Promise((resolver) => setTimeout(resolver, esperaAposFalhaMs)) : Promise.resolve();

  const falhou = (tipo: string, texto: string) => {
    erros.push(texto);
    falhas[tipo] = (falhas[tipo] ?? 0) + 1;
  };

  async function a2a(agente: string, method: string, params: unknown): Promise<Resposta> {
    const comeco = performance.now();
    const inicio = Date.now();
    try {
      const resposta = await fetch(`${agente}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
        ...(prazoMs === undefined ? {} : { signal: AbortSignal.timeout(prazoMs) }),
      });
      const texto = await resposta.text();
      latencias.push(performance.now() - comeco);
      if (resposta.status >= 500) {
        respostas5xx += 1;
        lista5xx.push({ inicio, fim: Date.now(), agente, metodo: method, status: resposta.status, corpo: texto.slice(0, 200) });
      }
      if (resposta.status !== 200) falhou(`http ${resposta.status}`, `${resposta.status} ${texto.slice(0, 200)}`);
      const corpo = CorpoA2A.parse(JSON.parse(texto));
      // "Try again in a moment" (the agent's database is down) is heard as such.
      if (corpo.error?.code === ERRO_INTERNO) await esperarAposFalha();
      return corpo.error ? { erro: corpo.error } : { task: tarefaDo(corpo) };
    } catch (erro) {
      falhou(tipoDaFalhaDeRede(erro), `falha de rede: ${erro instanceof Error ? erro.message : String(erro)}`);
      await esperarAposFalha();
      return {};
    }
  }

  const erroJsonRpc = (onde: string, erro: { code: number; message: string }) =>
    falhou(`jsonrpc ${erro.code}`, `${onde}: ${erro.code} ${erro.message}`);

  /**
   * A cancel the client asks for: CANCELED when the Task waited for an
   * answer; -32002 when its step is running (a cancel then could leave a
   * booking behind a CANCELED Task) or it had finished. Either way the Task
   * is read back for what it became.
   */
  async function cancelar(agente: string, taskId: string): Promise<Resposta> {
    cancelamentos.pedidos += 1;
    const resposta = await a2a(agente, 'CancelTask', { id: taskId });
    if (resposta.task) {
      cancelamentos.canceladas += 1;
      return resposta;
    }
    if (resposta.erro?.code === TASK_NAO_CANCELAVEL) cancelamentos.recusadas += 1;
    else if (resposta.erro) erroJsonRpc('cancelamento', resposta.erro);
    return a2a(agente, 'GetTask', { id: taskId });
  }

  const enviar = (agente: string, texto: string, taskId?: string) =>
    a2a(agente, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: texto }], ...(taskId ? { taskId } : {}) },
    });

  async function cliente(indice: number): Promise<void> {
    const sortear = aleatorio(semente * 1000 + indice);
    const qualquer = <T>(lista: readonly T[]) => emRoda(lista, Math.floor(sortear() * lista.length));
    while (Date.now() < fim) {
      const sala = qualquer(idsDasSalas);
      const dia = `2028-01-${String(1 + Math.floor(sortear() * DIAS)).padStart(2, '0')}`;
      const hora = String(8 + Math.floor(sortear() * 11)).padStart(2, '0');
      const pedido = `reservar sala=${sala} inicio=${dia}T${hora}:00:00-03:00 fim=${dia}T${hora}:59:00-03:00 responsavel=Cliente ${indice}`;
      let resposta = await enviar(qualquer(agentes), pedido);
      if (resposta.erro) erroJsonRpc('pedido', resposta.erro);
      for (let pausas = 0; resposta.task?.status.state === 'TASK_STATE_INPUT_REQUIRED'; pausas++) {
        const taskId = resposta.task.id;
        const alternativas = (resposta.task.status.message?.parts[0]?.text ?? '').replace('alternativas: ', '').split(', ');
        const escolher = () => (pausas >= MAXIMO_DE_PAUSAS_SEGUIDAS || sortear() < 0.2 ? 'recusar' : qualquer(alternativas));
        // Drawn only when canceling is on: without it the choices, and so the load, are the same as ever.
        if (chanceDeCancelar > 0 && sortear() < chanceDeCancelar) {
          resposta = await cancelar(qualquer(agentes), taskId);
          continue;
        }
        if (sortear() >= CHANCE_DE_CORRIDA) {
          resposta = await enviar(qualquer(agentes), `escolha=${escolher()}`, taskId);
          if (resposta.erro) erroJsonRpc('resposta', resposta.erro);
          // An answer that got no reply may or may not have been applied: the client gives the Task up with a cancel.
          if (!resposta.task && chanceDeCancelar > 0) resposta = await cancelar(qualquer(agentes), taskId);
          continue;
        }
        // Several answers at once, each to another agent where there are several.
        const corrida = await Promise.all(
          Array.from({ length: RESPOSTAS_NA_CORRIDA }, (_, i) => enviar(emRoda(agentes, indice + i), `escolha=${escolher()}`, taskId)),
        );
        concorrentes.rodadas += 1;
        for (const uma of corrida) {
          if (uma.erro?.code === TASK_TERMINAL) concorrentes.recusadas += 1;
          else if (uma.erro) erroJsonRpc('resposta concorrente', uma.erro);
          else concorrentes.aplicadas += 1;
        }
        // What the Task became is what the winners left: read it rather than guess.
        resposta = await a2a(qualquer(agentes), 'GetTask', { id: taskId });
      }
      const task = resposta.task;
      if (!task) continue;
      tarefas[task.status.state] = (tarefas[task.status.state] ?? 0) + 1;
      if (task.status.state === 'TASK_STATE_COMPLETED') reservas.push(reservaDaTarefa(task));
    }
  }

  await Promise.all(Array.from({ length: clientes }, (_, i) => cliente(i)));
  return {
    pedidos: latencias.length,
    erros,
    respostas5xx,
    lista5xx,
    falhas,
    latencias,
    tarefas,
    reservas,
    concorrentes,
    cancelamentos,
    violacoes: violacoes(reservas),
  };
}

function violacoes(reservas: readonly Reserva[]): string[] {
  const achadas: string[] = [];
  if (new Set(reservas.map((r) => r.reserva)).size !== reservas.length) achadas.push('duas Tasks com a mesma reserva');
  const porSala = new Map<string, Reserva[]>();
  for (const reserva of reservas) porSala.set(reserva.sala, [...(porSala.get(reserva.sala) ?? []), reserva]);
  for (const [sala, lista] of porSala) {
    const ordenadas = lista.map((r) => ({ r, de: Date.parse(r.inicio), ate: Date.parse(r.fim) })).sort((a, b) => a.de - b.de);
    let antes: (typeof ordenadas)[number] | undefined;
    for (const depois of ordenadas) {
      if (antes && depois.de < antes.ate) achadas.push(`${sala}: ${antes.r.reserva} e ${depois.r.reserva} se sobrepoem`);
      antes = depois;
    }
  }
  return achadas;
}
