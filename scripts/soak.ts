/**
 * `npm run soak -- --seconds N [--clientes C] [--mcp N --agentes M --db postgres://...]`:
 * the processes on free ports, the bridge under load for N seconds, then
 * requests, errors, latency percentiles and agent memory. With --db, N MCP
 * servers (RESERVAS_DB) and M agents (TASKS_DB, each on its own MCP server)
 * share that database, clients are spread over every agent, and the end
 * checks the invariants in the database itself. Prints `violacoes: N` and
 * exits 1 if any invariant broke.
 *
 * `npm run soak -- --caos [...] [--pgdata DIR] [--sqlite] [--semente S]`:
 * the same load while processes are killed and frozen and the database
 * fails, then the rules of exactly-once checked in the databases (caos.ts).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { urlSemSenha } from 'compartilhado/ambiente';
import { idDaReserva } from '../servidor-mcp/src/dominio/regras.js';
import * as z from 'zod';
import { reservaDaTarefa, TarefaNoFio } from './a2a-cru.js';
import { carga, percentil, type Relatorio } from './carga.js';
import { problemaNasOpcoes, soakComCaos } from './caos.js';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, memoriaMiB, type Processo } from './processos.js';

/** A usage error: one line, exit 2. */
function uso(mensagem: string): never {
  process.stderr.write(`${mensagem}\n`);
  process.exit(2);
}

const USO =
  'uso: npm run soak -- --seconds N [--clientes C] [--mcp N --agentes M --db postgres://...] (mais de um processo de cada precisa de --db)';
const USO_DO_CAOS =
  'uso: npm run soak -- --caos [--seconds N] [--clientes C] [--mcp N --agentes M] [--db postgres://... [--pgdata PASTA]] [--sqlite] [--semente S]';

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        seconds: { type: 'string', default: '60' },
        clientes: { type: 'string', default: '16' },
        mcp: { type: 'string', default: '1' },
        agentes: { type: 'string', default: '1' },
        db: { type: 'string' },
        caos: { type: 'boolean', default: false },
        pgdata: { type: 'string' },
        sqlite: { type: 'boolean', default: false },
        semente: { type: 'string' },
      },
    });
  } catch (erro) {
    return uso(`${USO}; ${erro instanceof Error ? (erro.message.split('\n')[0] ?? '') : String(erro)}`);
  }
})();
const [segundos, clientes, quantosMcp, quantosAgentes] = [values.seconds, values.clientes, values.mcp, values.agentes].map(Number) as [
  number,
  number,
  number,
  number,
];
const inteiros = [segundos, clientes, quantosMcp, quantosAgentes].every((n) => Number.isInteger(n) && n > 0);

if (values.caos) {
  const semente = Number(values.semente ?? '7');
  if (!inteiros || !Number.isInteger(semente) || semente < 0) uso(`${USO_DO_CAOS} (numeros inteiros positivos)`);
  const opcoes = {
    segundos,
    clientes,
    mcp: quantosMcp,
    agentes: quantosAgentes,
    db: values.db,
    pgdata: values.pgdata,
    sqlite: values.sqlite,
    semente,
  };
  const problema = problemaNasOpcoes(opcoes);
  if (problema) uso(`uso: ${problema}`);
  process.exitCode = await soakComCaos(opcoes);
} else {
  const soCaos = (['pgdata', 'sqlite', 'semente'] as const).find((nome) => values[nome] !== undefined && values[nome] !== false);
  if (soCaos) uso(`uso: --${soCaos} so com --caos`);
  if (!inteiros || (!values.db && quantosMcp + quantosAgentes > 2)) uso(USO);
  await soak(values.db);
}

/** The invariants read from the database itself: every MCP server and agent wrote there. */
async function violacoesNoBanco(url: string): Promise<{ linhas: string[]; violacoes: string[] }> {
  const cliente = new pg.Client(url);
  await cliente.connect();
  try {
    /** Rows read through a schema: a table that is not what the check assumes fails here, loudly. */
    const consultar = async <T>(texto: string, linha: z.ZodType<T>): Promise<T[]> =>
      z.array(linha).parse((await cliente.query(texto)).rows);
    const sobrepostas = await consultar(
      `SELECT a.numero::int AS a, b.numero::int AS b, a.sala FROM reservas a JOIN reservas b
       ON a.sala = b.sala AND a.numero < b.numero AND a.periodo && b.periodo`,
      z.object({ a: z.number(), b: z.number(), sala: z.string() }),
    );
    const [contagem] = await consultar('SELECT count(*)::int AS total FROM reservas', z.object({ total: z.number() }));
    const concluidas = await consultar(
      `SELECT id, artifacts FROM tasks WHERE status_state = 'TASK_STATE_COMPLETED'`,
      z.object({ id: z.string(), artifacts: z.string() }),
    );
    // The SDK stores each Task's artifacts as their JSON text.
    const reservasDasTasks = concluidas.map(({ id, artifacts }) => {
      const artefatos: unknown = JSON.parse(artifacts);
      return reservaDaTarefa(TarefaNoFio.parse({ id, contextId: '', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: artefatos }));
    });
    const existentes = await consultar(
      'SELECT numero::int, sala, inicio, fim FROM reservas',
      z.object({ numero: z.number(), sala: z.string(), inicio: z.string(), fim: z.string() }),
    );
    const porId = new Map(existentes.map((r) => [idDaReserva(r.numero), r]));
    const ausentes = reservasDasTasks.filter((r) => {
      const achada = porId.get(r.reserva);
      return !achada || achada.sala !== r.sala || achada.inicio !== r.inicio || achada.fim !== r.fim;
    });
    const repetidas = reservasDasTasks.length - new Set(reservasDasTasks.map((r) => r.reserva)).size;
    return {
      linhas: [
        `no banco: ${contagem?.total ?? 0} reservas, ${sobrepostas.length} sobreposicoes; ${concluidas.length} Tasks COMPLETED, ${ausentes.length} sem a sua reserva, ${repetidas} reservas em mais de uma Task`,
      ],
      violacoes: [
        ...sobrepostas.map((s) => `${s.sala}: reservas ${s.a} e ${s.b} se sobrepoem no banco`),
        ...ausentes.map((r) => `Task COMPLETED com ${r.reserva} (${r.sala}), que nao esta no banco assim`),
        ...(repetidas > 0 ? [`${repetidas} reservas aparecem em mais de uma Task COMPLETED`] : []),
      ],
    };
  } finally {
    await cliente.end();
  }
}

async function soak(db: string | undefined): Promise<void> {
  const segredo = randomBytes(32).toString('hex');
  const processos: Processo[] = [];
  try {
    const bancoMcp: Record<string, string> = db ? { RESERVAS_DB: db } : {};
    const bancoAgente: Record<string, string> = db ? { TASKS_DB: db } : {};
    // One at a time: the first migrates and seeds, the others find it done (concurrent starts are tested apart).
    const servidores: Processo[] = [];
    for (let i = 0; i < quantosMcp; i++)
      servidores.push(await iniciar(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredo, ...bancoMcp }));
    processos.push(...servidores);
    const agentes: Processo[] = [];
    for (let i = 0; i < quantosAgentes; i++) {
      const servidor = servidores[i % quantosMcp];
      if (!servidor) throw new Error(`sem servidor MCP para o agente ${String(i)}`);
      agentes.push(await iniciar(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', MCP_URL: servidor.url, ...bancoAgente }));
    }
    processos.push(...agentes);

    const antes = agentes.map((agente) => memoriaMiB(agente.filho));
    const relatorio: Relatorio = await carga({ agentes: agentes.map((agente) => agente.url), segundos, clientes });
    const depois = agentes.map((agente) => memoriaMiB(agente.filho));
    const noBanco = db ? await violacoesNoBanco(db) : { linhas: [], violacoes: [] };
    const violacoes = [
      ...relatorio.violacoes,
      ...noBanco.violacoes,
      ...(relatorio.respostas5xx > 0 ? [`${relatorio.respostas5xx} respostas 5xx`] : []),
    ];
    const { rodadas, aplicadas, recusadas } = relatorio.concorrentes;
    const linhas = [
      `topologia: ${quantosMcp} servidor(es) MCP + ${quantosAgentes} agente(s), ${db ? `PostgreSQL ${urlSemSenha(db)}` : 'memoria'}`,
      `duracao: ${segundos}s, clientes: ${clientes}`,
      `requests A2A: ${relatorio.pedidos} (${(relatorio.pedidos / segundos).toFixed(0)}/s), erros: ${relatorio.erros.length}, respostas 5xx: ${relatorio.respostas5xx}`,
      `respostas simultaneas a uma pausa: ${rodadas} rodadas de varias respostas; ${aplicadas} aplicadas, ${recusadas} recusadas com -32004`,
      `latencia (ms): p50 ${percentil(relatorio.latencias, 50).toFixed(1)}, p90 ${percentil(relatorio.latencias, 90).toFixed(1)}, p99 ${percentil(relatorio.latencias, 99).toFixed(1)}, max ${Math.max(0, ...relatorio.latencias).toFixed(1)}`,
      `Tasks: ${Object.entries(relatorio.tarefas)
        .map(([estado, n]) => `${estado.replace('TASK_STATE_', '')} ${n}`)
        .join(', ')}`,
      `reservas vistas pelos clientes: ${relatorio.reservas.length}`,
      ...noBanco.linhas,
      `memoria dos agentes (RSS, MiB): ${antes.map((a, i) => `${a.toFixed(0)} -> ${(depois[i] ?? NaN).toFixed(0)}`).join(', ')}`,
      `violacoes: ${violacoes.length}`,
    ];
    process.stdout.write(`${linhas.join('\n')}\n`);
    for (const problema of [...relatorio.erros.slice(0, 5), ...violacoes.slice(0, 5)]) process.stdout.write(`  ${problema}\n`);
    process.exitCode = relatorio.erros.length + violacoes.length > 0 ? 1 : 0;
  } finally {
    await Promise.all(processos.map((processo) => processo.parar()));
  }
}
