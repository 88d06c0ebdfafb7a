/**
 * Load through the whole bridge: virtual clients booking rooms over A2A,
 * answering pauses (or refusing), until time runs out. It checks the
 * invariants that must hold under concurrency: no 5xx or JSON-RPC error,
 * every Task driven to a terminal state, every booking its own artifact,
 * and no two bookings of one room overlapping.
 */
import { randomUUID } from 'node:crypto';

export interface OpcoesDeCarga {
  readonly agente: string;
  readonly segundos: number;
  readonly clientes: number;
  readonly semente?: number;
}

export interface Reserva {
  readonly reserva: string;
  readonly sala: string;
  readonly inicio: string;
  readonly fim: string;
}

export interface Relatorio {
  readonly pedidos: number;
  readonly erros: string[];
  /** Milliseconds per A2A request, in arrival order. */
  readonly latencias: number[];
  readonly tarefas: Record<string, number>;
  readonly reservas: Reserva[];
  readonly violacoes: string[];
}

const SALAS = ['sala-aquario', 'sala-porao', 'sala-garagem', 'sala-fusca', 'sala-mirante'];
const MAXIMO_DE_PAUSAS_SEGUIDAS = 3;
/** Few enough days that rooms collide and pause often, enough that the agenda does not fill up. */
const DIAS = 20;

/** A small seeded generator: the same seed gives the same choices. */
function aleatorio(semente: number) {
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
  if (valores.length === 0) return 0;
  const ordenados = [...valores].sort((a, b) => a - b);
  return ordenados[Math.min(ordenados.length - 1, Math.floor((p / 100) * ordenados.length))]!;
}

export async function carga({ agente, segundos, clientes, semente = 7 }: OpcoesDeCarga): Promise<Relatorio> {
  const fim = Date.now() + segundos * 1000;
  const latencias: number[] = [];
  const erros: string[] = [];
  const tarefas: Record<string, number> = {};
  const reservas: Reserva[] = [];

  async function enviar(texto: string, taskId?: string): Promise<any | undefined> {
    const comeco = performance.now();
    try {
      const resposta = await fetch(`${agente}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: texto }], ...(taskId ? { taskId } : {}) } } }),
      });
      const corpo = await resposta.json();
      latencias.push(performance.now() - comeco);
      if (resposta.status !== 200 || corpo.error) {
        erros.push(`${resposta.status} ${JSON.stringify(corpo.error ?? corpo).slice(0, 200)}`);
        return undefined;
      }
      return corpo.result.task;
    } catch (erro) {
      erros.push(`falha de rede: ${erro instanceof Error ? erro.message : String(erro)}`);
      return undefined;
    }
  }

  async function cliente(indice: number): Promise<void> {
    const sortear = aleatorio(semente * 1000 + indice);
    while (Date.now() < fim) {
      const sala = SALAS[Math.floor(sortear() * SALAS.length)]!;
      const dia = `2028-01-${String(1 + Math.floor(sortear() * DIAS)).padStart(2, '0')}`;
      const hora = String(8 + Math.floor(sortear() * 11)).padStart(2, '0');
      let task = await enviar(`reservar sala=${sala} inicio=${dia}T${hora}:00:00-03:00 fim=${dia}T${hora}:59:00-03:00 responsavel=Cliente ${indice}`);
      for (let pausas = 0; task?.status?.state === 'TASK_STATE_INPUT_REQUIRED'; pausas++) {
        const alternativas = String(task.status.message.parts[0].text).replace('alternativas: ', '').split(', ');
        const escolha = pausas >= MAXIMO_DE_PAUSAS_SEGUIDAS || sortear() < 0.2 ? 'recusar' : alternativas[Math.floor(sortear() * alternativas.length)];
        task = await enviar(`escolha=${escolha}`, task.id);
      }
      if (!task) continue;
      tarefas[task.status.state] = (tarefas[task.status.state] ?? 0) + 1;
      if (task.status.state === 'TASK_STATE_COMPLETED') reservas.push(JSON.parse(task.artifacts[0].parts[0].text));
    }
  }

  await Promise.all(Array.from({ length: clientes }, (_, i) => cliente(i)));
  return { pedidos: latencias.length, erros, latencias, tarefas, reservas, violacoes: violacoes(reservas) };
}

function violacoes(reservas: readonly Reserva[]): string[] {
  const achadas: string[] = [];
  if (new Set(reservas.map((r) => r.reserva)).size !== reservas.length) achadas.push('duas Tasks com a mesma reserva');
  const porSala = new Map<string, Reserva[]>();
  for (const reserva of reservas) porSala.set(reserva.sala, [...(porSala.get(reserva.sala) ?? []), reserva]);
  for (const [sala, lista] of porSala) {
    const ordenadas = lista.map((r) => ({ r, de: Date.parse(r.inicio), ate: Date.parse(r.fim) })).sort((a, b) => a.de - b.de);
    for (let i = 1; i < ordenadas.length; i++) {
      if (ordenadas[i]!.de < ordenadas[i - 1]!.ate) achadas.push(`${sala}: ${ordenadas[i - 1]!.r.reserva} e ${ordenadas[i]!.r.reserva} se sobrepoem`);
    }
  }
  return achadas;
}
