/**
 * Transactions per request on the agent's Tasks database (issue 31),
 * counted from PostgreSQL's own statement log: every statement is logged
 * with its session and virtual transaction id, so the distinct ids of the
 * agent's connections between two marker statements are exactly the
 * transactions of what ran between them. pg_stat_database is no use here:
 * its counters reach the view up to a second late.
 *
 * Each request gets an agent of its own, started (its LISTEN connection
 * open) before the first marker and stopped, every session of it ended,
 * before the second. The SDK sends push notifications after it answers
 * (one read of the Task's push configs per event, queued per Task), so
 * the answer is no sign that the request's work is over; a stopped agent
 * is, since it waits for those deliveries before it exits, and an ended
 * session has logged every statement it was sent. The MCP server's
 * bookings sit in a database of their own on the same cluster, counted
 * apart.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import pg from 'pg';
import * as z from 'zod';
import { CorpoA2A, tarefaDo, type TarefaNoFio } from './a2a-cru.js';
import { idsDasSalas, vaga } from './dados.js';
import { esperarNoArquivo, iniciarPostgres } from './postgres.js';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, type Processo } from './processos.js';

/** The kinds of request measured: a booking that completes at once, one that pauses, and the answer to that pause. */
export const TIPOS = {
  livre: 'SendMessage que completa sem pausar (sala livre)',
  pausa: 'SendMessage que pausa (sala ocupada -> TASK_STATE_INPUT_REQUIRED)',
  resposta: 'resposta a pausa (escolha de uma alternativa, completa)',
} as const;
export type Tipo = keyof typeof TIPOS;

/**
 * What a transaction of the agent was: its turn on a Task (exclusao.ts: a transaction that only holds the
 * advisory lock while a step runs), a save (a transaction block of its stores: Task, step and event log),
 * a read (one statement alone, in its own implicit transaction), or its LISTEN connection (campainha.ts).
 */
export type Papel = 'vez' | 'gravacao' | 'leitura' | 'escuta';
const PAPEIS: readonly Papel[] = ['vez', 'gravacao', 'leitura', 'escuta'];

export interface Transacao {
  readonly papel: Papel;
  /** The first line of each statement, in order. */
  readonly comandos: readonly string[];
}

export interface Medida {
  /** The agent's transactions on the Tasks database, in the order they began. */
  readonly tarefas: readonly Transacao[];
  /** How many transactions the MCP server ran on the bookings database. */
  readonly reservas: number;
}

const BANCO_DE_TAREFAS = 'tarefas';
const BANCO_DE_RESERVAS = 'reservas';
const DA_ESCUTA = 'agente-eventos';
const doAgente = (aplicacao: string) => aplicacao === 'agente' || aplicacao === DA_ESCUTA;

/**
 * Every statement logged, each line prefixed `@@session|virtual transaction|application|database|`,
 * and each session's end. Bind parameters are left out: only the statements are read.
 */
const AJUSTES = {
  log_statement: 'all',
  log_disconnections: 'on',
  log_line_prefix: '@@%c|%v|%a|%d|',
  log_parameter_max_length: '0',
};
const LINHA = /^@@([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|LOG: {2}(.*)$/;
const COMANDO = /^(?:statement|execute [^:]*): /;

interface Registro {
  readonly sessao: string;
  readonly transacao: string;
  readonly aplicacao: string;
  readonly banco: string;
  /** A statement's text (its further lines included), or undefined for the session's end. */
  comando: string | undefined;
}

/** The statements and session ends of a log text; a message's further lines (tab-indented) belong to the one before. */
function registrosDo(texto: string): Registro[] {
  const registros: Registro[] = [];
  let ultimo: Registro | undefined;
  for (const linha of texto.split('\n')) {
    const [, sessao = '', virtual = '', aplicacao = '', banco = '', mensagem] = LINHA.exec(linha) ?? [];
    if (mensagem !== undefined && (COMANDO.test(mensagem) || mensagem.startsWith('disconnection:'))) {
      const comando = COMANDO.test(mensagem) ? mensagem.replace(COMANDO, '') : undefined;
      ultimo = { sessao, transacao: `${sessao}/${virtual}`, aplicacao, banco, comando };
      registros.push(ultimo);
    } else if (linha.startsWith('\t') && ultimo?.comando !== undefined) ultimo.comando += `\n${linha.slice(1)}`;
    else ultimo = undefined;
  }
  return registros;
}

/**
 * Every session the agent ran a statement on has ended: its backend logged
 * all it received first, so no statement of the agent can follow.
 */
function sessoesDoAgenteEncerradas(texto: string): boolean {
  const registros = registrosDo(texto).filter((registro) => doAgente(registro.aplicacao));
  const encerradas = new Set(registros.filter((registro) => registro.comando === undefined).map((registro) => registro.sessao));
  return registros.every((registro) => encerradas.has(registro.sessao));
}

const primeiraLinha = (comando: string) =>
  comando
    .split('\n')
    .map((linha) => linha.trim())
    .find((linha) => linha !== '') ?? '';

function papelDe(aplicacao: string, comandos: readonly string[]): Papel {
  if (aplicacao === DA_ESCUTA) return 'escuta';
  const [primeiro = ''] = comandos;
  if (primeiro.startsWith('BEGIN; SET LOCAL lock_timeout')) return 'vez';
  return primeiro.toLowerCase() === 'begin' ? 'gravacao' : 'leitura';
}

/** The transactions of the statements between the two markers, one per virtual transaction id. */
function medidaEntre(texto: string, inicio: string, fim: string): Medida {
  const comandos = registrosDo(texto).filter((registro) => registro.comando !== undefined);
  const de = comandos.findIndex((registro) => registro.comando?.includes(inicio));
  const ate = comandos.findIndex((registro) => registro.comando?.includes(fim));
  if (de < 0 || ate < de) throw new Error(`marcadores ${inicio} e ${fim} fora de ordem no log do PostgreSQL`);
  const janela = comandos.slice(de + 1, ate);
  const transacoes = new Map<string, { aplicacao: string; comandos: string[] }>();
  for (const { transacao, aplicacao, banco, comando = '' } of janela) {
    if (banco !== BANCO_DE_TAREFAS || !doAgente(aplicacao)) continue;
    const lida = transacoes.get(transacao) ?? { aplicacao, comandos: [] };
    lida.comandos.push(primeiraLinha(comando));
    transacoes.set(transacao, lida);
  }
  return {
    tarefas: [...transacoes.values()].map(({ aplicacao, comandos }) => ({ papel: papelDe(aplicacao, comandos), comandos })),
    reservas: new Set(janela.filter((registro) => registro.banco === BANCO_DE_RESERVAS).map((registro) => registro.transacao)).size,
  };
}

const enviar = async (agente: Processo, texto: string, taskId?: string): Promise<TarefaNoFio> => {
  const resposta = await fetch(new URL('/a2a', agente.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: randomUUID(),
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: texto }], ...(taskId ? { taskId } : {}) } },
    }),
  });
  return tarefaDo(CorpoA2A.parse(await resposta.json()));
};

function esperarEstado(task: TarefaNoFio, estado: string): TarefaNoFio {
  if (task.status.state !== estado) throw new Error(`esperado ${estado}, veio ${task.status.state}: ${JSON.stringify(task.status)}`);
  return task;
}

/** The rooms a pause offers, from its status message's data part (salas/perfil.ts). */
const Alternativas = z.looseObject({ alternativas: z.array(z.string()).nonempty() });
const alternativasDa = (pausa: TarefaNoFio) =>
  Alternativas.parse(pausa.status.message?.parts.find((parte) => parte.data)?.data).alternativas;

export interface Contagem {
  /** Each round's measure of each kind, in the order run. */
  readonly rodadas: readonly Record<Tipo, Medida>[];
}

/**
 * `rodadas` times: a free booking, the same slot again (taken by the
 * first: a pause), and the pause's first alternative chosen; each of the
 * three requests measured alone.
 */
export async function contarTransacoes(rodadas = 1): Promise<Contagem> {
  const postgres = await iniciarPostgres({ ajustes: AJUSTES, arquivoDeLog: true });
  const log = postgres.log;
  if (!log) throw new Error('o PostgreSQL subiu sem arquivo de log');
  const processos: Processo[] = [];
  const marcador = new pg.Client({ connectionString: postgres.url, application_name: 'transacoes-marcador' });
  try {
    const [tasksDb, reservasDb] = [await postgres.novoBanco(BANCO_DE_TAREFAS), await postgres.novoBanco(BANCO_DE_RESERVAS)];
    await marcador.connect();
    const mcp = await iniciar(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: randomUUID(), RESERVAS_DB: reservasDb });
    processos.push(mcp);
    // The sweep's interval at its longest, so no pass of it falls inside a measure.
    const ambiente = { AGENTE_PORT: '0', MCP_URL: mcp.url, TASKS_DB: tasksDb, AGENTE_SWEEP_SECONDS: '600' };

    const medir = async <T>(pedido: (agente: Processo) => Promise<T>): Promise<{ resultado: T; medida: Medida }> => {
      const desde = statSync(log).size;
      const agente = await iniciar(ARQUIVO_DO_AGENTE, ambiente);
      processos.push(agente);
      // The LISTEN connection opens after the agent is up: its LISTEN belongs to the start, not to the request.
      const saiu = new Promise((resolver) => agente.filho.once('exit', resolver));
      await esperarNoArquivo(log, desde, new RegExp(`\\|${DA_ESCUTA}\\|${BANCO_DE_TAREFAS}\\|LOG: {2}statement: LISTEN`), saiu);
      const id = randomUUID();
      await marcador.query(`SELECT 'inicio ${id}'`);
      const resultado = await pedido(agente);
      await agente.parar();
      await esperarNoArquivo(log, desde, sessoesDoAgenteEncerradas);
      await marcador.query(`SELECT 'fim ${id}'`);
      return { resultado, medida: medidaEntre(readFileSync(log, 'utf8'), `inicio ${id}`, `fim ${id}`) };
    };

    const medidas: Record<Tipo, Medida>[] = [];
    for (let rodada = 0; rodada < rodadas; rodada++) {
      // Each round an hour of its own: the alternative chosen in one round books another room at its hour.
      const { sala, inicio, fim } = vaga(rodada * idsDasSalas.length, '2031-01-01', 30);
      const reserva = `reservar sala=${sala} inicio=${inicio} fim=${fim} responsavel=Transacoes`;
      const livre = await medir(async (agente) => esperarEstado(await enviar(agente, reserva), 'TASK_STATE_COMPLETED'));
      const pausa = await medir(async (agente) => esperarEstado(await enviar(agente, reserva), 'TASK_STATE_INPUT_REQUIRED'));
      const [escolha] = alternativasDa(pausa.resultado);
      const resposta = await medir(async (agente) =>
        esperarEstado(await enviar(agente, `escolha=${escolha}`, pausa.resultado.id), 'TASK_STATE_COMPLETED'),
      );
      medidas.push({ livre: livre.medida, pausa: pausa.medida, resposta: resposta.medida });
    }
    return { rodadas: medidas };
  } finally {
    await marcador.end().catch(() => undefined);
    await Promise.all(processos.map((processo) => processo.parar()));
    await postgres.parar();
  }
}

/** The median round's measure of a kind (by its Tasks count). */
export function medidaMediana(contagem: Contagem, tipo: Tipo): Medida {
  const ordenadas = contagem.rodadas.map((rodada) => rodada[tipo]).sort((a, b) => a.tarefas.length - b.tarefas.length);
  const meio = ordenadas[Math.floor(ordenadas.length / 2)];
  if (!meio) throw new Error('nenhuma rodada medida');
  return meio;
}

/** Each kind's transactions (of `tipos`), numbered, with their role and statements: where a request's transactions go. */
export function detalhar(contagem: Contagem, tipos = Object.keys(TIPOS) as Tipo[]): string {
  return tipos
    .map((tipo) => {
      const medida = medidaMediana(contagem, tipo);
      const porPapel = PAPEIS.map(
        (papel) => `${papel} ${String(medida.tarefas.filter((transacao) => transacao.papel === papel).length)}`,
      ).join(', ');
      return [
        `${tipo}: ${TIPOS[tipo]}: ${String(medida.tarefas.length)} transacoes no banco de Tasks (${porPapel}); ` +
          `${String(medida.reservas)} no banco de reservas; por rodada: ${contagem.rodadas.map((rodada) => String(rodada[tipo].tarefas.length)).join(' ')}`,
        ...medida.tarefas.map((transacao, i) => `  ${String(i + 1).padStart(2)}. [${transacao.papel}] ${transacao.comandos.join(' ; ')}`),
      ].join('\n');
    })
    .join('\n\n');
}
