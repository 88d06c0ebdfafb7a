/**
 * The container's health check (the Containerfile's HEALTHCHECK, compose.yaml's): `node saude.js [/healthz|/readyz]`
 * asks this container's process on loopback, at AGENTE_PORT or MCP_PORT, or else at whichever default port answers
 * (the image runs either process). Exit 0 when it answers 2xx within 2.5 s, 1 otherwise. A file, not `node -e`: its
 * arguments have no spaces or quotes for a compose implementation to quote again.
 */
/* global fetch, AbortSignal */
import process from 'node:process';

const caminho = process.argv[2] ?? '/healthz';
if (caminho !== '/healthz' && caminho !== '/readyz') {
  process.stderr.write(`saude.js: ${caminho}? use /healthz ou /readyz\n`);
  process.exit(2);
}
const definidas = [process.env.AGENTE_PORT, process.env.MCP_PORT].filter(Boolean);
const portas = definidas.length > 0 ? definidas : ['7300', '7301'];
const pedir = async (porta) => {
  const resposta = await fetch(`http://127.0.0.1:${porta}${caminho}`, { signal: AbortSignal.timeout(2500) });
  if (!resposta.ok) throw new Error(`${caminho} respondeu ${String(resposta.status)} na porta ${porta}`);
};
Promise.any(portas.map(pedir)).then(
  () => process.exit(0),
  () => process.exit(1),
);
