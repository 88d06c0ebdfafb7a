/**
 * requestState lifetime, in process: the handler's fetch face with a mocked
 * clock, so the test needs no waiting and no short TTL in the real config.
 */
import assert from 'node:assert/strict';
import { afterEach, it, mock } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ResultadoDaReserva } from 'compartilhado/contrato';
import * as z from 'zod';
import { abrirAgenda } from '../src/dados.js';
import { criarCodec } from '../src/estado.js';
import { criarHandler } from '../src/servidor.js';
import { pedidoMcp } from '../../scripts/mcp-cru.js';
import { segredoDeTeste } from '../../test/apoio/processos.js';

const VALIDADE = 600;
const args = { sala: 'sala-garagem', inicio: '2026-11-03T14:00:00-03:00', fim: '2026-11-03T15:00:00-03:00', responsavel: 'Marty' };

function pedido(id: number, params: Record<string, unknown>): Request {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    ...pedidoMcp({ metodo: 'tools/call', params: { name: 'reservar_sala', arguments: args, ...params } }, id),
  });
}

/** The parts of a JSON-RPC reply this test reads. */
const CorpoJsonRpc = z.looseObject({
  result: z
    .looseObject({ resultType: z.string().optional(), requestState: z.string().optional(), structuredContent: z.unknown().optional() })
    .optional(),
  error: z.looseObject({ code: z.number() }).optional(),
});

afterEach(() => mock.timers.reset());

for (const [caso, passados, esperado] of [
  ['just inside its lifetime', VALIDADE - 5, 'complete'],
  ['past its lifetime', VALIDADE + 5, -32602],
] as const) {
  it(`a state ${caso} is ${esperado === 'complete' ? 'accepted' : 'refused with -32602'}`, async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 10, 3, 12) });
    const motivos: string[] = [];
    const agenda = await abrirAgenda({ pastaDeDados: fileURLToPath(new URL('../../dados/', import.meta.url)) });
    const handler = criarHandler({ agenda, codec: criarCodec(segredoDeTeste(), VALIDADE), aoFalhar: (e) => motivos.push(e.message) });
    const responder = async (id: number, params: Record<string, unknown>) =>
      CorpoJsonRpc.parse(await (await handler.fetch(pedido(id, params))).json());
    const pausa = await responder(1, {});
    assert.equal(pausa.result?.resultType, 'input_required');
    mock.timers.tick(passados * 1000);
    const resposta = await responder(2, {
      inputResponses: { escolha_de_sala: { action: 'accept', content: { sala: 'sala-fusca' } } },
      requestState: pausa.result.requestState,
    });
    if (esperado === 'complete') {
      assert.equal(ResultadoDaReserva.parse(resposta.result?.structuredContent).sala, 'sala-fusca');
    } else {
      assert.equal(resposta.error?.code, -32602);
      assert.ok(
        motivos.some((m) => /expired/.test(m)),
        motivos.join(),
      );
    }
  });
}
