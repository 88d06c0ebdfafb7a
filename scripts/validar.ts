/**
 * `npm run validar -- <checkout of the course starter>`: fresh processes on
 * the default ports, the starter's validator against them, then the MCP log
 * lines that carry the run's trace-id. Exits with the validator's code.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, type Processo } from './processos.js';
import { segredoLocal } from './segredo.js';

const PORTAS = { agente: 7300, mcp: 7301 };
const avisar = (linha: string) => process.stderr.write(`${linha}\n`);

function portaLivre(porta: number): Promise<boolean> {
  return new Promise((resolver) => {
    const teste = createServer();
    teste.once('error', () => resolver(false));
    teste.listen(porta, '127.0.0.1', () => teste.close(() => resolver(true)));
  });
}

function falhar(mensagem: string): never {
  avisar(mensagem);
  process.exit(2);
}

const starter = process.argv[2];
if (!starter) falhar('uso: npm run validar -- <pasta do clone do starter do curso (com validador/validar.py)>');
const validador = join(resolve(starter), 'validador', 'validar.py');
if (!existsSync(validador)) falhar(`nao encontrei ${validador}: aponte para um clone do repositorio starter do curso`);
for (const [nome, porta] of Object.entries(PORTAS)) {
  if (!(await portaLivre(porta)))
    falhar(`a porta ${porta} (${nome}) esta ocupada: pare o que estiver nela; o validador precisa de processos recem-iniciados`);
}

const processos: Processo[] = [];
let codigo = 1;
try {
  const env = { REQUEST_STATE_SECRET: segredoLocal(avisar), MCP_PORT: String(PORTAS.mcp), AGENTE_PORT: String(PORTAS.agente) };
  const mcp = await iniciar(ARQUIVO_DO_MCP, env);
  processos.push(mcp);
  processos.push(await iniciar(ARQUIVO_DO_AGENTE, { ...env, MCP_URL: `http://localhost:${PORTAS.mcp}/mcp` }));

  const execucao = spawn(
    'python3',
    [validador, '--agente', `http://localhost:${PORTAS.agente}`, '--mcp', `http://localhost:${PORTAS.mcp}`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let saida = '';
  execucao.stdout.on('data', (parte: Buffer) => {
    saida += parte.toString('utf8');
    process.stdout.write(parte);
  });
  // A failure to run python3 rejects (it does not exit), so the finally below still stops both processes.
  codigo = await new Promise<number>((resolver, rejeitar) => {
    execucao.once('error', (erro) => rejeitar(new Error(`nao consegui rodar python3: ${erro.message}`)));
    execucao.once('exit', (c) => resolver(c ?? 1));
  });

  const traceId = /trace-id desta execucao:\s*([0-9a-f]{32})/.exec(saida)?.[1];
  if (traceId) {
    process.stdout.write(`\n--- stderr do servidor MCP com o trace-id ${traceId} ---\n`);
    for (const linha of mcp.linhas.filter((l) => l.includes(traceId))) process.stdout.write(`${linha}\n`);
  }
} catch (erro) {
  avisar(erro instanceof Error ? erro.message : String(erro));
} finally {
  await Promise.all(processos.map((processo) => processo.parar()));
}
process.exit(codigo);
