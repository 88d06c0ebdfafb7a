/**
 * `npm run soak -- --caos`: the soak's load while faults are injected
 * (faltas.ts: kill -9 of an agent or an MCP server, an MCP server frozen,
 * database connections terminated, the database stopped), then a recovery
 * window, then the rules checked in the databases themselves
 * (invariantes.ts), the way a Jepsen-style check judges a system by its
 * history. Client failures during faults are counted by kind: they are
 * what faults do, not violations.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as dormir } from 'node:timers/promises';
import pg from 'pg';
import { urlSemSenha } from 'compartilhado/ambiente';
import { carga, percentil, type Resposta5xx } from './carga.js';
import {
  caos,
  DESCRICAO,
  duracaoDeUmaRodada,
  tiposPossiveis,
  TIPOS,
  Vaga,
  type BancoControlavel,
  type Duracoes,
  type FaltaFeita,
  type OpcoesDoCaos,
  type TipoDeFalta,
} from './faltas.js';
import {
  julgar,
  REGRAS,
  reservasNoPostgres,
  tarefasNoPostgres,
  tarefasNoSqlite,
  type EmAndamento,
  type LeitorDeTarefas,
} from './invariantes.js';
import { comando, iniciarPostgres, type Postgres } from './postgres.js';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP } from './processos.js';

export interface OpcoesDoSoakComCaos {
  readonly segundos: number;
  readonly clientes: number;
  readonly mcp: number;
  readonly agentes: number;
  /** RESERVAS_DB (and TASKS_DB without --sqlite); absent: a throwaway cluster. */
  readonly db: string | undefined;
  /** The data folder of the server behind --db, for pg_ctl to stop and start it. */
  readonly pgdata: string | undefined;
  /** One agent with its Tasks in a SQLite file. */
  readonly sqlite: boolean;
  readonly semente: number;
}

/** Short, so a booking that got no answer is replayed within seconds; the agents' own minimum is 1. */
const AMBIENTE_DOS_AGENTES = { AGENTE_MCP_TIMEOUT_SECONDS: '2', AGENTE_SWEEP_SECONDS: '1' };
const PRAZO_DO_MCP_MS = Number(AMBIENTE_DOS_AGENTES.AGENTE_MCP_TIMEOUT_SECONDS) * 1000;
/** The agents' claim on a step (limites.ts: 3 x the MCP timeout + 5 s): a killed agent's step is replayed after it. */
const REIVINDICACAO_MS = 3 * PRAZO_DO_MCP_MS + 5_000;
/** Longer than an agent waits for MCP: its calls time out and stay WORKING, to be replayed. */
const DURACOES: Duracoes = { congelamentoMs: 2 * PRAZO_DO_MCP_MS + 1_000, paradaDoBancoMs: 10_000 };
/** A client's request is given up after this: longer than an agent's turn wait (30 s) would be kinder, shorter keeps a 60 s run moving. */
const PRAZO_DO_CLIENTE_MS = 20_000;
const CHANCE_DE_CANCELAR = 0.15;
/** After a request with no reply (an agent down), a client waits this long before its next. */
const ESPERA_APOS_FALHA_MS = 100;
/** The recovery window's bound, and how often it reads the database. */
const RECUPERACAO_MS = 90_000;
const LEITURA_MS = 1_000;
/** A 5xx whose request overlapped a fault, or ended this soon after it was undone, is the fault's. */
const MARGEM_DO_5XX_MS = 1_000;
/** Violations listed per rule (all are counted). */
const LISTADAS = 10;

/** The hosts this run may inject faults into: its own machine only. */
export const ehLoopback = (url: string): boolean => {
  const host = new URL(url).hostname;
  return ['', 'localhost', '127.0.0.1', '[::1]', '::1'].includes(host) || host.startsWith('127.');
};

/** A program run to its end without blocking the event loop (the load goes on meanwhile). */
function executar(programa: string, args: string[]): Promise<void> {
  return new Promise((resolver, rejeitar) => {
    const filho = spawn(programa, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let saida = '';
    filho.stdout.on('data', (parte: Buffer) => (saida += parte.toString()));
    filho.stderr.on('data', (parte: Buffer) => (saida += parte.toString()));
    filho.once('error', rejeitar);
    filho.once('close', (codigo) => {
      if (codigo === 0) resolver();
      else rejeitar(new Error(`${args.join(' ')} saiu com ${String(codigo)}: ${saida.trim()}`));
    });
  });
}

/**
 * A server this run did not start, stopped and started with pg_ctl. It is
 * started with the options it was last started with (postmaster.opts: port,
 * sockets, config file), which `pg_ctl start` alone would not use.
 */
function clusterExterno(pgdata: string, log: string): BancoControlavel {
  const pgCtl = (args: string[]) => executar(...comando('pg_ctl', args));
  let opcoes = '';
  return {
    async desligar() {
      // Its -D goes too: pg_ctl adds its own, and postmaster.opts would gain one more at every restart.
      opcoes = readFileSync(join(pgdata, 'postmaster.opts'), 'utf8')
        .trim()
        .replace(/^\S+\s*/, '')
        .replace(/"-D"\s+"[^"]*"\s*/g, '');
      await pgCtl(['stop', '-D', pgdata, '-m', 'fast', '-w']);
    },
    ligar: () => pgCtl(['start', '-D', pgdata, '-w', '-t', '60', '-l', log, '-o', opcoes]),
  };
}

/** Whether the database answers now. */
async function respondeSql(url: string): Promise<boolean> {
  const cliente = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000, application_name: 'soak' });
  try {
    await cliente.connect();
    await cliente.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await cliente.end().catch(() => undefined);
  }
}

const segundos = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const mensagem = (erro: unknown) => (erro instanceof Error ? erro.message : String(erro));

interface Banco {
  readonly url: string;
  /** undefined: this run cannot stop it. */
  readonly controle: BancoControlavel | undefined;
  /** The cluster this run started, removed at the end. */
  readonly descartavel: Postgres | undefined;
}

/** The database of the run: --db (stopped through pg_ctl with --pgdata), or a throwaway cluster. */
async function prepararBanco(opcoes: OpcoesDoSoakComCaos, pasta: string): Promise<Banco> {
  if (opcoes.db === undefined) {
    const descartavel = await iniciarPostgres();
    return { url: descartavel.url, controle: descartavel, descartavel };
  }
  if (opcoes.pgdata === undefined) return { url: opcoes.db, controle: undefined, descartavel: undefined };
  const log = join(pasta, 'postgres.log');
  writeFileSync(log, '');
  // pg_ctl writes it as the postgres user when we are root; not through writeFileSync's mode, which the umask trims.
  chmodSync(log, 0o666);
  return { url: opcoes.db, controle: clusterExterno(opcoes.pgdata, log), descartavel: undefined };
}

/** N MCP servers on the bookings database, then M agents, agent i on server i mod N; each in `vagas` as soon as it runs. */
async function subir(
  opcoes: OpcoesDoSoakComCaos,
  { url, tasksDb, pasta }: { url: string; tasksDb: string; pasta: string },
  vagas: Vaga[],
): Promise<{ servidores: Vaga[]; agentes: Vaga[] }> {
  const segredo = randomBytes(32).toString('hex');
  const servidores: Vaga[] = [];
  // One at a time: the first migrates and seeds, the others find it done.
  for (let i = 1; i <= opcoes.mcp; i++) {
    const nome = `mcp-${String(i)}`;
    const env = { REQUEST_STATE_SECRET: segredo, RESERVAS_DB: url };
    const servidor = await Vaga.iniciar(nome, ARQUIVO_DO_MCP, env, 'MCP_PORT', join(pasta, `${nome}.log`));
    servidores.push(servidor);
    vagas.push(servidor);
  }
  const agentes: Vaga[] = [];
  for (let i = 1; i <= opcoes.agentes; i++) {
    const servidor = servidores[(i - 1) % servidores.length];
    if (!servidor) throw new Error('sem servidor MCP');
    const nome = `agente-${String(i)}`;
    const env = { MCP_URL: servidor.url, TASKS_DB: tasksDb, ...AMBIENTE_DOS_AGENTES };
    const agente = await Vaga.iniciar(nome, ARQUIVO_DO_AGENTE, env, 'AGENTE_PORT', join(pasta, `${nome}.log`));
    agentes.push(agente);
    vagas.push(agente);
  }
  return { servidores, agentes };
}

/** The recovery window: the database read every second until nothing is running, or the bound. */
async function recuperar(leitor: LeitorDeTarefas): Promise<{ ms: number; andamento: EmAndamento | undefined; erro: string }> {
  const comeco = Date.now();
  let andamento: EmAndamento | undefined;
  let erro = '';
  while (Date.now() - comeco < RECUPERACAO_MS) {
    andamento = await leitor.emAndamento().catch((motivo: unknown) => {
      erro = mensagem(motivo);
      return undefined;
    });
    if (andamento?.tarefas === 0 && andamento.reivindicados === 0) break;
    await dormir(LEITURA_MS);
  }
  return { ms: Date.now() - comeco, andamento, erro };
}

const porTipo = (contagem: Record<string, number>) =>
  Object.entries(contagem)
    .sort(([, a], [, b]) => b - a)
    .map(([tipo, n]) => `${tipo} ${String(n)}`)
    .join(', ') || 'nenhuma';

/** Runs the chaos soak and answers the exit code: 1 when any rule broke. */
export async function soakComCaos(opcoes: OpcoesDoSoakComCaos): Promise<number> {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-caos-'));
  // pg_ctl runs as the postgres user when we are root, and writes its log here.
  chmodSync(pasta, 0o755);
  const vagas: Vaga[] = [];
  const controle = new AbortController();
  let descartavel: Postgres | undefined;
  let limpeza: Promise<void> | undefined;
  const limpar = () =>
    (limpeza ??= (async () => {
      controle.abort();
      // Agents first: they would log every MCP server's exit as a failure.
      for (const vaga of [...vagas].reverse()) await vaga.encerrar().catch(() => undefined);
      await descartavel?.parar();
    })());
  // Ctrl-C stops the processes and removes the cluster too.
  const interromper = () => void limpar().finally(() => process.exit(130));
  process.once('SIGINT', interromper);
  process.once('SIGTERM', interromper);

  try {
    const banco = await prepararBanco(opcoes, pasta);
    descartavel = banco.descartavel;
    const { url } = banco;
    const arquivoDeTarefas = opcoes.sqlite ? join(pasta, 'tasks.db') : undefined;
    const { servidores, agentes } = await subir(opcoes, { url, tasksDb: arquivoDeTarefas ?? url, pasta }, vagas);

    const inicio = Date.now();
    const doCaos: OpcoesDoCaos = {
      semente: opcoes.semente,
      ate: inicio + opcoes.segundos * 1000,
      maximo: Math.floor(opcoes.segundos / 3),
      ...DURACOES,
    };
    const ambiente = Object.entries(AMBIENTE_DOS_AGENTES)
      .map(([nome, valor]) => `${nome}=${valor}`)
      .join(' ');
    const cabecalho = [
      `topologia: ${String(opcoes.mcp)} servidor(es) MCP + ${String(opcoes.agentes)} agente(s); reservas em PostgreSQL ${urlSemSenha(url)}${descartavel ? ' (cluster descartavel)' : ''}, Tasks ${arquivoDeTarefas ? `em SQLite ${arquivoDeTarefas}` : 'no mesmo banco'}`,
      `caos: semente ${String(opcoes.semente)}, ate ${String(doCaos.maximo)} faltas; agentes com ${ambiente} (passo reivindicado por ${segundos(REIVINDICACAO_MS)}); MCP congelado ${segundos(DURACOES.congelamentoMs)}, banco parado ${segundos(DURACOES.paradaDoBancoMs)}; prazo de cada pedido dos clientes ${segundos(PRAZO_DO_CLIENTE_MS)}, ${String(CHANCE_DE_CANCELAR * 100)}% das pausas canceladas`,
      ...(banco.controle
        ? []
        : ['nota: --db sem --pgdata: este soak nao controla o servidor do banco, e a falta "banco parado" fica de fora']),
      `logs dos processos: ${pasta}`,
      `duracao: ${String(opcoes.segundos)}s, clientes: ${String(opcoes.clientes)}`,
    ];
    process.stdout.write(`${cabecalho.join('\n')}\n`);

    const faltas = caos({ agentes, servidores, urlDoBanco: url, banco: banco.controle }, doCaos, controle.signal);
    const relatorio = await carga({
      agentes: agentes.map((agente) => agente.url),
      segundos: opcoes.segundos,
      clientes: opcoes.clientes,
      semente: opcoes.semente,
      prazoMs: PRAZO_DO_CLIENTE_MS,
      chanceDeCancelar: CHANCE_DE_CANCELAR,
      esperaAposFalhaMs: ESPERA_APOS_FALHA_MS,
    });
    const { feitas, reanimadas } = await faltas;
    const fimDaCarga = Date.now();

    // Everything up before the window: a fault left undone, or a process that died by itself, is brought back (and reported).
    const naoDesfeitas = [
      ...feitas.flatMap((falta) => (falta.erro === undefined ? [] : [`${DESCRICAO[falta.tipo]}: ${falta.erro}`])),
      ...reanimadas.flatMap((r) => (r.erro === undefined ? [] : [`${r.nome} nao voltou: ${r.erro}`])),
    ];
    if (banco.controle && !(await respondeSql(url)))
      await banco.controle.ligar().catch((erro: unknown) => naoDesfeitas.push(`o banco nao voltou: ${mensagem(erro)}`));
    const bancoNoAr = await respondeSql(url);
    for (const vaga of vagas.filter((v) => !v.vivo()))
      await vaga.reiniciar().catch((erro: unknown) => naoDesfeitas.push(`${vaga.nome} nao voltou: ${mensagem(erro)}`));

    const leitor = arquivoDeTarefas ? tarefasNoSqlite(arquivoDeTarefas) : tarefasNoPostgres(url);
    // Without the database there is nothing to judge by: that is reported (falta nao desfeita), not guessed around.
    const janela = bancoNoAr ? await recuperar(leitor) : undefined;
    const lido = bancoNoAr ? await leitor.ler() : undefined;
    const julgamento = lido
      ? julgar(lido.tarefas, lido.passos, await reservasNoPostgres(url))
      : { ...julgar([], [], { reservas: [], sobrepostas: [] }), linhas: ['banco fora do ar: as regras do banco nao foram verificadas'] };

    // A process down: a fault, or a crash until the process was brought back.
    const janelas = [...feitas.map((f) => ({ de: f.inicio, ate: f.fim })), ...reanimadas];
    const durante = (resposta: Resposta5xx) =>
      janelas.some((janela) => resposta.inicio <= janela.ate + MARGEM_DO_5XX_MS && resposta.fim >= janela.de);
    const foraDeFalta = relatorio.lista5xx.filter((resposta) => !durante(resposta));
    const mais = (ms: number) => `+${segundos(ms - inicio)}`;
    const violacoes: Record<string, string[]> = {
      ...julgamento.violacoes,
      'efeito duplicado': [...julgamento.violacoes['efeito duplicado'], ...relatorio.violacoes.map((v) => `visto pelos clientes: ${v}`)],
      queda: vagas.flatMap((vaga) => vaga.quedas),
      '5xx fora de falta': foraDeFalta.map(
        (r) => `${String(r.status)} de ${r.agente} para ${r.metodo} em ${mais(r.inicio)}..${mais(r.fim)}: ${r.corpo}`,
      ),
      'falta nao desfeita': naoDesfeitas,
    };
    const total = Object.values(violacoes).reduce((soma, lista) => soma + lista.length, 0);

    const { rodadas, aplicadas, recusadas } = relatorio.concorrentes;
    const { pedidos, canceladas, recusadas: naoCanceladas } = relatorio.cancelamentos;
    const quantas = (tipo: TipoDeFalta) => feitas.filter((falta) => falta.tipo === tipo).length;
    const faltando = tiposPossiveis(banco.controle !== undefined).filter((tipo) => quantas(tipo) === 0);
    const andamento = janela?.andamento;
    const linhas = [
      `requests A2A: ${String(relatorio.pedidos)} (${(relatorio.pedidos / opcoes.segundos).toFixed(0)}/s); falhas dos clientes: ${String(relatorio.erros.length)} (esperadas sob falta, nao sao violacoes): ${porTipo(relatorio.falhas)}`,
      `respostas simultaneas a uma pausa: ${String(rodadas)} rodadas; ${String(aplicadas)} aplicadas, ${String(recusadas)} recusadas com -32004`,
      `cancelamentos: ${String(pedidos)} pedidos; ${String(canceladas)} Tasks canceladas, ${String(naoCanceladas)} recusados com -32002`,
      `latencia (ms): p50 ${percentil(relatorio.latencias, 50).toFixed(1)}, p99 ${percentil(relatorio.latencias, 99).toFixed(1)}, max ${Math.max(0, ...relatorio.latencias).toFixed(1)}`,
      `Tasks como os clientes as deixaram: ${porTipo(Object.fromEntries(Object.entries(relatorio.tarefas).map(([estado, n]) => [estado.replace('TASK_STATE_', ''), n])))}`,
      `faltas injetadas: ${String(feitas.length)} (${TIPOS.map((tipo) => `${DESCRICAO[tipo]} ${String(quantas(tipo))}`).join(', ')})${faltando.length > 0 ? `; nao couberam: ${faltando.join(', ')}` : ''}`,
      ...feitas.map(
        (falta: FaltaFeita) =>
          `  ${mais(falta.inicio)} ${DESCRICAO[falta.tipo]}: ${falta.nota} (de volta em ${segundos(falta.fim - falta.inicio)})${falta.erro ? `: ${falta.erro}` : ''}`,
      ),
      ...reanimadas.map(
        (r) => `  ${mais(r.ate)} ${r.nome}, que saiu sozinho em ${mais(r.de)}, reiniciado${r.erro ? `: falhou: ${r.erro}` : ''}`,
      ),
      `carga terminou em ${mais(fimDaCarga)}`,
      !janela
        ? 'recuperacao: nao medida (banco fora do ar)'
        : andamento?.tarefas === 0 && andamento.reivindicados === 0
          ? `recuperacao: ${segundos(janela.ms)} ate nenhuma Task WORKING/SUBMITTED e nenhum passo reivindicado`
          : `recuperacao: nao terminou em ${segundos(RECUPERACAO_MS)} (${andamento ? `${String(andamento.tarefas)} Tasks WORKING/SUBMITTED, ${String(andamento.reivindicados)} passos reivindicados` : `banco ilegivel: ${janela.erro}`})`,
      ...julgamento.linhas,
      `respostas 5xx dos agentes: ${String(relatorio.lista5xx.length)} (${String(relatorio.lista5xx.length - foraDeFalta.length)} durante faltas)`,
      ...relatorio.lista5xx.slice(0, 3).map((r) => `  ${String(r.status)} ${r.metodo} em ${mais(r.inicio)}..${mais(r.fim)}: ${r.corpo}`),
      'regras:',
      ...[...REGRAS, 'queda', '5xx fora de falta', 'falta nao desfeita'].map(
        (regra) => `  ${regra}: ${String(violacoes[regra]?.length ?? 0)}`,
      ),
      `violacoes: ${String(total)}`,
      ...Object.entries(violacoes).flatMap(([regra, lista]) => [
        ...lista.slice(0, LISTADAS).map((violacao) => `  [${regra}] ${violacao}`),
        ...(lista.length > LISTADAS ? [`  [${regra}] ... e mais ${String(lista.length - LISTADAS)}`] : []),
      ]),
    ];
    process.stdout.write(`${linhas.join('\n')}\n`);
    return total > 0 ? 1 : 0;
  } finally {
    await limpar();
    process.off('SIGINT', interromper);
    process.off('SIGTERM', interromper);
  }
}

/** Why these options cannot run (one line), or undefined. The chaos needs room for every kind of fault once. */
export function problemaNasOpcoes(opcoes: OpcoesDoSoakComCaos): string | undefined {
  if (opcoes.sqlite && (opcoes.mcp !== 1 || opcoes.agentes !== 1))
    return '--sqlite e um agente so (o arquivo SQLite serve um agente): sem --mcp/--agentes, ou com 1';
  if (opcoes.pgdata !== undefined && opcoes.db === undefined)
    return '--pgdata so com --db (sem --db o soak cria e controla o proprio banco)';
  if (opcoes.db !== undefined && !/^postgres(ql)?:\/\//.test(opcoes.db)) return `--db ${opcoes.db}: esperado postgres://...`;
  if (opcoes.db !== undefined && !ehLoopback(opcoes.db))
    return '--caos so injeta faltas em loopback: --db precisa apontar para 127.0.0.1, ::1 ou localhost';
  if (opcoes.pgdata !== undefined) {
    try {
      readFileSync(join(opcoes.pgdata, 'postmaster.opts'));
    } catch {
      return `--pgdata ${opcoes.pgdata}: sem postmaster.opts (a pasta de dados de um servidor PostgreSQL ja iniciado)`;
    }
  }
  const tipos = tiposPossiveis(opcoes.db === undefined || opcoes.pgdata !== undefined);
  // Every kind once, and at least half a second of load before each.
  const minimo = Math.ceil((duracaoDeUmaRodada(tipos, DURACOES) + tipos.length * 500) / 1000);
  if (opcoes.segundos < minimo) return `--caos precisa de --seconds ${String(minimo)} ou mais: cada tipo de falta ao menos uma vez`;
  return undefined;
}
