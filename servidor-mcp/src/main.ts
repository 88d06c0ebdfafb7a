/** The only file that listens: config, data, HTTP server. */
import { createServer } from 'node:http';
import { escutar, executarProcesso, log, urlLocal } from 'compartilhado/processo';
import { lerConfiguracao } from './config.js';
import { abrirAgenda } from './dados.js';
import { CAMINHO_DO_SERVER_CARD, LINK_DO_SERVER_CARD, criarServerCard } from './descoberta.js';
import { criarCodec } from './estado.js';
import { anotarFalha, CAMINHO, criarAtendimento } from './http.js';
import { criarHandler } from './servidor.js';

executarProcesso('servidor-mcp', async () => {
  const config = lerConfiguracao();
  const agenda = await abrirAgenda({
    pastaDeDados: config.pastaDeDados,
    banco: config.banco,
    aoPerderConexao: (erro) => log(`banco de reservas: conexao perdida (${erro.message}); a proxima consulta abre outra`),
  });
  const codec = criarCodec(config.segredo, config.validadeDoEstadoSegundos);
  const handler = criarHandler({ agenda, codec, aoFalhar: anotarFalha });
  const serverCard = JSON.stringify(await criarServerCard(handler), null, 2);
  const publicos = { documentos: new Map([[CAMINHO_DO_SERVER_CARD, serverCard]]), link: LINK_DO_SERVER_CARD };
  const atender = criarAtendimento(handler, config.limiteDoCorpoBytes, log, publicos);
  const servidor = createServer((req, res) => void atender(req, res));
  const porta = await escutar(servidor, config.porta, config.host);
  log(
    `servidor-mcp ouvindo em ${urlLocal(config.host, porta, CAMINHO).href} (politica ${agenda.politica.versao}, reservas em ${agenda.onde})`,
  );
  return { servidor };
});
