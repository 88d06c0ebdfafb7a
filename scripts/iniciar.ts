/**
 * `npm start`: both processes, as two OS processes on the default ports,
 * logs interleaved with [mcp] / [agente] prefixes; Ctrl-C or SIGTERM stops both.
 */
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, type Processo } from './processos.js';
import { segredoLocal } from './segredo.js';

const avisar = (linha: string) => process.stderr.write(`${linha}\n`);
const filhos: Processo[] = [];
let parando = false;

async function parar(codigo: number): Promise<never> {
  parando = true;
  await Promise.all(filhos.map((filho) => filho.parar()));
  process.exit(codigo);
}

process.once('SIGINT', () => void parar(0));
process.once('SIGTERM', () => void parar(0));

try {
  const segredo = segredoLocal(avisar);
  const mcp = await iniciar(ARQUIVO_DO_MCP, { REQUEST_STATE_SECRET: segredo }, { prefixo: '[mcp]' });
  filhos.push(mcp);
  const agente = await iniciar(ARQUIVO_DO_AGENTE, { MCP_URL: process.env.MCP_URL ?? mcp.url }, { prefixo: '[agente]' });
  filhos.push(agente);
  for (const filho of filhos) {
    filho.filho.once('exit', (codigo) => {
      if (parando) return;
      avisar(`um dos processos saiu (codigo ${codigo}); parando o outro`);
      void parar(codigo || 1);
    });
  }
  avisar(`pronto: agente em ${agente.url} (card em ${agente.url}/.well-known/agent-card.json), MCP em ${mcp.url}. Ctrl-C para parar.`);
} catch (erro) {
  const [primeira = ''] = (erro instanceof Error ? erro.message : String(erro)).split('\n', 1);
  avisar(primeira);
  await parar(1);
}
