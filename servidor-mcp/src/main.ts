/** The only file that listens: config, data, HTTP server, signals. */
import { createServer } from 'node:http';
import { criarAtendimento, anotarFalha, CAMINHO } from './http.js';
import { ConfiguracaoInvalida, lerConfiguracao } from './config.js';
import { carregarAgenda } from './dados.js';
import { criarCodec } from './estado.js';
import { criarHandler } from './servidor.js';

const log = (linha: string) => process.stderr.write(`${linha}\n`);

function iniciar(): void {
  const config = lerConfiguracao();
  const agenda = carregarAgenda(config.pastaDeDados);
  const codec = criarCodec(config.segredo, config.validadeDoEstadoSegundos);
  const handler = criarHandler({ agenda, codec, aoFalhar: anotarFalha });
  const servidor = createServer(criarAtendimento(handler, config.limiteDoCorpoBytes, log));

  servidor.listen(config.porta, config.host, () => {
    const endereco = servidor.address();
    const porta = typeof endereco === 'object' && endereco ? endereco.port : config.porta;
    log(`servidor-mcp ouvindo em http://${config.host}:${porta}${CAMINHO} (politica ${agenda.politica.versao})`);
  });
  servidor.on('error', (erro) => {
    log(`servidor-mcp nao subiu: ${erro.message}`);
    process.exit(1);
  });

  const parar = (sinal: string) => {
    log(`servidor-mcp: ${sinal}, encerrando`);
    servidor.close(() => process.exit(0));
    servidor.closeIdleConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGTERM', () => parar('SIGTERM'));
  process.once('SIGINT', () => parar('SIGINT'));
}

try {
  iniciar();
} catch (erro) {
  log(`servidor-mcp nao subiu: ${erro instanceof ConfiguracaoInvalida ? erro.message : String(erro)}`);
  process.exit(1);
}
