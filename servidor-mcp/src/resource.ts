import type { McpServer } from '@modelcontextprotocol/server';
import { URI_DA_POLITICA } from 'compartilhado/contrato';
import type { Politica } from './dominio/politica.js';

export function registrarPolitica(servidor: McpServer, politica: Politica, cacheMs: number): void {
  servidor.registerResource(
    'politica-de-uso',
    URI_DA_POLITICA,
    {
      title: 'Politica de uso das salas',
      description: 'Regras de reserva; a primeira linha declara a versao.',
      mimeType: 'text/markdown',
      cacheHint: { ttlMs: cacheMs },
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: politica.texto }] }),
  );
}
