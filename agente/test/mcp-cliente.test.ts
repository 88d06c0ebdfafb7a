/**
 * ClienteMcp's log: one `mcp->` line per request to the room server, its
 * outcome told by the method that made the request (the result the SDK
 * parsed, or what it threw), with the HTTP status and time its fetch saw.
 * Against the real server, as the agent runs it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { ClienteMcp } from '../src/mcp/cliente.js';
import { iniciarServidorMcp, type Processo } from '../../test/apoio/processos.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const TOKEN = 'a'.repeat(40);
const reserva = (sala: string, responsavel: string) => ({
  sala,
  inicio: '2027-03-03T14:00:00-03:00',
  fim: '2027-03-03T15:00:00-03:00',
  responsavel,
});
/** A whole line, from its start to its duration: nothing else may be in it. */
const linhaDe = (metodo: string, id: string, nome: string, traceparent: string, resto: string) =>
  new RegExp(`^mcp-> metodo=${metodo} id=${id} nome=${nome} traceparent=${traceparent} ${resto} \\d+\\.\\dms$`);

describe('ClienteMcp: one log line per MCP request, its outcome from the SDK', () => {
  let mcp: Processo | undefined;
  const linhas: string[] = [];
  let cliente: ClienteMcp | undefined;
  const conectado = () => {
    if (!cliente) throw new Error('o cliente nao subiu');
    return cliente;
  };
  /** The lines the action wrote: the SDK has answered when it settles, and the method writes its line then. */
  const linhasDe = async (acao: () => Promise<unknown>) => {
    const antes = linhas.length;
    await acao().catch(() => undefined);
    return linhas.slice(antes);
  };

  before(async () => {
    mcp = await iniciarServidorMcp();
    cliente = new ClienteMcp(new URL(mcp.url), (linha) => linhas.push(linha), undefined, undefined, 5_000);
  });
  after(async () => {
    await cliente?.fechar();
    await mcp?.parar();
  });

  it('the connect logs the SDK server/discover probe; tools/list once, then from the SDK cache with no line', async () => {
    assert.deepEqual(
      (await linhasDe(() => conectado().conectar())).map((linha) =>
        linhaDe('server/discover', '"server-discover-probe-1"', '-', '-', 'http=200 resultado=complete').test(linha),
      ),
      [true],
    );
    const lista = await linhasDe(async () => {
      await conectado().ferramentas(TRACEPARENT);
      await conectado().ferramentas(TRACEPARENT);
    });
    assert.equal(lista.length, 1, lista.join('\n'));
    assert.match(lista[0] ?? '', linhaDe('tools/list', '\\d+', '-', TRACEPARENT, 'http=200 resultado=complete'));
  });

  it('resources/read: complete, or the JSON-RPC error code the SDK threw', async () => {
    const [lida] = await linhasDe(() => conectado().lerTexto('politica://uso', TRACEPARENT));
    assert.match(lida ?? '', linhaDe('resources/read', '\\d+', 'politica://uso', TRACEPARENT, 'http=200 resultado=complete'));
    const [desconhecida] = await linhasDe(() => conectado().lerTexto('politica://nada', TRACEPARENT));
    assert.match(desconhecida ?? '', linhaDe('resources/read', '\\d+', 'politica://nada', TRACEPARENT, 'http=200 resultado="erro -32602"'));
  });

  it('tools/call: complete, input_required, complete isError and a JSON-RPC error, never the arguments or the requestState', async () => {
    const chamar = (nome: string, argumentos: Record<string, unknown>) =>
      conectado().chamar(nome, argumentos, { traceparent: TRACEPARENT });
    const chamada = (resultado: string, nome = 'reservar_sala') =>
      linhaDe('tools/call', '\\d+', nome, TRACEPARENT, `http=200 resultado=${resultado}`);
    assert.match((await linhasDe(() => chamar('reservar_sala', reserva('sala-garagem', 'Marty'))))[0] ?? '', chamada('complete'));
    let requestState = '';
    const pausa = await linhasDe(async () => {
      const resultado = await chamar('reservar_sala', reserva('sala-garagem', 'Biff'));
      assert.ok(isInputRequiredResult(resultado) && resultado.requestState !== undefined);
      requestState = resultado.requestState;
    });
    assert.match(pausa[0] ?? '', chamada('input_required'));
    assert.match((await linhasDe(() => chamar('reservar_sala', reserva('x', 'Doc'))))[0] ?? '', chamada('"complete isError"'));
    assert.match((await linhasDe(() => chamar('nao_existe', {})))[0] ?? '', chamada('"erro -32602"', 'nao_existe'));
    for (const linha of linhas) {
      assert.ok(!/Marty|Biff|Doc|sala-garagem/.test(linha), linha);
      assert.ok(!linha.includes(requestState.slice(0, 40)), linha);
    }
  });
});

describe('ClienteMcp: a request with no answer, and an HTTP refusal', () => {
  it('a transport failure is the fetch failure, without http=; a 401 is http=401 resultado=-', async () => {
    const linhas: string[] = [];
    const log = (linha: string) => linhas.push(linha);
    const comTokens = await iniciarServidorMcp({ MCP_TOKENS: `agente:${TOKEN}` });
    try {
      await assert.rejects(new ClienteMcp(new URL(comTokens.url), log, 'b'.repeat(40), undefined, 5_000).conectar());
      assert.match(linhas[0] ?? '', linhaDe('server/discover', '"server-discover-probe-1"', '-', '-', 'http=401 resultado=-'));
    } finally {
      await comTokens.parar();
    }
    // Nobody listens there any more.
    await assert.rejects(new ClienteMcp(new URL(comTokens.url), log, TOKEN, undefined, 5_000).conectar());
    assert.match(
      linhas[1] ?? '',
      linhaDe(
        'server/discover',
        '"server-discover-probe-1"',
        '-',
        '-',
        `resultado="falha connect ECONNREFUSED 127.0.0.1:${String(comTokens.porta)}"`,
      ),
    );
    assert.equal(linhas.length, 2, linhas.join('\n'));
  });
});
