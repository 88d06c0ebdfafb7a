/** What several of the agent's unit tests share. */
import { createServer } from 'node:net';
import type { Pergunta } from '../src/ponte/tipos.js';

/** A port free now (nothing listens on it): one the system handed out, then closed. */
export function portaLivre(): Promise<number> {
  const servidor = createServer();
  return new Promise((resolver, rejeitar) => {
    servidor.once('error', rejeitar);
    servidor.listen(0, '127.0.0.1', () => {
      const endereco = servidor.address();
      servidor.close(() => (typeof endereco === 'object' && endereco ? resolver(endereco.port) : rejeitar(new Error('sem porta'))));
    });
  });
}

/** A room booking's question as the room server asks it: the choice of another room, with its state. */
export const perguntaDeSala = (requestState: string): Pergunta => ({
  skill: 'reservar-sala',
  ferramenta: 'reservar_sala',
  argumentos: { sala: 'sala-garagem' },
  perguntas: {
    escolha_de_sala: {
      mode: 'form',
      message: 'Escolha uma sala alternativa.',
      requestedSchema: {
        type: 'object',
        properties: { sala: { type: 'string', enum: ['sala-fusca', 'sala-mirante'] } },
        required: ['sala'],
      },
    },
  },
  requestState,
  rodada: 1,
  trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', flags: '01' },
});
