/** The only file that listens: config, data, HTTP server. */
import { createServer } from 'node:http';
import { escutar, executarProcesso, log, urlLocal } from 'compartilhado/processo';
import { regraDeOrigem } from 'compartilhado/origem';
import { lerConfiguracao } from './config.js';
import { abrirAgenda } from './dados.js';
import { CAMINHO_DO_SERVER_CARD, LINK_DO_SERVER_CARD, criarServerCard, nomesDoCard } from './descoberta.js';
import { criarCodec } from './estado.js';
import { anotarFalha, CAMINHO, criarAtendimento } from './http.js';
import { criarAcesso, metadadosDoRecurso } from './acesso.js';
import { criarHandler } from './servidor.js';

executarProcesso('servidor-mcp', async () => {
  const config = lerConfiguracao();
  const agenda = await abrirAgenda({
    pastaDeDados: config.pastaDeDados,
    banco: config.banco,
    esperaDoBancoMs: config.esperaDoBancoMs,
    log,
    aoPerderConexao: (erro) => log(`banco de reservas: conexao perdida (${erro.message}); a proxima consulta abre outra`),
  });
  const codec = criarCodec(config.segredo, config.validadeDoEstadoSegundos);
  const handler = criarHandler({ agenda, codec, aoFalhar: anotarFalha });
  const { identidades } = config;
  const card = await criarServerCard(handler, identidades !== undefined);
  const serverCard = JSON.stringify(card, null, 2);
  const servidor = createServer();
  const porta = await escutar(servidor, config.porta, config.host);
  // The public URL of /mcp is known once the port is (port 0 picks one); requests are served from here on,
  // in this same turn of the event loop, so none arrives before.
  const urlDoMcp = config.urlPublica ?? urlLocal(config.host, porta, CAMINHO);
  const documentos = new Map([[CAMINHO_DO_SERVER_CARD, serverCard]]);
  const metadados = identidades && metadadosDoRecurso(urlDoMcp);
  if (metadados) documentos.set(metadados.url.pathname, metadados.corpo);
  const acesso = identidades && metadados && criarAcesso(identidades, metadados.url);
  const origem = regraDeOrigem({ porta, host: config.host, publica: config.urlPublica, listadas: config.origens });
  // The names and the revision a span may carry as a client sent them: those the card publishes.
  const conhecidos = { nomes: nomesDoCard(card), versoes: new Set([card.protocolVersion]) };
  const atender = criarAtendimento(
    handler,
    config.limiteDoCorpoBytes,
    log,
    {
      documentos,
      link: LINK_DO_SERVER_CARD,
      pronto: () =>
        agenda.alcancavel().then(
          () => undefined,
          () => 'banco de reservas inacessivel',
        ),
    },
    origem,
    conhecidos,
    acesso,
  );
  servidor.on('request', (req, res) => void atender(req, res));
  const quem = identidades ? `, tokens para ${identidades.nomes.join(', ')}` : '';
  log(
    `servidor-mcp ouvindo em ${urlLocal(config.host, porta, CAMINHO).href} (politica ${agenda.politica.versao}, reservas em ${agenda.onde}${quem})`,
  );
  return { servidor };
});
