/**
 * The skills on offer: every tool of every configured server, less what a
 * server's `tools` allow-list leaves out, each by its id `<server>.<tool>`
 * (idDaSkill). Built at start (a server that
 * cannot be reached then stops the agent with one line), kept current when
 * a server says its tools changed.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { campos } from 'compartilhado/log';
import type { ServidorConfigurado } from './configuracao.js';
import { idDaSkill, type ConexaoMcp, type Skill } from './conexao.js';
import { ConexaoGenerica } from './generica.js';
import type { FioDasTasks, Log } from './registro.js';

export interface Fonte {
  readonly conexao: ConexaoMcp;
  /** The server's `tools` allow-list; absent, every tool. */
  readonly permitidas?: readonly string[];
}

/** A connection for each server of AGENTE_MCP_CONFIG, not yet connected. */
export const fontesDe = (servidores: readonly ServidorConfigurado[], log: Log, prazoMs: number, fio?: FioDasTasks): Fonte[] =>
  servidores.map((servidor) => ({
    conexao: new ConexaoGenerica(servidor, log, prazoMs, fio),
    ...(servidor.tools ? { permitidas: servidor.tools } : {}),
  }));

const primeiraLinha = (erro: unknown) => (erro instanceof Error ? erro.message : String(erro)).split('\n')[0]?.slice(0, 300) ?? '';

export class Catalogo {
  private porId = new Map<string, Skill>();
  /** Each server's allowed tools, by server name, in the fontes' order. */
  private readonly permitidas = new Map<string, Tool[]>();
  private readonly ouvintes: ((skills: readonly Skill[]) => void)[] = [];

  private constructor(
    private readonly fontes: readonly Fonte[],
    private readonly log: Log,
  ) {}

  /**
   * Connects to every server at once and reads its tools. One that fails
   * closes the others and throws ConfiguracaoInvalida naming the first that
   * failed (in the file's order), where it is, and why, in one line.
   */
  static async montar(fontes: readonly Fonte[], log: Log, traceparent: string): Promise<Catalogo> {
    const catalogo = new Catalogo(fontes, log);
    const lidas = await Promise.allSettled(
      fontes.map(async ({ conexao }) => {
        await conexao.conectar();
        return conexao.ferramentas(traceparent);
      }),
    );
    const falha = lidas.findIndex((lida) => lida.status === 'rejected');
    const [fonte, lida] = [fontes[falha], lidas[falha]];
    if (fonte && lida?.status === 'rejected') {
      await Promise.all(fontes.map(({ conexao }) => conexao.fechar().catch(() => undefined)));
      throw new ConfiguracaoInvalida(
        `servidor MCP "${fonte.conexao.nome}" (${fonte.conexao.onde}) inacessivel: ${primeiraLinha(lida.reason)}`,
      );
    }
    lidas.forEach((lida, indice) => {
      const fonte = fontes[indice];
      if (fonte && lida.status === 'fulfilled') catalogo.guardar(fonte, lida.value);
    });
    catalogo.indexar();
    for (const fonte of fontes)
      fonte.conexao.aoMudarFerramentas((ferramentas) => {
        catalogo.guardar(fonte, ferramentas);
        catalogo.indexar();
        const skills = catalogo.lista();
        for (const ouvinte of catalogo.ouvintes) ouvinte(skills);
      });
    return catalogo;
  }

  skill(id: string): Skill | undefined {
    return this.porId.get(id);
  }

  lista(): readonly Skill[] {
    return [...this.porId.values()];
  }

  /** A server's connection by its name. */
  conexao(servidor: string): ConexaoMcp | undefined {
    return this.fontes.find(({ conexao }) => conexao.nome === servidor)?.conexao;
  }

  /** Told the whole new list each time a server's tools change (the card's skills). */
  aoMudar(ouvinte: (skills: readonly Skill[]) => void): void {
    this.ouvintes.push(ouvinte);
  }

  async fechar(): Promise<void> {
    await Promise.all(this.fontes.map(({ conexao }) => conexao.fechar()));
  }

  /** A server's tools through its allow-list; an allowed name it does not offer is a warning, not an error (it may come later). */
  private guardar({ conexao, permitidas }: Fonte, oferecidasPeloServidor: readonly Tool[]): void {
    // A tool that requires an MCP task (execution.taskSupport "required") runs as one on a 2025 server (tarefa.ts); the
    // 2026 generation of tasks (the io.modelcontextprotocol/tasks extension) is not followed yet: such a tool is left out.
    const semTarefas = conexao.era() === 'moderna';
    const ferramentas = oferecidasPeloServidor.filter((ferramenta) => !semTarefas || ferramenta.execution?.taskSupport !== 'required');
    if (!permitidas) return void this.permitidas.set(conexao.nome, ferramentas);
    const oferecidas = new Set(ferramentas.map(({ name }) => name));
    const ausentes = permitidas.filter((nome) => !oferecidas.has(nome));
    if (ausentes.length > 0)
      this.log(
        `mcp! ${campos({ servidor: conexao.nome, aviso: `"tools" lista ferramentas que o servidor nao oferece: ${ausentes.join(', ')}` })}`,
      );
    this.permitidas.set(
      conexao.nome,
      ferramentas.filter(({ name }) => permitidas.includes(name)),
    );
  }

  private indexar(): void {
    this.porId = new Map(
      this.fontes.flatMap(({ conexao }) =>
        (this.permitidas.get(conexao.nome) ?? []).map((ferramenta): [string, Skill] => {
          const id = idDaSkill(conexao.nome, ferramenta.name);
          return [id, { id, conexao, ferramenta }];
        }),
      ),
    );
  }
}
