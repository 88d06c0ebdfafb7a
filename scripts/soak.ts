/**
 * `npm run soak -- --seconds N [--clientes C]`: both processes on free
 * ports, the bridge under load for N seconds, then requests, errors,
 * latency percentiles and agent memory. Exits 1 if an invariant broke.
 */
import { parseArgs } from 'node:util';
import { carga, percentil } from './carga.js';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, iniciar, memoriaMiB } from './processos.js';
import { randomBytes } from 'node:crypto';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, clientes: { type: 'string', default: '16' } } });
const segundos = Number(values.seconds);
const clientes = Number(values.clientes);
if (!(segundos > 0) || !(clientes > 0)) throw new Error('uso: npm run soak -- --seconds N [--clientes C]');


const mcp = await iniciar(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: randomBytes(32).toString('hex') });
const agente = await iniciar(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', MCP_URL: mcp.url });
try {
  const antes = memoriaMiB(agente.filho.pid!);
  const relatorio = await carga({ agente: agente.url, segundos, clientes });
  const depois = memoriaMiB(agente.filho.pid!);
  const linhas = [
    `duracao: ${segundos}s, clientes: ${clientes}`,
    `requests A2A: ${relatorio.pedidos} (${(relatorio.pedidos / segundos).toFixed(0)}/s), erros: ${relatorio.erros.length}`,
    `latencia (ms): p50 ${percentil(relatorio.latencias, 50).toFixed(1)}, p90 ${percentil(relatorio.latencias, 90).toFixed(1)}, p99 ${percentil(relatorio.latencias, 99).toFixed(1)}, max ${Math.max(0, ...relatorio.latencias).toFixed(1)}`,
    `Tasks: ${Object.entries(relatorio.tarefas).map(([estado, n]) => `${estado.replace('TASK_STATE_', '')} ${n}`).join(', ')}`,
    `reservas: ${relatorio.reservas.length}, violacoes: ${relatorio.violacoes.length}`,
    `memoria do agente (RSS): ${antes.toFixed(0)} MiB antes, ${depois.toFixed(0)} MiB depois`,
  ];
  process.stdout.write(`${linhas.join('\n')}\n`);
  for (const problema of [...relatorio.erros.slice(0, 5), ...relatorio.violacoes.slice(0, 5)]) process.stdout.write(`  ${problema}\n`);
  process.exitCode = relatorio.erros.length + relatorio.violacoes.length > 0 ? 1 : 0;
} finally {
  await agente.parar();
  await mcp.parar();
}
