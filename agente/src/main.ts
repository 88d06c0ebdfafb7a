/** The only file that listens: config, wiring, HTTP server, signals. */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import { AgentCard } from '@a2a-js/sdk';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { defaultServerCallContextBuilder, type ServerCallContextBuilder } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { campos } from 'compartilhado/log';
import type { Prontidao } from 'compartilhado/saude';
import { escutar, executarProcesso, log, urlLocal } from 'compartilhado/processo';
import { observar } from 'compartilhado/telemetria';
import { regraDeOrigem, responderRecusaDeOrigem, type RegraDeOrigem } from 'compartilhado/origem';
import express from 'express';
import { CAMINHO_A2A, CAMINHO_REST, agentCard, cardGenerico } from './a2a/card.js';
import { lerConfiguracao } from './config.js';
import { CAMINHOS, LINKS, publicar, type Documento } from './http/descoberta.js';
import { ClienteMcp, credenciaisRecusadas } from './mcp/cliente.js';
import { abrirArmazenamento, type Armazenamento } from './armazenamento/armazenamento.js';
import { somenteLeitura } from './armazenamento/tarefas.js';
import { Ciclo } from './ciclo/ciclo.js';
import { Varredura } from './ciclo/varredura.js';
import { Conducao } from './a2a/conducao.js';
import { criarPortaria, type Portaria } from './http/acesso.js';
import { CAMINHO_CONSOLE, servirConsole } from './console/console.js';
import { FioMcp } from './console/fio.js';
import { Atendimento } from './a2a/atendimento.js';
import { assinaturaDoCard } from './a2a/assinatura.js';
import { provedorDoCardEstendido } from './a2a/estendido.js';
import { Vitrine } from './http/vitrine.js';
import { Acompanhamento } from './a2a/acompanhamento.js';
import { encerrarFluxos, idsNosEventos } from './http/sse.js';
import { Avisos } from './push/avisos.js';
import { apresentarAgente } from './http/vaos.js';
import { entradaDoAgente } from './http/iniciando.js';
import { servirSaude } from './http/saude.js';
import { anotarAcesso, codigoNaResposta, errosDoPedido, pedidoAceitavel, registrarRequisicoes, responderErro } from './http/http.js';
import { comDesfechoRegistrado } from './http/desfecho.js';
import { Catalogo, fontesDe } from './mcp/catalogo.js';
import { perfilGenerico } from './ponte/generico.js';
import { Ponte } from './ponte/ponte.js';
import { novoTrace, traceparentFilho } from './ponte/trace.js';
import { ChamadasVivas } from './ponte/vivas.js';
import { perfilDeSalas } from './salas/perfil.js';
import type { ServidorGrpc } from './grpc/grpc.js';

/** Version 1.0 unless the client names another: the SDK's default for a missing A2A-Version is 0.3. */
const contextoA2A: ServerCallContextBuilder = (opcoes) =>
  defaultServerCallContextBuilder({ ...opcoes, requestedVersion: opcoes.requestedVersion ?? '1.0' });

/** This agent, as its claims name their owner: unique per start, so a restarted agent never mistakes an old claim for its own. */
const ESTE_AGENTE = `${hostname()}:${String(process.pid)}:${randomUUID().slice(0, 8)}`;

interface Partes {
  readonly armazenamento: Armazenamento;
  readonly origem: RegraDeOrigem;
  /** With the console on: the MCP exchanges of each Task, for its Fio panel. */
  readonly fio: FioMcp | undefined;
  /** With AGENTE_MCP_CONFIG: the configured servers' tools, as skills. */
  readonly catalogo: Catalogo | undefined;
  /** Identity and limits, one count per identity across every binding. */
  readonly portaria: Portaria;
  /** With AGENTE_GRPC_PORTA: the gRPC listener, in the card and served by the same handler. */
  readonly grpc: ServidorGrpc | undefined;
}

async function montarApp(
  config: ReturnType<typeof lerConfiguracao>,
  urlPublica: URL,
  { armazenamento, origem, fio, catalogo, portaria, grpc }: Partes,
) {
  const mcp = new ClienteMcp(
    config.mcpUrl,
    log,
    config.tokenDoMcp,
    fio && ((pedido, http, resposta, ms, traceId) => fio.anotar({ pedido, http, resposta, ms, traceId })),
    config.prazoDoMcpMs,
  );
  // A claim outlives the longest step it covers: up to three MCP requests (tools/list, the policy, the call).
  const limites = { maxPausadas: config.maxPausadas, validadeMs: config.validadeDaPausaMs, prazoMs: 3 * config.prazoDoMcpMs + 5_000 };
  const { exclusao } = armazenamento;
  const push = {
    configs: armazenamento.webhooks,
    avisos: new Avisos(armazenamento.webhooks, { hosts: config.hostsDePush, log }),
    hosts: config.hostsDePush,
  };
  const tarefas = somenteLeitura(armazenamento.tarefas);
  const ciclo = new Ciclo(armazenamento, limites, ESTE_AGENTE, push.avisos);
  const varredura = new Varredura(ciclo, armazenamento.pausas, exclusao, limites.maxPausadas);
  // Without AGENTE_MCP_CONFIG, the course's room server through its profile; with it, any server's tools.
  const ponte = new Ponte(
    catalogo ? perfilGenerico(catalogo) : perfilDeSalas(mcp),
    new ChamadasVivas(ESTE_AGENTE, config.validadeDaPausaMs),
  );
  varredura.periodicamente(config.varreduraMs, ponte, log);
  const comTokens = config.identidades !== undefined;
  const cardAtual = () =>
    catalogo
      ? cardGenerico(urlPublica, comTokens, catalogo.lista(), grpc?.porta, config.arquivoMcp?.card)
      : agentCard(urlPublica, comTokens, grpc?.porta);
  const card = cardAtual();
  apresentarAgente(card);
  // The generic card follows the servers' tool lists; the room documents (catalog, SKILL.md) describe the room skills only.
  const documentosDe = (card: object): ReadonlyMap<string, Documento> =>
    catalogo
      ? new Map([[CAMINHOS.card, { tipo: 'application/json', corpo: JSON.stringify(card, null, 2) }]])
      : publicar(card, urlPublica, config.mcpUrl);
  const assinatura = config.chaveDoCard && assinaturaDoCard(config.chaveDoCard, urlPublica);
  const vitrine = await Vitrine.abrir(card, documentosDe, assinatura, log);
  catalogo?.aoMudar(() => vitrine.republicar(cardAtual()));
  // Every transport calls the handler through the record of what it did, which each request's log line and span read.
  const requestHandler = comDesfechoRegistrado(
    new Atendimento(
      AgentCard.fromJSON(card),
      tarefas,
      new Conducao(ciclo, ponte, exclusao, varredura, fio),
      ciclo,
      exclusao,
      push,
      // A follow lasts at most a pause's lifetime and one claim: by then a paused Task has been swept.
      new Acompanhamento(armazenamento.diario, armazenamento.campainha, limites.validadeMs + limites.prazoMs),
      log,
      ponte,
      config.identidades && provedorDoCardEstendido(cardAtual, config, assinatura),
      // A blocking SendMessage waits as long as a step's claim: past it, its Task as it stands (an MCP task goes on).
      limites.prazoMs,
    ),
  );
  const sdk = { requestHandler, userBuilder: portaria.usuario, contextBuilder: contextoA2A };
  // Ready once built: the catalog is loaded and the migrations ran; the store must still answer now.
  const pronto: Prontidao = () =>
    armazenamento.pausas.total().then(
      () => undefined,
      () => 'banco de Tasks inacessivel',
    );
  grpc?.servir(requestHandler, contextoA2A, pronto);

  const app = express();
  app.disable('x-powered-by');
  app.set('json replacer', codigoNaResposta);
  app.use(registrarRequisicoes(log));
  app.use(servirSaude(pronto));
  app.use((_req, res, next) => {
    res.set('Link', LINKS);
    next();
  });
  // The card is served in the A2A JSON form directly: the SDK's card handler
  // would serialize its internal message object, empty protobuf fields included.
  // §8.6.1: a max-age, and express's ETag of the body (a 304 to If-None-Match); a minute, as the generic card follows its servers' tools.
  app.get(/^\/\.well-known\//, (req, res, next) => {
    const documento = vitrine.documento(req.path);
    if (documento)
      res
        .set({ 'Content-Type': documento.tipo, 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=60' })
        .send(documento.corpo);
    else next();
  });
  // Every A2A route and the console's data, before identity and before the SDK: a page from a foreign origin gets nothing (DNS rebinding).
  app.use([CAMINHO_A2A, CAMINHO_REST, CAMINHO_CONSOLE], (req, res, next) => {
    const recusa = origem(req.headers);
    if (recusa === undefined) {
      next();
      return;
    }
    anotarAcesso({ recusa });
    responderRecusaDeOrigem(res, recusa);
  });
  if (fio) app.use(servirConsole(fio, tarefas, portaria.exigir('rest'), portaria.usuario));
  app.use(
    CAMINHO_A2A,
    portaria.exigir('jsonrpc'),
    // Any JSON value, not objects and arrays only: `"x"` or `1` is JSON (no -32700), and no Request object (-32600, estrito.ts).
    express.json({ limit: config.limiteDoCorpoBytes, strict: false }),
    errosDoPedido(log, config.limiteDoCorpoBytes, 'jsonrpc'),
    pedidoAceitavel('jsonrpc'),
  );
  app.use(CAMINHO_A2A, idsNosEventos(), jsonRpcHandler(sdk));
  // Parsed here first, for the same body limit and error handling as JSON-RPC (the SDK's own parser allows 100 kB).
  app.use(
    CAMINHO_REST,
    portaria.exigir('rest'),
    express.json({ limit: config.limiteDoCorpoBytes, type: ['application/json', 'application/a2a+json'] }),
    errosDoPedido(log, config.limiteDoCorpoBytes, 'rest'),
    pedidoAceitavel('rest'),
  );
  // §13.3: an identity's extended card is its own; no shared cache keeps it, and it is read fresh.
  app.get(/\/extendedAgentCard$/, (_req, res, next) => {
    res.set('Cache-Control', 'private, no-store');
    next();
  });
  app.use(CAMINHO_REST, idsNosEventos(), restHandler(sdk));
  app.use(CAMINHO_REST, (req, res) => {
    responderErro(
      res,
      404,
      A2A_ERROR_CODE.METHOD_NOT_FOUND,
      `Rota HTTP+JSON desconhecida: ${req.method} ${CAMINHO_REST}${req.path}`,
      'rest',
    );
  });
  app.use(CAMINHO_REST, errosDoPedido(log, config.limiteDoCorpoBytes, 'rest'));
  app.use((_req, res) => {
    responderErro(
      res,
      404,
      A2A_ERROR_CODE.METHOD_NOT_FOUND,
      `Nada aqui: o endpoint A2A e ${CAMINHO_A2A} e o card esta em ${CAMINHOS.card}`,
    );
  });
  app.use(errosDoPedido(log, config.limiteDoCorpoBytes, 'jsonrpc'));
  return { app, mcp, push };
}

executarProcesso('agente', async () => {
  const config = lerConfiguracao();
  // Answered from the moment the port accepts: 503 and Retry-After until the app below serves (iniciando.ts).
  const entrada = entradaDoAgente(log, config.limiteDoCorpoBytes);
  const servidor = createServer(entrada.atender);
  const porta = await escutar(servidor, config.porta, config.host);
  const fio = config.console ? new FioMcp() : undefined;
  const armazenamento = await abrirArmazenamento({
    ...config,
    aoPerderConexao: (erro) => log(`banco de Tasks: conexao perdida (${erro.message}); a proxima consulta abre outra`),
    log,
    aoEsquecer: fio && ((taskId) => fio.esquecer(taskId)),
  });
  // With telemetry on, read at each metrics export: the whole store's count, as every agent on it sees it.
  observar('ponte.a2a.tasks.paused', 'Tasks pausadas esperando a resposta do cliente (INPUT_REQUIRED ou AUTH_REQUIRED).', '{task}', () =>
    armazenamento.pausas.total(),
  );
  // The card needs the bound port, so the app is built once listening.
  const local = urlLocal(config.host, porta);
  const urlPublica = config.urlPublica ?? local;
  const origem = regraDeOrigem({ porta, host: config.host, publica: config.urlPublica, listadas: config.origens });
  const portaria = criarPortaria(config.identidades, config.limitePorMinuto);
  // Loaded only when asked for, grpc-js with it; bound before the card is built, which names its port.
  const { portaGrpc } = config;
  const grpc =
    portaGrpc === undefined
      ? undefined
      : await import('./grpc/grpc.js').then(({ escutarGrpc }) =>
          escutarGrpc(config.host, portaGrpc, { portaria, log, limiteBytes: config.limiteDoCorpoBytes }),
        );
  // What the file asked that the agent will not do (a server switched off, fields it does not use): said once, here.
  for (const aviso of config.arquivoMcp?.avisos ?? []) log(`mcp! ${campos({ ...aviso })}`);
  // A configured server that cannot be reached stops the agent here, with one line naming it.
  const catalogo =
    config.arquivoMcp &&
    (await Catalogo.montar(fontesDe(config.arquivoMcp.servidores, log, config.prazoDoMcpMs, fio), log, traceparentFilho(novoTrace())));
  const { app, mcp, push } = await montarApp(config, urlPublica, { armazenamento, origem, fio, catalogo, portaria, grpc });
  entrada.abrir(app);
  const publica = urlPublica === local ? '' : `, URL publica ${urlPublica.href}`;
  log(
    `agente ouvindo em ${local.origin} (A2A em ${CAMINHO_A2A} e ${CAMINHO_REST}${grpc ? `, gRPC em ${grpc.endereco}` : ''}, card em ${CAMINHOS.card}${publica}, MCP em ${catalogo ? `${String(catalogo.lista().length)} skills de ${[...new Set(catalogo.lista().map((skill) => skill.conexao.nome))].join(', ')}` : mcp.onde}, Tasks em ${armazenamento.descricao}${config.identidades ? `, tokens para ${config.identidades.nomes.join(', ')}` : ''})`,
  );
  if (!catalogo)
    mcp
      .conectar()
      .catch((erro: unknown) =>
        log(
          credenciaisRecusadas(erro, config.mcpUrl) ??
            `MCP ainda indisponivel em ${mcp.onde} (${erro instanceof Error ? erro.message : String(erro)}); tento de novo no proximo pedido`,
        ),
      );
  // gRPC calls end before the pending pushes are awaited: a call may still add one.
  const aoEncerrar = async () => {
    await grpc?.fechar();
    await Promise.all([push.avisos.ocioso(), catalogo?.fechar()]);
  };
  // Streams that follow a Task end at the signal: else they would hold the close until the forced exit.
  return { servidor, aoEncerrar, aoParar: encerrarFluxos };
});
