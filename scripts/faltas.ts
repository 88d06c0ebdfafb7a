/**
 * The faults of `npm run soak -- --caos`: each process in a slot that
 * outlives it (killed with SIGKILL, restarted on the same port, its stderr
 * copied to a file as it comes), and the loop that injects one fault at a time, in an
 * order drawn from a seed, each undone and waited for (the restarted
 * process's "ouvindo em" line, the database's readiness) before the next.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as dormir } from 'node:timers/promises';
import pg from 'pg';
import { aleatorio } from './carga.js';
import { iniciar, type Processo } from './processos.js';

/** Lines of a dead process shown where its exit is reported. */
const LINHAS_NO_RELATORIO = 12;

/**
 * One process of the topology across its restarts. An exit that no fault
 * caused is a crash: it is noted with its last lines, for the report.
 */
export class Vaga {
  /** Unexpected exits: how, and the process's last lines. */
  readonly quedas: string[] = [];
  /** When the last run of the process ended (epoch ms). */
  saiuEm = 0;
  private inicios = 1;
  private deProposito = false;
  private fechado: Promise<void> = Promise.resolve();

  private constructor(
    readonly nome: string,
    private readonly arquivo: string,
    private readonly env: Record<string, string>,
    /** The variable that fixes the port, so a restart listens where clients and agents already point. */
    private readonly variavelDaPorta: string,
    private readonly log: string,
    private processo: Processo,
  ) {
    this.vigiar();
  }

  static async iniciar(nome: string, arquivo: string, env: Record<string, string>, variavelDaPorta: string, log: string): Promise<Vaga> {
    return new Vaga(nome, arquivo, env, variavelDaPorta, log, await iniciar(arquivo, { ...env, [variavelDaPorta]: '0' }));
  }

  get url(): string {
    return this.processo.url;
  }

  get pid(): number | undefined {
    return this.processo.filho.pid;
  }

  vivo(): boolean {
    return this.processo.filho.exitCode === null && this.processo.filho.signalCode === null;
  }

  /** kill -9, waited for until its stderr is in the log file. */
  async matar(): Promise<void> {
    this.deProposito = true;
    this.processo.filho.kill('SIGKILL');
    await this.fechado;
  }

  /** A new process on the same port, waited for until it prints that it listens. */
  async reiniciar(): Promise<void> {
    this.processo = await iniciar(this.arquivo, { ...this.env, [this.variavelDaPorta]: String(this.processo.porta) });
    this.inicios += 1;
    this.deProposito = false;
    this.vigiar();
  }

  congelar(): void {
    this.processo.filho.kill('SIGSTOP');
  }

  descongelar(): void {
    this.processo.filho.kill('SIGCONT');
  }

  /** The end of the run: a frozen process hears nothing but SIGCONT, and one that ignores SIGTERM gets SIGKILL. */
  async encerrar(): Promise<void> {
    this.deProposito = true;
    if (this.vivo()) {
      this.processo.filho.kill('SIGCONT');
      this.processo.filho.kill('SIGTERM');
      const prazo = setTimeout(() => this.processo.filho.kill('SIGKILL'), 7_000);
      await this.fechado;
      clearTimeout(prazo);
    }
    await this.fechado;
  }

  /**
   * Copies the process's lines to its log file as they come (processos.iniciar
   * keeps them, and its listener runs before this one), and notes how it ended.
   */
  private vigiar(): void {
    const { filho, linhas } = this.processo;
    let escritas = 0;
    const copiar = () => {
      if (linhas.length === escritas) return;
      appendFileSync(this.log, `${linhas.slice(escritas).join('\n')}\n`);
      escritas = linhas.length;
    };
    appendFileSync(this.log, `--- ${this.nome}, inicio ${String(this.inicios)}, pid ${String(filho.pid)} ---\n`);
    copiar();
    filho.stderr?.on('data', copiar);
    filho.stdout?.on('data', copiar);
    // 'close' comes after the last output has been read, unlike 'exit'.
    this.fechado = new Promise((resolver) =>
      filho.once('close', (codigo, sinal) => {
        this.saiuEm = Date.now();
        const saida = sinal ?? `codigo ${String(codigo)}`;
        copiar();
        appendFileSync(this.log, `--- ${this.nome}, pid ${String(filho.pid)}, saiu (${saida}) ---\n`);
        if (!this.deProposito)
          this.quedas.push(
            `${this.nome} (pid ${String(filho.pid)}) saiu sem falta injetada (${saida}); ultimas linhas:\n${linhas
              .slice(-LINHAS_NO_RELATORIO)
              .map((linha) => `      ${linha}`)
              .join('\n')}`,
          );
        resolver();
      }),
    );
  }
}

/** A database this run may stop and start (a throwaway cluster, or --pgdata). */
export interface BancoControlavel {
  desligar(): Promise<void>;
  ligar(): Promise<void>;
}

export const TIPOS = ['matar-agente', 'matar-mcp', 'congelar-mcp', 'derrubar-conexoes', 'parar-banco'] as const;
export type TipoDeFalta = (typeof TIPOS)[number];

export const DESCRICAO: Record<TipoDeFalta, string> = {
  'matar-agente': 'kill -9 de agente',
  'matar-mcp': 'kill -9 de servidor MCP',
  'congelar-mcp': 'servidor MCP congelado (SIGSTOP)',
  'derrubar-conexoes': 'conexoes do banco derrubadas (pg_terminate_backend)',
  'parar-banco': 'banco parado',
};

/** A process brought back after it died by itself (a crash, already reported): down from `de` to `ate` (epoch ms). */
export interface Reanimada {
  readonly nome: string;
  readonly de: number;
  readonly ate: number;
  readonly erro?: string;
}

/** A fault as injected: when it began and when everything was back (epoch ms), and what happened. */
export interface FaltaFeita {
  readonly tipo: TipoDeFalta;
  readonly inicio: number;
  readonly fim: number;
  readonly nota: string;
  /** Why it could not be undone (a process that did not come back): the loop stops there. */
  readonly erro?: string;
}

export interface Alvos {
  readonly agentes: readonly Vaga[];
  readonly servidores: readonly Vaga[];
  /** Where bookings (and maybe Tasks) live: the backends to terminate are on it. */
  readonly urlDoBanco: string;
  /** undefined: this run cannot stop the database, and that fault is left out. */
  readonly banco: BancoControlavel | undefined;
}

export interface Duracoes {
  /** How long an MCP server stays frozen: longer than the agents' MCP timeout, so their calls time out. */
  readonly congelamentoMs: number;
  readonly paradaDoBancoMs: number;
}

export interface OpcoesDoCaos extends Duracoes {
  readonly semente: number;
  /** No fault starts that could not be undone by then (epoch ms). */
  readonly ate: number;
  readonly maximo: number;
}

/** How long each fault takes, undone, at most (restarts measured in a few runs, with room): a fault that would end past the load is not started. */
function duracaoEstimada(tipo: TipoDeFalta, opcoes: Duracoes): number {
  switch (tipo) {
    case 'matar-agente':
      return 3_000;
    case 'matar-mcp':
      return 2_000;
    case 'congelar-mcp':
      return opcoes.congelamentoMs + 1_000;
    case 'derrubar-conexoes':
      return 500;
    case 'parar-banco':
      return opcoes.paradaDoBancoMs + 3_000;
  }
}

/** The fault kinds a run can inject: stopping the database needs control of its server. */
export const tiposPossiveis = (podePararOBanco: boolean): TipoDeFalta[] =>
  TIPOS.filter((tipo) => tipo !== 'parar-banco' || podePararOBanco);

/** What every kind takes once, at most: a run shorter than this plus some load between faults cannot show every kind. */
export const duracaoDeUmaRodada = (tipos: readonly TipoDeFalta[], opcoes: Duracoes): number =>
  tipos.reduce((soma, tipo) => soma + duracaoEstimada(tipo, opcoes), 0);

/** Until the MCP server answers HTTP again (its Server Card): a thawed process has no new line to print. */
async function respondendo(urlDoMcp: string, prazoMs = 10_000): Promise<void> {
  const limite = Date.now() + prazoMs;
  const card = new URL('/.well-known/mcp/server-card.json', urlDoMcp);
  while (Date.now() < limite) {
    const pronto = await fetch(card, { signal: AbortSignal.timeout(1_000) }).then(
      (resposta) => resposta.ok,
      () => false,
    );
    if (pronto) return;
    await dormir(100);
  }
  throw new Error(`${urlDoMcp} nao voltou a responder em ${String(prazoMs)}ms depois do SIGCONT`);
}

/** The agents' and MCP servers' connections to our database, by the application_name they connect with. */
async function derrubarConexoes(url: string): Promise<number> {
  const cliente = new pg.Client({ connectionString: url, application_name: 'caos' });
  await cliente.connect();
  try {
    // current_database(): only this run's database, never another's on the same server.
    const { rowCount } = await cliente.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name IN ('agente', 'servidor-mcp') AND pid <> pg_backend_pid() AND datname = current_database()`,
    );
    return rowCount ?? 0;
  } finally {
    await cliente.end();
  }
}

const segundos = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

async function injetar(tipo: TipoDeFalta, alvos: Alvos, opcoes: OpcoesDoCaos, sortear: () => number): Promise<string> {
  const uma = (vagas: readonly Vaga[]): Vaga => {
    const vaga = vagas[Math.floor(sortear() * vagas.length)];
    if (!vaga) throw new Error('nenhum processo para a falta');
    return vaga;
  };
  switch (tipo) {
    case 'matar-agente':
    case 'matar-mcp': {
      const vaga = uma(tipo === 'matar-agente' ? alvos.agentes : alvos.servidores);
      const antes = vaga.pid;
      const comeco = Date.now();
      await vaga.matar();
      await vaga.reiniciar();
      return `${vaga.nome}: pid ${String(antes)} morto, pid ${String(vaga.pid)} ouvindo em ${segundos(Date.now() - comeco)}`;
    }
    case 'congelar-mcp': {
      const vaga = uma(alvos.servidores);
      vaga.congelar();
      await dormir(opcoes.congelamentoMs);
      vaga.descongelar();
      await respondendo(vaga.url);
      return `${vaga.nome}: congelado ${segundos(opcoes.congelamentoMs)}, respondendo de novo`;
    }
    case 'derrubar-conexoes':
      return `${String(await derrubarConexoes(alvos.urlDoBanco))} conexoes encerradas`;
    case 'parar-banco': {
      if (!alvos.banco) throw new Error('sem controle do banco');
      await alvos.banco.desligar();
      await dormir(opcoes.paradaDoBancoMs);
      const comeco = Date.now();
      await alvos.banco.ligar();
      return `parado ${segundos(opcoes.paradaDoBancoMs)}, pronto ${segundos(Date.now() - comeco)} depois de ligado`;
    }
  }
}

/** Each kind once, in an order drawn from the seed, then again in another order: every kind comes early. */
function* ordem(tipos: readonly TipoDeFalta[], sortear: () => number): Generator<TipoDeFalta, never> {
  for (;;) {
    const rodada = [...tipos];
    for (let i = rodada.length - 1; i > 0; i--) {
      const j = Math.floor(sortear() * (i + 1));
      [rodada[i], rodada[j]] = [rodada[j] as TipoDeFalta, rodada[i] as TipoDeFalta];
    }
    yield* rodada;
  }
}

/**
 * Injects faults one at a time until `ate` or `maximo`, a pause of some
 * seconds (drawn, and short enough that every kind fits in the run) before
 * each, and resolves when the last is undone. A kind that would not be
 * undone by `ate` gives its turn to the next that would. `parar` ends it
 * early (the run is being torn down).
 */
export async function caos(
  alvos: Alvos,
  opcoes: OpcoesDoCaos,
  parar: AbortSignal,
): Promise<{ feitas: FaltaFeita[]; reanimadas: Reanimada[] }> {
  const sortear = aleatorio(opcoes.semente * 7919 + 1);
  const tipos = tiposPossiveis(alvos.banco !== undefined);
  // The room left by one round of every kind, shared among the pauses before each: 3 to 5 s when there is room.
  const folga = Math.max(0, opcoes.ate - Date.now() - duracaoDeUmaRodada(tipos, opcoes)) / (tipos.length + 1);
  const [menor, maior] = [Math.min(3_000, 0.6 * folga), Math.min(5_000, folga)];
  const sequencia = ordem(tipos, sortear);
  const adiadas: TipoDeFalta[] = [];
  const feitas: FaltaFeita[] = [];
  const reanimadas: Reanimada[] = [];
  while (feitas.length < opcoes.maximo && !parar.aborted) {
    const acordado = await dormir(menor + sortear() * (maior - menor), undefined, { signal: parar }).then(
      () => true,
      () => false,
    );
    if (!acordado) break;
    // A process that died by itself (reported as a crash) is brought back, so the rest of the run still tests something.
    for (const vaga of [...alvos.servidores, ...alvos.agentes].filter((v) => !v.vivo())) {
      const erro = await vaga.reiniciar().then(
        () => undefined,
        (motivo: unknown) => (motivo instanceof Error ? motivo.message : String(motivo)),
      );
      reanimadas.push({ nome: vaga.nome, de: vaga.saiuEm, ate: Date.now(), ...(erro === undefined ? {} : { erro }) });
    }
    const cabe = (tipo: TipoDeFalta) => Date.now() + duracaoEstimada(tipo, opcoes) <= opcoes.ate;
    // The kinds that did not fit before go first, in their order, then the sequence (bounded: every kind is met in one round).
    let tipo = adiadas.find(cabe);
    if (tipo) adiadas.splice(adiadas.indexOf(tipo), 1);
    for (let vistos = 0; !tipo && vistos < tipos.length; vistos++) {
      const proximo = sequencia.next().value;
      if (cabe(proximo)) tipo = proximo;
      else if (!adiadas.includes(proximo)) adiadas.push(proximo);
    }
    if (!tipo) break;
    const inicio = Date.now();
    try {
      const nota = await injetar(tipo, alvos, opcoes, sortear);
      feitas.push({ tipo, inicio, fim: Date.now(), nota });
    } catch (erro) {
      // What is down now stays down for the rest of the load; the run goes on to judge what is left.
      const motivo = erro instanceof Error ? erro.message : String(erro);
      feitas.push({ tipo, inicio, fim: Date.now(), nota: 'nao desfeita', erro: motivo });
      break;
    }
  }
  return { feitas, reanimadas };
}
