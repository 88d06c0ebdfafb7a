/** Raw floor: node:http answering any JSON-RPC POST with a fixed JSON body. */
import { createServer } from 'node:http';

const corpo = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }], resultType: 'complete' } });
const servidor = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(corpo));
});
servidor.listen(Number(process.env.PORTA ?? 0), '127.0.0.1', () => {
  const { port } = servidor.address() as { port: number };
  process.stderr.write(`piso-bruto ouvindo em http://127.0.0.1:${port}/mcp\n`);
});
