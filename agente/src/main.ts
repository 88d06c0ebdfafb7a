/** The only file that listens: config, wiring, HTTP server, signals. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer } from 'node:http';
import { AgentCard } from '@a2a-js/sdk';
import { defaultServerCallContextBuilder, type ServerCallContextBuilder } from '@a2a-js/sdk/server';
import { UserBuilder, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { campo } from 'compartilhado/log';
import { escutar, executarProcesso, log, urlLocal } from 'compartilhado/processo';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { CAMINHO_A2A, agentCard } from './card.js';
import { lerConfiguracao } from './config.js';
import { CAMINHOS, LINKS, publicar } from './descoberta.js';
import { Executor } from './executor.js';
import { ClienteMcp } from './mcp-cliente.js';
import { PausasLimitadas } from './limites.js';
import { abrirArmazenamento, encerradorDeTarefas, TarefasDaPonte, type Armazenamento } from './armazenamento.js';
import { Atendimento } from './atendimento.js';
import { Ponte } from './ponte.js';
import { lerTraceparent } from './trace.js';

interface Registro {
  nota?: string;
  terminado?: boolean;
}
const registroAtual = new AsyncLocalStorage<Registro>();

// @a2a-js/sdk reports handled JSON-RPC errors with console.error and a stack
// trace; they belong to the request's own log line, not to loose stderr lines.
const consoleError = console.error.bind(console);
// Once the line is written (or outside any request) they go to stderr as they are.
console.error = (...partes: unknown[]) => {
  const registro = registroAtual.getStore();
  if (!registro || registro.terminado) return consoleError(...partes);
  const erro = partes.find((parte): parte is Error => parte instanceof Error);
  const causa = erro?.cause instanceof Error ? ` (${erro.cause.message})` : '';
  const nota = erro ? `${erro.name}: ${erro.message}${causa}` : partes.map(String).join(' ');
  registro.nota = registro.nota ? `${registro.nota}; ${nota}` : nota;
};

/** Version 1.0 unless the client names another: the SDK's default for a missing A2A-Version is 0.3. */
const contextoA2A: ServerCallContextBuilder = (opcoes) =>
  defaultServerCallContextBuilder({ ...opcoes, requestedVersion: opcoes.requestedVersion ?? '1.0' });

/** One stderr line per request: method, JSON-RPC id, task, state reached, trace-id, duration. */
const registrarRequisicao: RequestHandler = (req, res, next) => {
  const comeco = performance.now();
  const registro: Registro = {};
  let corpo = '';
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  res.end = ((parte?: unknown, ...resto: unknown[]) => {
    if (typeof parte === 'string' || Buffer.isBuffer(parte)) corpo += parte.toString();
    return end(parte, ...resto);
  }) as typeof res.end;
  res.on('finish', () => {
    registro.terminado = true;
    let resposta: any;
    try {
      resposta = JSON.parse(corpo);
    } catch {
      resposta = undefined;
    }
    const task = resposta?.result?.task ?? resposta?.result;
    const params = req.body?.params;
    const taskId = [task?.id, params?.message?.taskId, params?.id].find((id) => typeof id === 'string') ?? '-';
    const campos = [
      `${req.method} ${req.originalUrl}`,
      `metodo=${campo(req.body?.method ?? '-')}`,
      `id=${campo(req.body?.id ?? null)}`,
      `task=${campo(taskId)}`,
      `estado=${resposta?.error ? `erro ${resposta.error.code}` : (task?.status?.state ?? '-')}`,
      `trace=${lerTraceparent(req.headers.traceparent)?.traceId ?? '-'}`,
      `http=${res.statusCode}`,
    ];
    if (registro.nota) campos.push(`nota=${JSON.stringify(registro.nota)}`);
    log(`${campos.join(' ')} ${(performance.now() - comeco).toFixed(1)}ms`);
  });
  registroAtual.run(registro, next);
};

const erroDeJsonRpc = (res: express.Response, status: number, code: number, message: string) =>
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message } });

/**
 * Body errors answered as JSON-RPC errors before the SDK sees the request:
 * size, bad JSON, and any other 4xx the body parser raises (an unknown
 * charset or Content-Encoding, a corrupt compressed body).
 */
const errosDoCorpo: ErrorRequestHandler = (erro, _req, res, next) => {
  if (erro?.type === 'entity.too.large') return erroDeJsonRpc(res, 413, -32600, 'Corpo acima do limite de 64 KiB');
  if (erro instanceof SyntaxError || erro?.type === 'entity.parse.failed')
    return erroDeJsonRpc(res, 400, -32700, 'Parse error: o corpo nao e JSON valido');
  if (Number.isInteger(erro?.status) && erro.status >= 400 && erro.status < 500)
    return erroDeJsonRpc(res, erro.status, -32600, `Invalid Request: ${erro.message}`);
  next(erro);
};

const VARREDURA_MS = 30_000;

function montarApp(config: ReturnType<typeof lerConfiguracao>, urlPublica: URL, armazenamento: Armazenamento) {
  const mcp = new ClienteMcp(config.mcpUrl, log);
  const limites = { maxPausadas: config.maxPausadas, validadeMs: config.validadeDaPausaMs };
  const { exclusao } = armazenamento;
  const pausas = new PausasLimitadas(armazenamento.pausas, limites, encerradorDeTarefas(armazenamento.tarefas), exclusao);
  pausas.varrerPeriodicamente(VARREDURA_MS, (erro) =>
    log(`varredura de pausas falhou: ${erro instanceof Error ? erro.message : String(erro)}`),
  );
  const card = agentCard(urlPublica);
  const tarefas = new TarefasDaPonte(armazenamento.tarefas);
  const requestHandler = new Atendimento(
    AgentCard.fromJSON(card),
    tarefas,
    new Executor(new Ponte(mcp, pausas), exclusao, tarefas),
    exclusao,
    pausas,
  );

  const app = express();
  app.disable('x-powered-by');
  app.use(registrarRequisicao);
  app.use((_req, res, next) => {
    res.set('Link', LINKS);
    next();
  });
  // The card is served in the A2A JSON form directly: the SDK's card handler
  // would serialize its internal message object, empty protobuf fields included.
  for (const [caminho, { tipo, corpo }] of publicar(card, urlPublica, config.mcpUrl)) {
    app.get(caminho, (_req, res) => {
      res.set({ 'Content-Type': tipo, 'Access-Control-Allow-Origin': '*' }).send(corpo);
    });
  }
  app.use(CAMINHO_A2A, express.json({ limit: config.limiteDoCorpoBytes }), errosDoCorpo);
  app.use(CAMINHO_A2A, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, contextBuilder: contextoA2A }));
  app.use((_req, res) => erroDeJsonRpc(res, 404, -32601, `Nada aqui: o endpoint A2A e ${CAMINHO_A2A} e o card esta em ${CAMINHOS.card}`));
  app.use(((erro, _req, res, _next) => {
    log(`erro inesperado: ${erro instanceof Error ? erro.message : String(erro)}`);
    erroDeJsonRpc(res, 500, -32603, 'Internal error');
  }) as ErrorRequestHandler);
  return { app, mcp };
}

executarProcesso('agente', async () => {
  const config = lerConfiguracao();
  const armazenamento = await abrirArmazenamento({
    ...config,
    aoPerderConexao: (erro) => log(`banco de Tasks: conexao perdida (${erro.message}); a proxima consulta abre outra`),
  });
  const servidor = createServer();
  const porta = await escutar(servidor, config.porta, config.host);
  // The card needs the bound port, so the app is built once listening.
  const local = urlLocal(config.host, porta);
  const urlPublica = config.urlPublica ?? local;
  const { app, mcp } = montarApp(config, urlPublica, armazenamento);
  servidor.on('request', app);
  const publica = urlPublica === local ? '' : `, URL publica ${urlPublica.href}`;
  log(
    `agente ouvindo em ${local.origin} (A2A em ${CAMINHO_A2A}, card em ${CAMINHOS.card}${publica}, MCP em ${config.mcpUrl.href}, Tasks em ${armazenamento.descricao})`,
  );
  mcp
    .conectar()
    .catch((erro: unknown) =>
      log(
        `MCP ainda indisponivel em ${config.mcpUrl.href} (${erro instanceof Error ? erro.message : String(erro)}); tento de novo no proximo pedido`,
      ),
    );
  return servidor;
});
