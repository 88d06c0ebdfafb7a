/**
 * SDK floor: the same SDK and settings as servidor-mcp (per-request factory,
 * legacy: 'reject'), served as the SDK's docs serve it (toNodeHandler, which
 * servidor-mcp uses only for streams), with one trivial tool.
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

const entrada = z.object({ texto: z.string() });
const handler = createMcpHandler(
  () => {
    const servidor = new McpServer({ name: 'piso', version: '1.0.0' }, { capabilities: { tools: {} } });
    servidor.registerTool('eco', { description: 'Devolve o texto.', inputSchema: entrada }, ({ texto }) => ({
      content: [{ type: 'text', text: texto }],
    }));
    return servidor;
  },
  { legacy: 'reject' },
);
const atender = toNodeHandler(handler);
const servidor = createServer((req, res) => void atender(req, res));
servidor.listen(Number(process.env.PORTA ?? 0), '127.0.0.1', () => {
  const { port } = servidor.address() as { port: number };
  process.stderr.write(`piso-sdk ouvindo em http://127.0.0.1:${port}/mcp\n`);
});
