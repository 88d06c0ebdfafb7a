/**
 * How the example MCP servers (and the test fixtures written like them) are
 * served: stateless Streamable HTTP at `/mcp` on loopback, revision
 * 2026-07-28 only (`legacy: 'reject'`: a request without the 2026 envelope
 * is refused, never served as 2025-era), a new McpServer per request.
 * PORT picks the port (0: any free one). When ready it prints `ouvindo
 * <url>` on stdout and `<nome>: ouvindo em <url>` on stderr, the shape
 * scripts/processos.ts iniciar() reads.
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';

export function servirMcp(nome: string, criarServidor: () => McpServer, portaPadrao: number): void {
  const porta = Number(process.env.PORT ?? String(portaPadrao));
  if (!Number.isInteger(porta) || porta < 0 || porta > 65_535) {
    process.stderr.write(`${nome}: PORT invalida: ${process.env.PORT ?? ''}\n`);
    process.exit(1);
  }
  const aoFalhar = (erro: Error) => process.stderr.write(`${nome}: ${erro.message}\n`);
  const atender = toNodeHandler(createMcpHandler(criarServidor, { legacy: 'reject', onerror: aoFalhar }), { onerror: aoFalhar });
  const http = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('o endpoint MCP e /mcp\n');
      return;
    }
    void atender(req, res);
  });
  http.listen(porta, '127.0.0.1', () => {
    const endereco = http.address();
    const url = `http://127.0.0.1:${String(typeof endereco === 'object' && endereco ? endereco.port : porta)}/mcp`;
    process.stdout.write(`ouvindo ${url}\n`);
    process.stderr.write(`${nome}: ouvindo em ${url}\n`);
  });
}
