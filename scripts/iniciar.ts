/**
 * `npm start`: both processes, as two OS processes on the default ports,
 * logs interleaved with [mcp] / [agente] prefixes; Ctrl-C or SIGTERM stops both.
 * With a servers file (`npm start -- --config servidores.json`, or
 * AGENTE_MCP_CONFIG), the agent alone, bridging the servers the file names:
 * the room server is not started. `--porta-agente` and `--porta-mcp` set
 * AGENTE_PORT and MCP_PORT, the variables each process reads.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, type Processo } from './processos.js';
import { segredoLocal } from './segredo.js';

const USO = 'uso: npm start [-- [--config <arquivo mcpServers>] [--porta-agente <porta>] [--porta-mcp <porta>]]';

const avisar = (linha: string) => process.stderr.write(`${linha}\n`);
const filhos: Processo[] = [];
/** Aborted on the way out: a process still starting is stopped too, not only those already in `filhos`. */
const encerramento = new AbortController();
let parando = false;

async function parar(codigo: number): Promise<never> {
  parando = true;
  encerramento.abort();
  await Promise.all(filhos.map((filho) => filho.parar()));
  process.exit(codigo);
}

function recusar(mensagem: string): never {
  avisar(`${mensagem}\n${USO}`);
  process.exit(2);
}

/** The arguments after `npm start --`, each fault said in one line with the usage. */
function lerArgumentos() {
  try {
    return parseArgs({ options: { config: { type: 'string' }, 'porta-agente': { type: 'string' }, 'porta-mcp': { type: 'string' } } })
      .values;
  } catch (erro) {
    // Node's message says which argument, in English, with advice that does not apply here: only the argument is kept.
    const argumento = /'([^']*)'/.exec(erro instanceof Error ? erro.message : '')?.[1] ?? '';
    const codigo = erro instanceof Error && 'code' in erro ? erro.code : undefined;
    recusar(
      codigo === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
        ? `${argumento.split(' ')[0] ?? argumento} precisa de um valor`
        : `argumento desconhecido: ${argumento}`,
    );
  }
}

/** A port flag as the variable its process reads; the process checks the value again, as it does the variable's. */
function porta(opcao: string, valor: string | undefined, variavel: string): Record<string, string> {
  if (valor === undefined) return {};
  if (!/^\d{1,5}$/.test(valor) || Number(valor) > 65535) recusar(`--${opcao}=${valor}: esperado um inteiro entre 0 e 65535`);
  return { [variavel]: valor };
}

const argumentos = lerArgumentos();
const portaDoAgente = porta('porta-agente', argumentos['porta-agente'], 'AGENTE_PORT');
const portaDoMcp = porta('porta-mcp', argumentos['porta-mcp'], 'MCP_PORT');
// npm runs the script from the project's root; a relative path means the folder `npm start` was typed in.
const onde = process.env.INIT_CWD ?? process.cwd();
const doArquivo = argumentos.config ?? (process.env.AGENTE_MCP_CONFIG || undefined);
const arquivo = doArquivo === undefined ? undefined : resolve(onde, doArquivo);
if (arquivo !== undefined && argumentos['porta-mcp'] !== undefined)
  recusar('--porta-mcp nao vale com um arquivo de servidores: so o agente sobe, sem o servidor de salas');

process.once('SIGINT', () => void parar(0));
process.once('SIGTERM', () => void parar(0));

/** What a child that exits on its own means: the rest is stopped too. */
function vigiar(): void {
  for (const filho of filhos) {
    filho.filho.once('exit', (codigo) => {
      if (parando) return;
      avisar(filhos.length > 1 ? `um dos processos saiu (codigo ${codigo}); parando o outro` : `o agente saiu (codigo ${codigo})`);
      void parar(codigo || 1);
    });
  }
}

try {
  if (arquivo !== undefined) {
    // Ready once every server answered: a stdio server fetched by npx may take minutes. The agent gives up on
    // a server by its own deadline (AGENTE_MCP_TIMEOUT_SECONDS) and exits saying which; this is only a backstop.
    const agente = await iniciar(
      ARQUIVO_DO_AGENTE,
      { ...portaDoAgente, AGENTE_MCP_CONFIG: arquivo },
      { prefixo: '[agente]', ms: 10 * 60_000, sinal: encerramento.signal },
    );
    filhos.push(agente);
    vigiar();
    avisar(
      `pronto: agente em ${agente.url} (card em ${agente.url}/.well-known/agent-card.json), servidores MCP de ${arquivo}. Ctrl-C para parar.`,
    );
  } else {
    const segredo = segredoLocal(avisar);
    const mcp = await iniciar(
      ARQUIVO_DO_MCP,
      { ...portaDoMcp, REQUEST_STATE_SECRET: segredo },
      { prefixo: '[mcp]', sinal: encerramento.signal },
    );
    filhos.push(mcp);
    const agente = await iniciar(
      ARQUIVO_DO_AGENTE,
      { ...portaDoAgente, MCP_URL: process.env.MCP_URL ?? mcp.url },
      { prefixo: '[agente]', sinal: encerramento.signal },
    );
    filhos.push(agente);
    vigiar();
    avisar(`pronto: agente em ${agente.url} (card em ${agente.url}/.well-known/agent-card.json), MCP em ${mcp.url}. Ctrl-C para parar.`);
  }
} catch (erro) {
  const [primeira = ''] = (erro instanceof Error ? erro.message : String(erro)).split('\n', 1);
  avisar(primeira);
  await parar(1);
}
