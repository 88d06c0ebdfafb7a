/**
 * The web console at / (built by Vite from console/ into console/dist/):
 * a page on the same origin as /a2a, so it needs no CORS, and a policy that
 * lets it load and call nothing from anywhere else.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { UserBuilder } from '@a2a-js/sdk/server/express';
import { citado } from 'compartilhado/entrada';
import express, { Router, type RequestHandler } from 'express';
import { CAMINHO_CONSOLE } from '../a2a/card.js';
import type { FioMcp } from './fio.js';
import { responderErro } from '../http/http.js';

/** Where the console's own read-only data lives: the MCP exchanges of a Task (declared in card.ts). */
export { CAMINHO_CONSOLE };

const PASTA = fileURLToPath(new URL('../../console/dist/', import.meta.url));

const POLITICA = [
  "default-src 'self'",
  "connect-src 'self'",
  // Images and audio of a Task's artifacts are drawn from their bytes, as data: URLs.
  "img-src 'self' data:",
  "media-src 'self' data:",
  "object-src 'none'",
  // No string ever becomes HTML or script on this page: the browser refuses it if any code tries.
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * The page and, under /console/, the MCP exchanges of a Task for its Fio
 * panel: only for whoever the Task store says owns it (the same tenant and
 * user scope as GetTask; with AGENTE_TOKENS, `exigir` names the caller).
 */
export function servirConsole(fio: Pick<FioMcp, 'trocas'>, tarefas: TaskStore, exigir: RequestHandler, usuario: UserBuilder): Router {
  const rotas = Router();
  rotas.get(`${CAMINHO_CONSOLE}/tarefas/:taskId/mcp`, exigir, async (req, res) => {
    const { taskId } = req.params;
    const contexto = new ServerCallContext({ user: await usuario(req) });
    // Express types a route parameter as possibly absent or repeated; this route's is one string.
    if (typeof taskId !== 'string' || !(await tarefas.load(taskId, contexto))) {
      responderErro(res, 404, A2A_ERROR_CODE.TASK_NOT_FOUND, `Task nao encontrada: ${citado(String(taskId))}`, 'rest');
      return;
    }
    res.json({ taskId, trocas: fio.trocas(taskId) });
  });
  rotas.get('/', (_req, res) => {
    res.set({ 'Content-Security-Policy': POLITICA, 'Cache-Control': 'no-cache' });
    res.sendFile('index.html', { root: PASTA }, (erro) => {
      if (erro && !res.headersSent)
        res.status(503).type('text/plain').send('Console nao construido: rode npm run build (npm start constroi o que faltar).\n');
    });
  });
  // Asset names carry their content's hash: a browser may keep them for good.
  rotas.use('/assets', express.static(join(PASTA, 'assets'), { immutable: true, maxAge: '1y', index: false }));
  return rotas;
}
