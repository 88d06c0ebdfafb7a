/**
 * The agent's answer while it starts. The port accepts first (the card
 * names the bound port), and the store, the gRPC listener and the
 * configured MCP servers come after it: a stdio server that fetches a
 * package may take seconds. From the moment the port accepts, every
 * request gets an answer and its log line: 503 with Retry-After in the
 * binding's error form (on the JSON-RPC binding HTTP 200 with -32603 under
 * the request's id, as responderErro answers there), until the app serves.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import express from 'express';
import { CAMINHO_A2A } from '../a2a/card.js';
import { bindingDoCaminho, codigoNaResposta, errosDoPedido, registrarRequisicoes, responderErro } from './http.js';
import { servirSaude } from './saude.js';

/** Seconds a client waits before asking again: what is left of a start is mostly shorter. */
const ESPERA_S = 1;

type Atender = (req: IncomingMessage, res: ServerResponse) => void;

export interface Entrada {
  /** The server's one request listener, from before it listens. */
  readonly atender: Atender;
  /** From now on `app` serves every request. */
  abrir(app: Atender): void;
}

export function entradaDoAgente(log: (linha: string) => void, limiteDoCorpoBytes: number): Entrada {
  const iniciando = express();
  iniciando.disable('x-powered-by');
  iniciando.set('json replacer', codigoNaResposta);
  iniciando.use(registrarRequisicoes(log));
  iniciando.use(servirSaude(() => Promise.resolve('iniciando: banco de Tasks e servidores MCP')));
  // The body is read for its id alone: the JSON-RPC error answers under it.
  iniciando.use(CAMINHO_A2A, express.json({ limit: limiteDoCorpoBytes, strict: false }));
  iniciando.use((req, res) => {
    res.set('Retry-After', String(ESPERA_S));
    const mensagem = `O agente esta iniciando (banco de Tasks e servidores MCP); tente de novo em ${String(ESPERA_S)} s`;
    responderErro(res, 503, A2A_ERROR_CODE.INTERNAL_ERROR, mensagem, bindingDoCaminho(req), req.body);
  });
  iniciando.use(errosDoPedido(log, limiteDoCorpoBytes, 'jsonrpc'));
  let atual: Atender = iniciando;
  return {
    atender: (req, res) => {
      atual(req, res);
    },
    abrir: (app) => {
      atual = app;
    },
  };
}
