/**
 * Test fixture: the reference server-memory over stdio, serving only 3 s
 * after it is spawned, as a server whose package is fetched at start
 * (`npx -y ...`) does. The wait is this server's behaviour under test: the
 * agent that bridges it must answer every request made meanwhile.
 *
 * Run by the agent from AGENTE_MCP_CONFIG:
 * `node --import tsx test/apoio/servidores/lento.ts` (MEMORY_FILE_PATH: its graph).
 */
import { setTimeout as esperar } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PARTIDA_MS = 3_000;

const MEMORIA = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url));

await esperar(PARTIDA_MS);
// server-memory serves on import; it ships no types, hence the import by URL.
await import(pathToFileURL(MEMORIA).href);
