/**
 * What `npm run soak -- --caos` judges a run by: the databases themselves,
 * not the replies clients got (those were cut short by the faults). Tasks
 * and their open steps come from TASKS_DB (PostgreSQL, or the agent's
 * SQLite file opened read-only), bookings from RESERVAS_DB; each rule names
 * the Tasks and rows that break it.
 */
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import * as z from 'zod';
import { idDaReserva } from '../servidor-mcp/src/dominio/regras.js';
import { Artefato, ReservaNoArtefato } from './a2a-cru.js';

export interface TarefaNoBanco {
  readonly id: string;
  readonly estado: string;
  /** The SDK's JSON text of the Task's artifacts, status and history. */
  readonly artifacts: string | null;
  readonly status: string | null;
  readonly history: string | null;
}

/** A row of a2a_pausas: unclaimed (a pause waiting for its answer) or claimed until `ate` (a step being run). */
export interface PassoNoBanco {
  readonly taskId: string;
  readonly ate: number | null;
}

export interface ReservaNoBanco {
  readonly numero: number;
  readonly sala: string;
  readonly inicio: string;
  readonly fim: string;
  readonly responsavel: string;
  /** `chave:<taskId>`, `estado:<sha256>`, or null (the bookings seeded from dados/reservas.json). */
  readonly chave: string | null;
  readonly criadaEm: string;
}

export interface Sobreposicao {
  readonly a: number;
  readonly b: number;
  readonly sala: string;
}

/** Tasks in WORKING/SUBMITTED and claimed steps: what the recovery must bring to zero. */
export interface EmAndamento {
  readonly tarefas: number;
  readonly reivindicados: number;
}

export interface LeitorDeTarefas {
  emAndamento(): Promise<EmAndamento>;
  ler(): Promise<{ tarefas: TarefaNoBanco[]; passos: PassoNoBanco[] }>;
}

const ANDAMENTO = ['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED'];
const TERMINAIS = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

const Contagem = z.object({ tarefas: z.coerce.number(), reivindicados: z.coerce.number() });
const LinhaDeTarefa = z.object({
  id: z.string(),
  estado: z.string(),
  artifacts: z.string().nullable(),
  status: z.string().nullable(),
  history: z.string().nullable(),
});
// PostgreSQL's bigint arrives as text, SQLite's integer as a number.
const LinhaDePasso = z.object({ taskId: z.string(), ate: z.coerce.number().nullable() });

const SQL = {
  emAndamento: `SELECT (SELECT count(*) FROM tasks WHERE status_state IN ('${ANDAMENTO.join("','")}')) AS tarefas,
                       (SELECT count(*) FROM a2a_pausas WHERE reivindicada_ate IS NOT NULL) AS reivindicados`,
  tarefas: 'SELECT id, status_state AS estado, artifacts, status, history FROM tasks',
  passos: 'SELECT task_id AS "taskId", reivindicada_ate AS ate FROM a2a_pausas',
};

/** Rows read through a schema: a table that is not what the check assumes fails here, loudly. */
const conforme = <T>(linha: z.ZodType<T>, linhas: unknown[]): T[] => z.array(linha).parse(linhas);

async function noPostgres<T>(url: string, consulta: (cliente: pg.Client) => Promise<T>): Promise<T> {
  // One connection per reading: the database may have been restarted since the last.
  const cliente = new pg.Client({ connectionString: url, application_name: 'soak', connectionTimeoutMillis: 5_000 });
  await cliente.connect();
  try {
    return await consulta(cliente);
  } finally {
    await cliente.end();
  }
}

export function tarefasNoPostgres(url: string): LeitorDeTarefas {
  return {
    emAndamento: () =>
      noPostgres(url, async (cliente) => {
        const [contagem] = conforme(Contagem, (await cliente.query(SQL.emAndamento)).rows);
        return contagem ?? { tarefas: 0, reivindicados: 0 };
      }),
    ler: () =>
      noPostgres(url, async (cliente) => ({
        tarefas: conforme(LinhaDeTarefa, (await cliente.query(SQL.tarefas)).rows),
        passos: conforme(LinhaDePasso, (await cliente.query(SQL.passos)).rows),
      })),
  };
}

/** The agent's SQLite file, read-only while the agent writes it; a write in progress is waited for, not failed on. */
export function tarefasNoSqlite(arquivo: string): LeitorDeTarefas {
  const lendo = <T>(consulta: (banco: Sqlite.Database) => T): Promise<T> => {
    const banco = new Sqlite(arquivo, { readonly: true, fileMustExist: true, timeout: 10_000 });
    try {
      return Promise.resolve(consulta(banco));
    } finally {
      banco.close();
    }
  };
  return {
    emAndamento: () =>
      lendo((banco) => {
        const [contagem] = conforme(Contagem, [banco.prepare(SQL.emAndamento).get()]);
        return contagem ?? { tarefas: 0, reivindicados: 0 };
      }),
    ler: () =>
      lendo((banco) => ({
        tarefas: conforme(LinhaDeTarefa, banco.prepare(SQL.tarefas).all()),
        passos: conforme(LinhaDePasso, banco.prepare(SQL.passos).all()),
      })),
  };
}

export async function reservasNoPostgres(url: string): Promise<{ reservas: ReservaNoBanco[]; sobrepostas: Sobreposicao[] }> {
  return noPostgres(url, async (cliente) => ({
    reservas: conforme(
      z.object({
        numero: z.number(),
        sala: z.string(),
        inicio: z.string(),
        fim: z.string(),
        responsavel: z.string(),
        chave: z.string().nullable(),
        criadaEm: z.string(),
      }),
      (
        await cliente.query(
          `SELECT numero::int, sala, inicio, fim, responsavel, chave,
                  to_char(criada_em AT TIME ZONE 'UTC', 'HH24:MI:SS.MS') AS "criadaEm" FROM reservas`,
        )
      ).rows,
    ),
    sobrepostas: conforme(
      z.object({ a: z.number(), b: z.number(), sala: z.string() }),
      (
        await cliente.query(
          `SELECT a.numero::int AS a, b.numero::int AS b, a.sala FROM reservas a JOIN reservas b
           ON a.sala = b.sala AND a.numero < b.numero AND a.periodo && b.periodo`,
        )
      ).rows,
    ),
  }));
}

const curto = (estado: string) => estado.replace('TASK_STATE_', '');
const instante = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().slice(11, 23));

/** The booking a Task's `reserva` artifact names, if it has one. */
function reservaNomeada(tarefa: TarefaNoBanco): ReservaNoArtefato | undefined {
  if (!tarefa.artifacts) return undefined;
  const artefato = z
    .array(Artefato)
    .parse(JSON.parse(tarefa.artifacts))
    .find((a) => a.name === 'reserva');
  const texto = artefato?.parts[0]?.text;
  return texto === undefined ? undefined : ReservaNoArtefato.parse(JSON.parse(texto));
}

const Mensagem = z.looseObject({ role: z.string(), parts: z.array(z.looseObject({ text: z.string().optional() })) });

/** The text of a Task's status message: why it failed, what it asks. */
function mensagemDe(tarefa: TarefaNoBanco | undefined): string {
  if (!tarefa?.status) return '';
  const texto = z.looseObject({ message: Mensagem.optional() }).parse(JSON.parse(tarefa.status)).message?.parts[0]?.text ?? '';
  // One line per violation: a question's text has several.
  return texto.replaceAll('\n', ' / ').slice(0, 200);
}

/** The client's first message to the Task: the request, as the load writes it (`reservar sala=... inicio=... responsavel=...`). */
function pedidoDe(tarefa: TarefaNoBanco): string {
  if (!tarefa.history) return '';
  const primeira = z
    .array(Mensagem)
    .parse(JSON.parse(tarefa.history))
    .find((mensagem) => mensagem.role === 'ROLE_USER');
  return primeira?.parts[0]?.text ?? '';
}

/**
 * A continuation's key (`estado:<sha256>`) does not name its Task: the
 * Tasks whose request asked for that period for that person are the
 * likely ones (an alternative changes the room, never the period), for
 * whoever investigates.
 */
function provaveis(reserva: ReservaNoBanco, tarefas: readonly TarefaNoBanco[]): string {
  const achadas = tarefas.filter((tarefa) => {
    const pedido = pedidoDe(tarefa);
    return pedido.includes(`inicio=${reserva.inicio} `) && pedido.endsWith(`responsavel=${reserva.responsavel}`);
  });
  if (achadas.length === 0) return 'chave de uma pausa, de Task nao encontrada';
  return `chave de uma pausa, provavelmente da ${achadas
    .slice(0, 3)
    .map((tarefa) => `Task ${tarefa.id} ${curto(tarefa.estado)}: "${mensagemDe(tarefa)}"`)
    .join('; ou da ')}`;
}

export const REGRAS = ['reserva fantasma', 'efeito duplicado', 'pausa perdida', 'Task presa', 'passo sem Task que o espere'] as const;
export type Regra = (typeof REGRAS)[number];

export interface Julgamento {
  readonly violacoes: Record<Regra, string[]>;
  readonly linhas: string[];
}

/**
 * The rules of the database's final state:
 *  - reserva fantasma: every booking with a key (made by the run) is named
 *    by exactly one COMPLETED Task's `reserva` artifact, with its room and
 *    period, by the Task whose id is the key when the key is a Task's; no
 *    Task that is not COMPLETED names a booking;
 *  - efeito duplicado: no booking named by two COMPLETED Tasks, no two
 *    bookings of one room overlapping;
 *  - pausa perdida: every INPUT_REQUIRED Task has its unclaimed step;
 *  - Task presa: no Task WORKING or SUBMITTED, no step claimed;
 *  - passo sem Task que o espere: an unclaimed step belongs to an
 *    INPUT_REQUIRED Task, a claimed one to an open Task.
 */
export function julgar(
  tarefas: readonly TarefaNoBanco[],
  passos: readonly PassoNoBanco[],
  { reservas, sobrepostas }: { reservas: readonly ReservaNoBanco[]; sobrepostas: readonly Sobreposicao[] },
): Julgamento {
  const violacoes: Record<Regra, string[]> = {
    'reserva fantasma': [],
    'efeito duplicado': [],
    'pausa perdida': [],
    'Task presa': [],
    'passo sem Task que o espere': [],
  };
  const porId = new Map(tarefas.map((tarefa) => [tarefa.id, tarefa]));
  const passoDe = new Map(passos.map((passo) => [passo.taskId, passo]));
  const reservaPorId = new Map(reservas.map((reserva) => [idDaReserva(reserva.numero), reserva]));
  /** booking id -> the COMPLETED Tasks naming it, and the others. */
  const nomeadaPor = new Map<string, string[]>();
  const nomeadaSemConcluir = new Map<string, TarefaNoBanco[]>();

  for (const tarefa of tarefas) {
    const nomeada = reservaNomeada(tarefa);
    if (!nomeada) continue;
    if (tarefa.estado !== 'TASK_STATE_COMPLETED') {
      nomeadaSemConcluir.set(nomeada.reserva, [...(nomeadaSemConcluir.get(nomeada.reserva) ?? []), tarefa]);
      // A booking made by the run is reported once, below, with this Task.
      if (reservaPorId.get(nomeada.reserva)?.chave == null)
        violacoes['reserva fantasma'].push(`Task ${tarefa.id} esta ${curto(tarefa.estado)} e nomeia ${nomeada.reserva}`);
      continue;
    }
    nomeadaPor.set(nomeada.reserva, [...(nomeadaPor.get(nomeada.reserva) ?? []), tarefa.id]);
    const linha = reservaPorId.get(nomeada.reserva);
    if (!linha || linha.sala !== nomeada.sala || linha.inicio !== nomeada.inicio || linha.fim !== nomeada.fim)
      violacoes['reserva fantasma'].push(
        `Task ${tarefa.id} (COMPLETED) nomeia ${nomeada.reserva} ${nomeada.sala} ${nomeada.inicio}..${nomeada.fim}, ` +
          (linha ? `mas no banco ela e ${linha.sala} ${linha.inicio}..${linha.fim}` : 'que nao esta no banco'),
      );
    else if (linha.chave === null) violacoes['reserva fantasma'].push(`Task ${tarefa.id} nomeia ${nomeada.reserva}, uma reserva sem chave`);
  }

  let comChave = 0;
  for (const reserva of reservas) {
    if (reserva.chave === null) continue;
    comChave += 1;
    const id = idDaReserva(reserva.numero);
    const nomes = nomeadaPor.get(id) ?? [];
    const daTask = reserva.chave.startsWith('chave:') ? reserva.chave.slice('chave:'.length) : undefined;
    const semConcluir = (nomeadaSemConcluir.get(id) ?? []).map(
      (tarefa) => `, nomeada pela Task ${tarefa.id}, que esta ${curto(tarefa.estado)}`,
    );
    if (semConcluir.length > 0 && nomes.length > 0)
      violacoes['reserva fantasma'].push(`${id}, nomeada pela Task COMPLETED ${nomes.join(', ')}${semConcluir.join('')}`);
    if (nomes.length === 0) {
      const dona = daTask === undefined ? undefined : porId.get(daTask);
      const quem =
        daTask === undefined
          ? provaveis(reserva, tarefas)
          : dona
            ? `Task ${daTask} ${curto(dona.estado)}: "${mensagemDe(dona)}"`
            : `Task ${daTask} nao esta no banco`;
      violacoes['reserva fantasma'].push(
        `${id} (${reserva.sala} ${reserva.inicio}, ${reserva.responsavel}, criada ${reserva.criadaEm} UTC, ${reserva.chave}) sem Task COMPLETED que a nomeie${semConcluir.join('')}; ${quem}`,
      );
    } else if (nomes.length > 1)
      violacoes['efeito duplicado'].push(`${id} nomeada por ${String(nomes.length)} Tasks COMPLETED: ${nomes.join(', ')}`);
    else if (daTask !== undefined && nomes[0] !== daTask)
      violacoes['reserva fantasma'].push(`${id} feita com a chave da Task ${daTask}, mas nomeada pela Task ${nomes.join('')}`);
  }
  violacoes['efeito duplicado'].push(
    ...sobrepostas.map((s) => `${s.sala}: reservas ${idDaReserva(s.a)} e ${idDaReserva(s.b)} se sobrepoem`),
  );

  for (const tarefa of tarefas) {
    const passo = passoDe.get(tarefa.id);
    if (tarefa.estado === 'TASK_STATE_INPUT_REQUIRED' && passo?.ate !== null)
      violacoes['pausa perdida'].push(
        `Task ${tarefa.id} INPUT_REQUIRED ${passo ? `com o passo reivindicado ate ${instante(passo.ate)}` : 'sem passo em a2a_pausas'}`,
      );
    if (ANDAMENTO.includes(tarefa.estado))
      violacoes['Task presa'].push(
        `Task ${tarefa.id} ${curto(tarefa.estado)} (${passo ? (passo.ate === null ? 'passo livre' : 'passo reivindicado') : 'sem passo'})`,
      );
  }
  for (const passo of passos) {
    const tarefa = porId.get(passo.taskId);
    const estado = tarefa ? curto(tarefa.estado) : 'ausente';
    // A WORKING/SUBMITTED Task was listed above, with its step.
    if (passo.ate !== null && !ANDAMENTO.includes(tarefa?.estado ?? ''))
      violacoes['Task presa'].push(`passo da Task ${passo.taskId} (${estado}) reivindicado ate ${instante(passo.ate)}`);
    const espera =
      passo.ate === null ? tarefa?.estado === 'TASK_STATE_INPUT_REQUIRED' : tarefa !== undefined && !TERMINAIS.has(tarefa.estado);
    if (!espera)
      violacoes['passo sem Task que o espere'].push(
        `passo ${passo.ate === null ? 'livre' : 'reivindicado'} da Task ${passo.taskId}, que esta ${estado}`,
      );
  }

  const porEstado: Record<string, number> = {};
  for (const tarefa of tarefas) porEstado[curto(tarefa.estado)] = (porEstado[curto(tarefa.estado)] ?? 0) + 1;
  return {
    violacoes,
    linhas: [
      `Tasks no banco: ${String(tarefas.length)} (${Object.entries(porEstado)
        .map(([estado, n]) => `${estado} ${String(n)}`)
        .join(', ')}); passos em a2a_pausas: ${String(passos.length)}`,
      `reservas no banco: ${String(reservas.length)}, ${String(comChave)} com chave (feitas por Tasks), ${String(nomeadaPor.size)} nomeadas por Tasks COMPLETED`,
    ],
  };
}
