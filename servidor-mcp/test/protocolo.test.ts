/**
 * The MCP server as a real process over HTTP: every MCP-side acceptance
 * criterion of the spec and the evaluator's steps 11-13. Each test books on
 * its own day so that no test depends on another's bookings.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Disponibilidade, META_IDEMPOTENCIA, ResultadoDaReserva } from 'compartilhado/contrato';
import * as z from 'zod';
import { chamar, chamarFerramenta, estruturado, pergunta, textoDe, type Chamada, type Resposta } from '../../test/apoio/mcp.js';
import { iniciarServidorMcp, linhasAte, segredoDeTeste, type Processo } from '../../test/apoio/processos.js';
import { pedidoMcp } from '../../scripts/mcp-cru.js';

const politica = readFileSync(new URL('../../dados/politica-de-uso.md', import.meta.url), 'utf8');
const dia = (n: number) => `2027-01-${String(n).padStart(2, '0')}`;
const as = (d: string, hora: string) => `${d}T${hora}:00-03:00`;

/** tools/list as far as this file reads it; each field is checked by the test's own assertions. */
const ListaDeFerramentas = z.looseObject({
  tools: z.array(
    z.looseObject({
      name: z.string(),
      inputSchema: z.record(z.string(), z.unknown()),
      outputSchema: z.unknown(),
      annotations: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

/** The JSON-RPC error of a reply written outside the MCP handler. */
const ErroJsonRpc = z.looseObject({ error: z.looseObject({ code: z.number() }) });

/** A reply's JSON-RPC body; a body that is not a JSON object fails here. */
function corpoDe(resposta: Resposta) {
  assert.ok(resposta.corpo, resposta.texto);
  return resposta.corpo;
}

const reservaDe = (resposta: Resposta) => estruturado(resposta, ResultadoDaReserva);

describe('servidor-mcp over HTTP', () => {
  const segredo = segredoDeTeste();
  let mcp: Processo;
  before(async () => {
    mcp = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo });
  });
  after(() => mcp.parar());

  type Pausa = Resposta & { args: Record<string, unknown> };
  const reservar = async (
    sala: string,
    d: string,
    de: string,
    ate: string,
    responsavel = 'Doc',
    extra: Omit<Chamada, 'metodo'> = {},
  ): Promise<Pausa> => {
    const args = { sala, inicio: as(d, de), fim: as(d, ate), responsavel };
    return { ...(await chamarFerramenta(mcp.url, 'reservar_sala', args, extra)), args };
  };
  /** The original tools/call again, with a new id, the answer and the echoed state. */
  const retry = (pausa: Pausa, resposta: unknown, args = pausa.args, extra: Record<string, unknown> = {}): Promise<Pausa> =>
    retryEm(mcp.url, pausa, resposta, args, extra);
  const retryEm = async (
    url: string,
    pausa: Pausa,
    resposta: unknown,
    args = pausa.args,
    extra: Record<string, unknown> = {},
  ): Promise<Pausa> => {
    const { chave, requestState } = pergunta(pausa);
    return {
      args,
      ...(await chamarFerramenta(url, 'reservar_sala', args, {
        params: { inputResponses: { [chave]: resposta }, requestState, ...extra },
      })),
    };
  };
  /** Occupies garagem on day `d` 14-15 and asks for it again: a pause offering fusca and mirante. */
  const pausar = async (d: string) => {
    assert.equal(reservaDe(await reservar('sala-garagem', d, '14:00', '15:00', 'Marty')).reservado, true);
    const pausa = await reservar('sala-garagem', d, '14:00', '15:00', 'Biff');
    assert.equal(pausa.corpo?.result?.resultType, 'input_required', pausa.texto);
    return pausa;
  };

  describe('discovery and reading', () => {
    it('lists the three tools with object input schemas and honest annotations', async () => {
      const r = await chamar(mcp.url, { metodo: 'tools/list' });
      assert.equal(r.status, 200);
      const { tools } = ListaDeFerramentas.parse(r.corpo?.result);
      assert.deepEqual(tools.map((t) => t.name).sort(), ['consultar_disponibilidade', 'listar_salas', 'reservar_sala']);
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.equal(typeof tool.outputSchema, 'object', tool.name);
      }
      const anotacao = (nome: string) => tools.find((t) => t.name === nome)?.annotations?.readOnlyHint;
      assert.equal(anotacao('listar_salas'), true);
      assert.equal(anotacao('consultar_disponibilidade'), true);
      assert.equal(anotacao('reservar_sala'), false);
      assert.equal(typeof r.corpo?.result?.ttlMs, 'number');
    });

    it('listar_salas: structuredContent conforms to the output schema and equals the text block', async () => {
      const r = await chamarFerramenta(mcp.url, 'listar_salas', {});
      const structuredContent = r.corpo?.result?.structuredContent;
      assert.deepEqual(JSON.parse(textoDe(r)), structuredContent);
      // Read as plain records, not through the contract's Sala (which would drop extra keys): the keys are the check.
      const { salas } = z.object({ salas: z.array(z.record(z.string(), z.unknown())) }).parse(structuredContent);
      assert.equal(salas.length, 5);
      for (const sala of salas) {
        assert.deepEqual(Object.keys(sala).sort(), ['capacidade', 'id', 'nome', 'recursos']);
        assert.ok(Number.isInteger(sala.capacidade));
      }
    });

    it('consultar_disponibilidade: free and taken, with the conflicting bookings', async () => {
      const livre = await chamarFerramenta(mcp.url, 'consultar_disponibilidade', {
        sala: 'sala-garagem',
        inicio: as('2026-11-03', '15:00'),
        fim: as('2026-11-03', '16:00'),
      });
      assert.deepEqual(livre.corpo?.result?.structuredContent, { sala: 'sala-garagem', livre: true, conflitos: [] });
      const ocupada = await chamarFerramenta(mcp.url, 'consultar_disponibilidade', {
        sala: 'sala-garagem',
        inicio: as('2026-11-03', '14:30'),
        fim: as('2026-11-03', '15:30'),
      });
      assert.deepEqual(ocupada.corpo?.result?.structuredContent, {
        sala: 'sala-garagem',
        livre: false,
        conflitos: [{ id: 'res-0001', inicio: '2026-11-03T14:00:00-03:00', fim: '2026-11-03T15:00:00-03:00', responsavel: 'Marty' }],
      });
      assert.deepEqual(JSON.parse(textoDe(ocupada)), ocupada.corpo.result.structuredContent);
    });

    it('reads politica://uso byte-identical to the data file, as markdown', async () => {
      const r = await chamar(mcp.url, { metodo: 'resources/read', params: { uri: 'politica://uso' } });
      assert.deepEqual(r.corpo?.result?.contents, [{ uri: 'politica://uso', mimeType: 'text/markdown', text: politica }]);
    });

    it('refuses an unknown resource with -32602, never an empty contents', async () => {
      const r = await chamar(mcp.url, { metodo: 'resources/read', params: { uri: 'politica://inexistente' } });
      assert.equal(r.corpo?.error?.code, -32602);
    });

    it('refuses an unknown tool', async () => {
      const r = await chamarFerramenta(mcp.url, 'voar_delorean', {});
      assert.equal(r.corpo?.error?.code, -32602);
    });
  });

  describe('tool errors: isError with the exact texts', () => {
    const casos: [string, string, string, string, string][] = [
      ['sala inexistente', 'sala-delorean', '09:00', '10:00', 'Sala inexistente: sala-delorean'],
      ['before the window', 'sala-aquario', '07:00', '08:00', 'Fora da janela de uso: a politica permite reservas entre 08:00 e 20:00'],
      ['after the window', 'sala-aquario', '19:30', '20:30', 'Fora da janela de uso: a politica permite reservas entre 08:00 e 20:00'],
      ['over two hours', 'sala-aquario', '09:00', '12:00', 'Duracao acima do limite: a politica permite no maximo 2 horas'],
      ['inverted interval', 'sala-aquario', '10:00', '09:00', 'Intervalo invalido: fim deve ser posterior a inicio'],
      ['empty interval', 'sala-aquario', '10:00', '10:00', 'Intervalo invalido: fim deve ser posterior a inicio'],
    ];
    for (const [caso, sala, de, ate, mensagem] of casos) {
      for (const ferramenta of ['consultar_disponibilidade', 'reservar_sala']) {
        it(`${ferramenta}: ${caso}`, async () => {
          const r = await chamarFerramenta(mcp.url, ferramenta, { sala, inicio: as(dia(2), de), fim: as(dia(2), ate), responsavel: 'Doc' });
          assert.equal(r.corpo?.result?.isError, true);
          assert.equal(textoDe(r), mensagem);
        });
      }
    }

    it('a value that is not an ISO 8601 instant with an offset is a precise tool error', async () => {
      const r = await chamarFerramenta(mcp.url, 'reservar_sala', {
        sala: 'sala-aquario',
        inicio: '2027-01-02T09:00:00',
        fim: as(dia(2), '10:00'),
        responsavel: 'Doc',
      });
      assert.equal(r.corpo?.result?.isError, true);
      assert.match(textoDe(r), /^Data\/hora invalida em inicio: use ISO 8601 com fuso explicito/);
    });

    it('UTC input is converted to Sao Paulo time: 11:00Z is 08:00 there', async () => {
      const r = await chamarFerramenta(mcp.url, 'reservar_sala', {
        sala: 'sala-aquario',
        inicio: `${dia(3)}T11:00:00Z`,
        fim: `${dia(3)}T12:00:00Z`,
        responsavel: 'Doc',
      });
      assert.equal(reservaDe(r).reservado, true, r.texto);
    });

    it('a conflict with no alternative is a tool error, not a pause', async () => {
      assert.equal(reservaDe(await reservar('sala-mirante', dia(4), '11:00', '12:00')).reservado, true);
      const r = await reservar('sala-mirante', dia(4), '11:00', '12:00');
      assert.equal(r.corpo?.result?.isError, true);
      assert.equal(textoDe(r), 'Sem alternativas disponiveis no intervalo');
    });

    it('bad argument types are a tool error, not a crash', async () => {
      const r = await chamarFerramenta(mcp.url, 'reservar_sala', { sala: 42, inicio: null, fim: [], responsavel: {} });
      assert.equal(r.status, 200);
      assert.equal(r.corpo?.result?.isError, true);
    });
  });

  describe('protocol errors', () => {
    it('_meta without protocolVersion: -32602 and HTTP 400', async () => {
      const r = await chamarFerramenta(mcp.url, 'listar_salas', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': undefined } });
      assert.equal(r.status, 400);
      assert.equal(r.corpo?.error?.code, -32602);
    });
    it('_meta without clientCapabilities: -32602 and HTTP 400', async () => {
      const r = await chamarFerramenta(mcp.url, 'listar_salas', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } });
      assert.equal(r.status, 400);
      assert.equal(r.corpo?.error?.code, -32602);
    });
    it('a 2025-era request (no header, no _meta) is refused with -32602 and HTTP 400, not served', async () => {
      const corpo = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      const r = await chamar(mcp.url, {
        metodo: 'tools/list',
        corpo,
        headers: { 'mcp-protocol-version': undefined, 'mcp-method': undefined },
      });
      assert.equal(r.status, 400);
      assert.equal(r.corpo?.error?.code, -32602);
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      const velho = await chamar(mcp.url, {
        metodo: 'initialize',
        corpo: initialize,
        headers: { 'mcp-protocol-version': undefined, 'mcp-method': undefined },
      });
      assert.equal(velho.status, 400);
      assert.equal(velho.corpo?.error?.code, -32602);
    });
    for (const [header, valor] of [
      ['mcp-method', 'tools/list'],
      ['mcp-name', 'consultar_disponibilidade'],
      ['mcp-protocol-version', '2025-11-25'],
    ] as const) {
      it(`header ${header} disagreeing with the body: -32020`, async () => {
        const r = await chamarFerramenta(mcp.url, 'listar_salas', {}, { headers: { [header]: valor } });
        assert.equal(r.status, 400);
        assert.equal(r.corpo?.error?.code, -32020);
      });
    }
    it('malformed JSON: parse error with HTTP 400', async () => {
      const r = await chamar(mcp.url, { metodo: 'tools/list', corpo: '{"jsonrpc": "2.0", "id": 1,' });
      assert.equal(r.status, 400);
      assert.equal(r.corpo?.error?.code, -32700);
    });
    it('no shape of garbage produces a 500 or a stack trace', async () => {
      for (const corpo of [
        '[]',
        '[1,2]',
        '"texto"',
        '42',
        'null',
        '{}',
        '{"jsonrpc":"2.0"}',
        '{"jsonrpc":"2.0","id":1,"method":7}',
        '{"jsonrpc":"2.0","id":{},"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}',
      ]) {
        const r = await chamar(mcp.url, { metodo: 'tools/list', corpo });
        assert.ok(r.status < 500, `${corpo} -> ${r.status}`);
        assert.doesNotMatch(r.texto, /at .*\.(ts|js):\d+/, corpo);
      }
    });
    it('a body over 64 KiB is refused with 413', async () => {
      const r = await chamarFerramenta(mcp.url, 'reservar_sala', { sala: 'x'.repeat(70_000), inicio: '', fim: '', responsavel: '' });
      assert.equal(r.status, 413);
      assert.equal(r.corpo?.error?.code, -32600);
    });
    it('another path answers 404 in JSON', async () => {
      const r = await fetch(new URL('/outra', mcp.url), { method: 'POST', body: '{}' });
      assert.equal(r.status, 404);
      assert.equal(ErroJsonRpc.parse(await r.json()).error.code, -32600);
    });
  });

  describe('MRTR on reservar_sala', () => {
    it('a conflict asks for one form-mode choice among the alternatives in order, with a sealed state', async () => {
      const r = await reservar('sala-garagem', '2026-11-03', '14:00', '15:00', 'Marty');
      assert.equal(r.status, 200);
      assert.equal(r.corpo?.result?.resultType, 'input_required');
      assert.equal(Object.keys(r.corpo.result.inputRequests ?? {}).length, 1);
      const { elicitacao: pedido, requestState } = pergunta(r);
      assert.equal(pedido.method, 'elicitation/create');
      assert.equal(pedido.params.mode, 'form');
      assert.deepEqual(pedido.params.requestedSchema.required, ['sala']);
      assert.deepEqual(Object.keys(pedido.params.requestedSchema.properties), ['sala']);
      assert.deepEqual(pedido.params.requestedSchema.properties.sala.enum, ['sala-fusca', 'sala-mirante']);
      assert.match(requestState, /^v1\.[\w-]+\.[\w-]+$/);
    });

    for (const [caso, capacidades] of [
      ['no capabilities', {}],
      ['url-mode elicitation only', { elicitation: { url: {} } }],
    ] as const) {
      it(`a client with ${caso} gets -32021 with requiredCapabilities and HTTP 400`, async () => {
        const r = await reservar('sala-garagem', '2026-11-03', '14:00', '15:00', 'Marty', {
          meta: { 'io.modelcontextprotocol/clientCapabilities': capacidades },
        });
        assert.equal(r.status, 400);
        assert.equal(r.corpo?.error?.code, -32021);
        assert.deepEqual(r.corpo.error.data?.requiredCapabilities, { elicitation: { form: {} } });
      });
    }

    it('retry with a new id, inputResponses and the echoed state books the chosen room', async () => {
      const pausa = await pausar(dia(5));
      const r = await retry(pausa, { action: 'accept', content: { sala: 'sala-mirante' } });
      assert.notEqual(corpoDe(r).id, corpoDe(pausa).id);
      assert.equal(r.corpo?.result?.resultType, 'complete');
      assert.equal(r.corpo.result.isError, false);
      const reserva = reservaDe(r);
      assert.equal(reserva.reservado, true);
      assert.equal(reserva.sala, 'sala-mirante');
      assert.equal(reserva.inicio, as(dia(5), '14:00'));
      assert.equal(reserva.responsavel, 'Biff');
      assert.equal(reserva.politica, '2026-11-01');
      assert.ok(reserva.reserva !== null, r.texto);
      assert.match(reserva.reserva, /^res-\d{4}$/);
    });

    it('decline and cancel complete without booking and without isError', async () => {
      const pausa = await pausar(dia(6));
      for (const [action, motivo] of [
        ['decline', 'recusado'],
        ['cancel', 'cancelado'],
      ]) {
        const r = await retry(pausa, { action });
        assert.equal(r.corpo?.result?.resultType, 'complete');
        assert.equal(r.corpo.result.isError, false);
        assert.equal(reservaDe(r).reservado, false);
        assert.equal(reservaDe(r).motivo, motivo);
      }
      const livre = await chamarFerramenta(mcp.url, 'consultar_disponibilidade', {
        sala: 'sala-fusca',
        inicio: as(dia(6), '14:00'),
        fim: as(dia(6), '15:00'),
      });
      assert.equal(estruturado(livre, Disponibilidade).livre, true);
    });

    it('a tampered state is refused with -32602 at every position, and books nothing', async () => {
      const pausa = await pausar(dia(7));
      const estado = pergunta(pausa).requestState;
      const variantes = new Set<string>();
      for (let i = 0; i < estado.length; i++) {
        variantes.add(estado.slice(0, i) + (estado[i] === 'A' ? 'B' : 'A') + estado.slice(i + 1));
      }
      // Same signed bytes, other spelling: the spare low bits of the last base64url character.
      const alfabeto = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      variantes.add(estado.slice(0, -1) + alfabeto.charAt(alfabeto.indexOf(estado.slice(-1)) ^ 1));
      variantes.add(estado.slice(0, -1));
      variantes.add(`${estado}A`);
      variantes.add(`${estado.slice(0, -6)}AAAAAA`);
      variantes.add('');
      variantes.add('v1.e30.e30');
      for (const adulterado of variantes) {
        const r = await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } }, undefined, { requestState: adulterado });
        assert.equal(r.corpo?.error?.code, -32602, `${adulterado}: ${r.texto}`);
      }
      const livre = await chamarFerramenta(mcp.url, 'consultar_disponibilidade', {
        sala: 'sala-fusca',
        inicio: as(dia(7), '14:00'),
        fim: as(dia(7), '15:00'),
      });
      assert.equal(estruturado(livre, Disponibilidade).livre, true);
      // The untouched state still works after all those refusals.
      const certo = await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } });
      assert.equal(reservaDe(certo).sala, 'sala-fusca');
    });

    it('re-sent arguments that differ from the sealed ones take no effect', async () => {
      const pausa = await pausar(dia(8));
      const r = await retry(
        pausa,
        { action: 'accept', content: { sala: 'sala-fusca' } },
        { sala: 'sala-aquario', inicio: as(dia(8), '09:00'), fim: as(dia(8), '10:00'), responsavel: 'Tannen' },
      );
      const reserva = reservaDe(r);
      assert.deepEqual(
        [reserva.sala, reserva.inicio, reserva.fim, reserva.responsavel],
        ['sala-fusca', as(dia(8), '14:00'), as(dia(8), '15:00'), 'Biff'],
      );
    });

    it('a state replayed into another tool is refused', async () => {
      const pausa = await pausar(dia(9));
      const r = await chamarFerramenta(
        mcp.url,
        'consultar_disponibilidade',
        { sala: 'sala-garagem', inicio: as(dia(9), '14:00'), fim: as(dia(9), '15:00') },
        { params: { requestState: pergunta(pausa).requestState } },
      );
      assert.equal(r.corpo?.error?.code, -32602);
    });

    it('a state minted with another secret is refused', async () => {
      const outro = await iniciarServidorMcp();
      try {
        const args = { sala: 'sala-garagem', inicio: as('2026-11-03', '14:00'), fim: as('2026-11-03', '15:00'), responsavel: 'Marty' };
        const pausa = { ...(await chamarFerramenta(outro.url, 'reservar_sala', args)), args };
        const r = await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } });
        assert.equal(r.corpo?.error?.code, -32602);
      } finally {
        await outro.parar();
      }
    });

    it('a choice outside the offered list books nothing and asks again', async () => {
      const pausa = await pausar(dia(10));
      for (const resposta of [
        { action: 'accept', content: { sala: 'sala-aquario' } },
        { action: 'accept', content: { sala: 'sala-garagem' } },
        { action: 'accept', content: {} },
        { action: 'accept' },
        { qualquer: 1 },
      ]) {
        const r = await retry(pausa, resposta);
        assert.equal(r.corpo?.result?.resultType, 'input_required', JSON.stringify(resposta));
        assert.deepEqual(pergunta(r).elicitacao.params.requestedSchema.properties.sala.enum, ['sala-fusca', 'sala-mirante']);
      }
      const livre = await chamarFerramenta(mcp.url, 'consultar_disponibilidade', {
        sala: 'sala-aquario',
        inicio: as(dia(10), '14:00'),
        fim: as(dia(10), '15:00'),
      });
      assert.equal(estruturado(livre, Disponibilidade).livre, true);
    });

    it('if the chosen room was taken meanwhile, it pauses again with fresh alternatives, never double-books', async () => {
      const pausa = await pausar(dia(11));
      assert.equal(reservaDe(await reservar('sala-fusca', dia(11), '14:00', '15:00', 'Lorraine')).reservado, true);
      const r = await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } });
      assert.equal(r.corpo?.result?.resultType, 'input_required');
      assert.deepEqual(pergunta(r).elicitacao.params.requestedSchema.properties.sala.enum, ['sala-mirante']);
      assert.notEqual(pergunta(r).requestState, pergunta(pausa).requestState);
      const final = await retry(r, { action: 'accept', content: { sala: 'sala-mirante' } });
      assert.equal(reservaDe(final).sala, 'sala-mirante');
    });

    it('logs method, id, tool, traceparent and outcome of each request, the retry with its own id', async () => {
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await reservar('sala-garagem', dia(12), '14:00', '15:00', 'Marty');
      const pausa = await reservar('sala-garagem', dia(12), '14:00', '15:00', 'Biff', { id: 'pedido-1', meta: { traceparent } });
      const { chave, requestState } = pergunta(pausa);
      await chamarFerramenta(mcp.url, 'reservar_sala', pausa.args, {
        id: 'pedido-2',
        params: { inputResponses: { [chave]: { action: 'accept', content: { sala: 'sala-fusca' } } }, requestState },
      });
      const linhas = await linhasAte(mcp, (id) => chamar(mcp.url, { metodo: 'tools/list', id }));
      const primeira = linhas.find((linha) => linha.includes('id="pedido-1"'));
      const retomada = linhas.find((linha) => linha.includes('id="pedido-2"'));
      assert.ok(primeira !== undefined && retomada !== undefined, linhas.join('\n'));
      assert.match(
        primeira,
        /metodo=tools\/call id="pedido-1" nome=reservar_sala traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 http=200 resultado=input_required \d+\.\dms$/,
      );
      assert.match(retomada, /metodo=tools\/call id="pedido-2" nome=reservar_sala traceparent=- http=200 resultado=complete \d+\.\dms$/);
      assert.doesNotMatch(linhas.join('\n'), new RegExp(pergunta(pausa).requestState.slice(3, 40)));
      assert.doesNotMatch(linhas.join('\n'), new RegExp(segredo));
    });

    it('serves subscriptions/listen as a stream, and releases each subscription its client abandons', async () => {
      /** Opens a subscription, reads its acknowledgement, and goes away. */
      const escutarEAbandonar = async (id: string) => {
        const { headers, body } = pedidoMcp({ metodo: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } }, id);
        const abandono = new AbortController();
        const resposta = await fetch(mcp.url, { method: 'POST', headers, body, signal: abandono.signal });
        assert.equal(resposta.status, 200);
        assert.match(resposta.headers.get('content-type') ?? '', /^text\/event-stream/);
        const leitor = resposta.body?.getReader();
        assert.ok(leitor);
        assert.match(new TextDecoder().decode((await leitor.read()).value), /notifications\/subscriptions\/acknowledged/, id);
        abandono.abort();
        await leitor.closed.catch(() => undefined);
      };
      // The SDK refuses a subscription past 1 024 open ones: had the client's leaving not reached it, the last ones would be refused.
      const LIMITE_DO_SDK = 1024;
      let proxima = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (proxima <= LIMITE_DO_SDK) await escutarEAbandonar(`escuta-${String(proxima++)}`);
        }),
      );
      const linha = await mcp.esperarLinha(new RegExp(`metodo=subscriptions/listen id="escuta-${String(LIMITE_DO_SDK)}"`));
      assert.match(linha, /http=200/);
    });
  });

  describe('idempotency of reservar_sala', () => {
    const SALAS = ['sala-aquario', 'sala-porao', 'sala-garagem', 'sala-fusca', 'sala-mirante'];
    const Agenda = z.object({ contents: z.array(z.object({ text: z.string() })) });
    const ReservasDoDia = z.object({ reservas: z.array(z.object({ reserva: z.string(), sala: z.string().optional() })) });
    /** Every booking of day `d` in every room, read from the server's agenda resource. */
    const reservasDoDia = async (d: string) => {
      const ids: string[] = [];
      for (const sala of SALAS) {
        const r = await chamar(mcp.url, { metodo: 'resources/read', params: { uri: `agenda://${sala}/${d}` } });
        const [conteudo] = Agenda.parse(r.corpo?.result).contents;
        ids.push(...ReservasDoDia.parse(JSON.parse(conteudo?.text ?? '')).reservas.map((lida) => `${lida.reserva}@${sala}`));
      }
      return ids.sort();
    };
    const comChave = (chave: unknown) => ({ meta: { [META_IDEMPOTENCIA]: chave } });
    const jaRespondida = (reserva: string | null, sala: string) =>
      `Esta pergunta ja foi respondida: reserva ${String(reserva)} na ${sala}. Uma resposta diferente nao faz outra reserva.`;

    it('the same continuation twice books once: the replay answers the first booking, the same result', async () => {
      const pausa = await pausar(dia(13));
      const primeira = await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } });
      assert.equal(reservaDe(primeira).reservado, true, primeira.texto);
      const antes = await reservasDoDia(dia(13));
      const replay = await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } });
      assert.notEqual(corpoDe(replay).id, corpoDe(primeira).id);
      assert.equal(replay.corpo?.result?.resultType, 'complete');
      assert.deepEqual(replay.corpo.result.structuredContent, primeira.corpo?.result?.structuredContent);
      assert.equal(textoDe(replay), textoDe(primeira));
      assert.equal(reservaDe(replay).reserva, reservaDe(primeira).reserva);
      assert.deepEqual(await reservasDoDia(dia(13)), antes);
      assert.equal(antes.length, 2, 'Marty in garagem and Biff in fusca');
    });

    it('a different answer to a pause that already booked is refused, naming the booking; nothing more is booked', async () => {
      const pausa = await pausar(dia(14));
      const feita = reservaDe(await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } }));
      assert.ok(feita.reserva !== null);
      const antes = await reservasDoDia(dia(14));
      for (const resposta of [
        { action: 'accept', content: { sala: 'sala-mirante' } },
        { action: 'decline' },
        { action: 'cancel' },
        { action: 'accept', content: { sala: 'sala-aquario' } },
        { action: 'accept', content: {} },
      ]) {
        const r = await retry(pausa, resposta);
        assert.equal(r.corpo?.result?.isError, true, JSON.stringify(resposta));
        assert.equal(textoDe(r), jaRespondida(feita.reserva, 'sala-fusca'));
      }
      assert.deepEqual(await reservasDoDia(dia(14)), antes);
    });

    it('all the rounds of one request book at most once: the first round replayed after a re-asked round booked is refused', async () => {
      const pausa = await pausar(dia(15));
      assert.equal(reservaDe(await reservar('sala-fusca', dia(15), '14:00', '15:00', 'Lorraine')).reservado, true);
      const outraVez = await retry(pausa, { action: 'accept', content: { sala: 'sala-fusca' } });
      assert.equal(outraVez.corpo?.result?.resultType, 'input_required', outraVez.texto);
      const feita = reservaDe(await retry(outraVez, { action: 'accept', content: { sala: 'sala-mirante' } }));
      assert.equal(feita.sala, 'sala-mirante');
      const antes = await reservasDoDia(dia(15));
      const replay = await retry(pausa, { action: 'accept', content: { sala: 'sala-mirante' } });
      assert.deepEqual(replay.corpo?.result?.structuredContent, feita, 'the same answer, given to the first round, is the same booking');
      for (const resposta of [{ action: 'accept', content: { sala: 'sala-fusca' } }, { action: 'decline' }]) {
        const r = await retry(pausa, resposta);
        assert.equal(textoDe(r), jaRespondida(feita.reserva, 'sala-mirante'), JSON.stringify(resposta));
      }
      assert.deepEqual(await reservasDoDia(dia(15)), antes);
    });

    it('concurrent replays of one continuation make one booking and all answer it', async () => {
      const pausa = await pausar(dia(16));
      const respostas = await Promise.all(
        Array.from({ length: 10 }, () => retry(pausa, { action: 'accept', content: { sala: 'sala-mirante' } })),
      );
      const ids = new Set(respostas.map((r) => reservaDe(r).reserva));
      assert.equal(ids.size, 1, [...ids].join());
      assert.equal((await reservasDoDia(dia(16))).length, 2);
    });

    it('a first call with an idempotency key, repeated, answers the same booking instead of a pause', async () => {
      const primeira = await reservar('sala-aquario', dia(17), '09:00', '10:00', 'Doc', comChave('pedido-17'));
      assert.equal(reservaDe(primeira).reservado, true, primeira.texto);
      const replay = await reservar('sala-aquario', dia(17), '09:00', '10:00', 'Doc', comChave('pedido-17'));
      assert.equal(replay.corpo?.result?.resultType, 'complete', replay.texto);
      assert.deepEqual(replay.corpo.result.structuredContent, primeira.corpo?.result?.structuredContent);
      assert.equal(textoDe(replay), textoDe(primeira));
      // Without the key, the same call is today's: the room is taken, so it pauses.
      assert.equal((await reservar('sala-aquario', dia(17), '09:00', '10:00')).corpo?.result?.resultType, 'input_required');
      assert.deepEqual(await reservasDoDia(dia(17)), [`${String(reservaDe(primeira).reserva)}@sala-aquario`]);
    });

    it('a first call with a key that paused stored nothing: the same call pauses again', async () => {
      await reservar('sala-garagem', dia(18), '14:00', '15:00', 'Marty');
      for (let i = 0; i < 2; i++) {
        const r = await reservar('sala-garagem', dia(18), '14:00', '15:00', 'Biff', comChave('pedido-18'));
        assert.equal(r.corpo?.result?.resultType, 'input_required', r.texto);
      }
      assert.equal((await reservasDoDia(dia(18))).length, 1);
    });

    it('the same key with other arguments is refused, naming the booking it holds; nothing is booked', async () => {
      const feita = reservaDe(await reservar('sala-porao', dia(19), '09:00', '10:00', 'Doc', comChave('pedido-19')));
      for (const [sala, de, ate, responsavel] of [
        ['sala-porao', '10:00', '11:00', 'Doc'],
        ['sala-aquario', '09:00', '10:00', 'Doc'],
        ['sala-porao', '09:00', '10:00', 'Marty'],
      ] as const) {
        const r = await reservar(sala, dia(19), de, ate, responsavel, comChave('pedido-19'));
        assert.equal(r.corpo?.result?.isError, true, r.texto);
        assert.equal(
          textoDe(r),
          `Chave de idempotencia ja usada com outros argumentos: reserva ${String(feita.reserva)} na sala-porao, ` +
            `de ${as(dia(19), '09:00')} a ${as(dia(19), '10:00')}. Use uma chave nova para outra reserva.`,
        );
      }
      assert.deepEqual(await reservasDoDia(dia(19)), [`${String(feita.reserva)}@sala-porao`]);
    });

    it('a key that is not 1 to 200 printable ASCII characters is refused and books nothing', async () => {
      for (const chave of ['', 'x'.repeat(201), 'reserva-ção', 'a\nb', 42, null, { chave: 'x' }]) {
        const r = await reservar('sala-porao', dia(20), '09:00', '10:00', 'Doc', comChave(chave));
        assert.equal(r.corpo?.result?.isError, true, `${JSON.stringify(chave)}: ${r.texto}`);
        assert.equal(
          textoDe(r),
          `Chave de idempotencia invalida em _meta["${META_IDEMPOTENCIA}"]: use um texto de 1 a 200 caracteres ASCII imprimiveis`,
        );
      }
      assert.deepEqual(await reservasDoDia(dia(20)), []);
      assert.equal(reservaDe(await reservar('sala-porao', dia(20), '09:00', '10:00', 'Doc', comChave(' ~'.repeat(100)))).reservado, true);
    });

    it('concurrent first calls with one key make one booking and all answer it', async () => {
      const respostas = await Promise.all(
        Array.from({ length: 10 }, () => reservar('sala-fusca', dia(21), '16:00', '17:00', 'Doc', comChave('pedido-21'))),
      );
      const ids = new Set(respostas.map((r) => reservaDe(r).reserva));
      assert.equal(ids.size, 1, respostas.map((r) => r.texto).join('\n'));
      assert.equal((await reservasDoDia(dia(21))).length, 1);
    });
  });

  it('a retry works after the server restarts (same secret): the state carries everything', async () => {
    const primeiro = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo });
    const args = { sala: 'sala-garagem', inicio: as('2026-11-03', '14:00'), fim: as('2026-11-03', '15:00'), responsavel: 'Marty' };
    const pausa = { ...(await chamarFerramenta(primeiro.url, 'reservar_sala', args)), args };
    assert.equal(pausa.corpo?.result?.resultType, 'input_required');
    assert.equal(await primeiro.parar(), 0);
    const segundo = await iniciarServidorMcp({ REQUEST_STATE_SECRET: segredo });
    try {
      const r = await retryEm(segundo.url, pausa, { action: 'accept', content: { sala: 'sala-fusca' } });
      assert.equal(r.corpo?.result?.resultType, 'complete');
      assert.equal(reservaDe(r).sala, 'sala-fusca');
      assert.equal(reservaDe(r).reserva, 'res-0003', 'first booking of a fresh process');
    } finally {
      await segundo.parar();
    }
  });
});

describe('servidor-mcp start-up', () => {
  for (const [caso, env, padrao] of [
    ['without REQUEST_STATE_SECRET', { REQUEST_STATE_SECRET: '' }, /REQUEST_STATE_SECRET ausente ou curto/],
    ['with a short secret', { REQUEST_STATE_SECRET: 'curto' }, /REQUEST_STATE_SECRET ausente ou curto \(minimo 32 bytes\)/],
    [
      'with a TTL outside 5-30 minutes',
      { REQUEST_STATE_TTL_SECONDS: '60' },
      /REQUEST_STATE_TTL_SECONDS=60: esperado um inteiro entre 300 e 1800/,
    ],
    ['with a database wait past ten minutes', { DB_WAIT_SECONDS: '601' }, /DB_WAIT_SECONDS=601: esperado um inteiro entre 0 e 600/],
  ] as const) {
    it(`refuses to start ${caso}, naming the variable`, async () => {
      await assert.rejects(iniciarServidorMcp(env), padrao);
    });
  }
});
