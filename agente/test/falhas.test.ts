/**
 * What an MCP failure means for a step (ponte/falhas.ts): each error read as
 * one case of the union, and each case's outcome in the table of a first
 * call and of an answer in each era.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import { ChamadaNaoEnviada } from '../src/mcp/naoEnviada.js';
import {
  classificar,
  desfechoDa,
  MENSAGEM_DE_CANCELADA,
  naChamada,
  PRIMEIRA_CHAMADA,
  RESPOSTA,
  type Falha,
  type SituacaoDaResposta,
  type Tentativa,
} from '../src/ponte/falhas.js';
import { Recusa, RecusaAntesDaChamada } from '../src/ponte/perfil.js';
import type { Desfecho } from '../src/ponte/tipos.js';

const falhaDeRede = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
const http = (status: number) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `HTTP ${String(status)}`, { status });
const protocolo = (codigo: number) => new ProtocolError(codigo, `codigo ${String(codigo)}`);

/** What a failure thrown by the call itself looks like to classificar: marked by naChamada. */
async function lancadoNaChamada(erro: unknown): Promise<unknown> {
  try {
    await naChamada(() => Promise.reject(erro as Error));
  } catch (marcado) {
    return marcado;
  }
  assert.fail('naChamada swallowed the failure');
}

const TENTATIVA: Tentativa = { efeito: 'repetivel', repeticao: false, cancelada: false };
const caso = (falha: Falha) => `${falha.tipo}/${falha.caso}`;

describe('classificar: each failure as one case', () => {
  /** Each error, and its case when thrown by a call that may change something, and by a call that only reads. */
  const erros: [string, unknown, string, string][] = [
    ['a call the connection never sent', new ChamadaNaoEnviada('fechada'), 'nada-feito/indisponivel', 'nada-feito/indisponivel'],
    ['a refused connection', falhaDeRede('ECONNREFUSED'), 'nada-feito/indisponivel', 'nada-feito/indisponivel'],
    ['a connection reset after sending', falhaDeRede('ECONNRESET'), 'incerto/sem-resposta', 'nada-feito/indisponivel'],
    ['a timeout', new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), 'incerto/sem-resposta', 'nada-feito/indisponivel'],
    ['an HTTP 5xx', http(503), 'incerto/sem-resposta', 'nada-feito/indisponivel'],
    ['an HTTP 4xx', http(400), 'nada-feito/indisponivel', 'nada-feito/indisponivel'],
    ['an HTTP 401', http(401), 'nada-feito/credenciais', 'nada-feito/credenciais'],
    ['an UnauthorizedError', new UnauthorizedError('no'), 'nada-feito/credenciais', 'nada-feito/credenciais'],
    ['-32603, an internal error', protocolo(ProtocolErrorCode.InternalError), 'incerto/sem-resposta', 'resposta/erro'],
    ['-32601, an unknown method', protocolo(ProtocolErrorCode.MethodNotFound), 'resposta/erro', 'resposta/erro'],
    [
      '-32602, invalid params',
      protocolo(ProtocolErrorCode.InvalidParams),
      'resposta/parametros-invalidos',
      'resposta/parametros-invalidos',
    ],
    ['anything else', new Error('bug'), 'incerto/sem-resposta', 'nada-feito/inesperada'],
  ];

  it('a failure of the call: uncertain when it may have had its effect, never for a read', async () => {
    for (const [nome, erro, quandoMuda, quandoLe] of erros) {
      const lancado = await lancadoNaChamada(erro);
      assert.equal(caso(classificar(lancado, TENTATIVA)), quandoMuda, nome);
      assert.equal(caso(classificar(lancado, { ...TENTATIVA, efeito: 'unico' })), quandoMuda, nome);
      assert.equal(caso(classificar(lancado, { ...TENTATIVA, efeito: 'nenhum' })), quandoLe, nome);
    }
  });

  it('a failure before the call (the profile reading the policy) or after it (reading the answer) did nothing', () => {
    for (const [nome, erro, , quandoLe] of erros) assert.equal(caso(classificar(erro, TENTATIVA)), quandoLe, nome);
    assert.equal(caso(classificar(new RecusaAntesDaChamada('sem a ferramenta'), TENTATIVA)), 'nada-feito/antes-da-chamada');
    assert.equal(caso(classificar(new Recusa('fora do contrato'), TENTATIVA)), 'resposta/recusada');
  });

  it("a replay's failure leaves the earlier attempt uncertain, unless it is the server's final word", async () => {
    const repeticao = { ...TENTATIVA, repeticao: true };
    assert.equal(caso(classificar(new ChamadaNaoEnviada('fechada'), repeticao)), 'incerto/repeticao');
    assert.equal(caso(classificar(await lancadoNaChamada(new ChamadaNaoEnviada('fechada')), repeticao)), 'incerto/repeticao');
    assert.equal(caso(classificar(new RecusaAntesDaChamada('sem a ferramenta'), repeticao)), 'incerto/repeticao');
    assert.equal(caso(classificar(http(401), repeticao)), 'incerto/repeticao');
    assert.equal(caso(classificar(protocolo(ProtocolErrorCode.MethodNotFound), repeticao)), 'incerto/repeticao');
    assert.equal(caso(classificar(protocolo(ProtocolErrorCode.InvalidParams), repeticao)), 'resposta/parametros-invalidos');
    assert.equal(caso(classificar(new Recusa('fora do contrato'), repeticao)), 'resposta/recusada');
    // A read's replay is a read: nothing to be uncertain of.
    assert.equal(caso(classificar(new ChamadaNaoEnviada('fechada'), { ...repeticao, efeito: 'nenhum' })), 'nada-feito/indisponivel');
  });

  it("a client's cancel is the outcome, whatever the call threw", async () => {
    const cancelada = { ...TENTATIVA, cancelada: true };
    for (const [nome, erro] of erros) {
      assert.equal(caso(classificar(await lancadoNaChamada(erro), cancelada)), 'incerto/cancelada', nome);
      assert.equal(caso(classificar(erro, { ...cancelada, efeito: 'nenhum' })), 'incerto/cancelada', nome);
    }
  });

  it("a case carries the error's own message (the call's, not naChamada's mark), and a JSON-RPC error its code", async () => {
    assert.deepEqual(classificar(await lancadoNaChamada(falhaDeRede('ECONNRESET')), TENTATIVA), {
      tipo: 'incerto',
      caso: 'sem-resposta',
      mensagem: 'fetch failed',
    });
    assert.deepEqual(classificar(protocolo(ProtocolErrorCode.MethodNotFound), TENTATIVA), {
      tipo: 'resposta',
      caso: 'erro',
      codigo: ProtocolErrorCode.MethodNotFound,
      mensagem: 'codigo -32601',
    });
  });
});

describe('the table: each case as the step outcome, a first call and an answer in each era', () => {
  const ONDE = 'http://mcp.test/mcp';
  const situacao = (extra: Partial<SituacaoDaResposta> = {}): SituacaoDaResposta => ({
    onde: ONDE,
    efeito: 'repetivel',
    palavras: { efeito: 'pode ter feito', repeticao: 'sem efeito dobrado', nadaFeito: 'Nada foi feito' },
    credenciais: 'credenciais recusadas',
    manter: (erro) => ({ estado: 'pausada', mensagem: `a pergunta\n${erro}`, dados: { erro } }),
    comEstado: true,
    ...extra,
  });
  const falhou = (mensagem: string): Desfecho => ({ estado: 'falhou', mensagem });
  const mantida = (erro: string): Desfecho => situacao().manter(`${erro} Nada foi feito: envie a resposta de novo.`);
  const incerto: Desfecho = {
    estado: 'incerto',
    mensagem: `Sem desfecho do servidor MCP em ${ONDE} (m): pode ter feito. A Task segue em andamento e o agente repete a mesma chamada, sem efeito dobrado, ate ter o desfecho.`,
  };
  const recusado = 'O servidor MCP recusou o pedido (-32602: m).';

  /** Each case, and its outcome in a first call, an answer of the 2026-07-28 era, and an answer of the 2025 era. */
  const linhas: [Falha, Desfecho, Desfecho, Desfecho][] = [
    [{ tipo: 'nada-feito', caso: 'antes-da-chamada', mensagem: 'm' }, falhou('m'), falhou('m'), falhou('m')],
    [
      { tipo: 'nada-feito', caso: 'credenciais', mensagem: 'm' },
      falhou('credenciais recusadas'),
      mantida('credenciais recusadas'),
      falhou('credenciais recusadas'),
    ],
    [
      { tipo: 'nada-feito', caso: 'indisponivel', mensagem: 'm' },
      falhou(`Servidor MCP indisponivel em ${ONDE}: m`),
      mantida(`O servidor MCP esta inalcancavel em ${ONDE} (m).`),
      falhou(`Servidor MCP indisponivel em ${ONDE}: m`),
    ],
    [
      { tipo: 'nada-feito', caso: 'inesperada', mensagem: 'm' },
      falhou('Falha inesperada ao falar com o servidor MCP: m'),
      mantida(`O servidor MCP esta inalcancavel em ${ONDE} (m).`),
      falhou('Falha inesperada ao falar com o servidor MCP: m'),
    ],
    [{ tipo: 'incerto', caso: 'sem-resposta', mensagem: 'm' }, incerto, incerto, incerto],
    [{ tipo: 'incerto', caso: 'repeticao', mensagem: 'm' }, incerto, incerto, incerto],
    [
      { tipo: 'incerto', caso: 'cancelada', mensagem: 'm' },
      { estado: 'cancelada', mensagem: MENSAGEM_DE_CANCELADA },
      { estado: 'cancelada', mensagem: MENSAGEM_DE_CANCELADA },
      { estado: 'cancelada', mensagem: MENSAGEM_DE_CANCELADA },
    ],
    [
      { tipo: 'resposta', caso: 'erro', codigo: -32601, mensagem: 'm' },
      falhou('O servidor MCP recusou o pedido (-32601: m).'),
      mantida('O servidor MCP nao concluiu a resposta (-32601: m).'),
      falhou('O servidor MCP recusou o pedido (-32601: m).'),
    ],
    [
      { tipo: 'resposta', caso: 'parametros-invalidos', codigo: -32602, mensagem: 'm' },
      falhou(recusado),
      falhou(`${recusado} A pergunta pode ter expirado: envie o pedido de novo.`),
      falhou(recusado),
    ],
    [{ tipo: 'resposta', caso: 'recusada', mensagem: 'm' }, falhou('m'), falhou('m'), falhou('m')],
    [{ tipo: 'resposta', caso: 'isError', mensagem: 'm' }, falhou('m'), falhou('m'), falhou('m')],
  ];

  it('every case has its row', () => {
    assert.deepEqual(linhas.map(([falha]) => falha.caso).sort(), Object.keys(PRIMEIRA_CHAMADA).sort());
  });

  for (const [falha, primeira, moderna, sessao] of linhas)
    it(`${falha.tipo}/${falha.caso}`, () => {
      assert.deepEqual(desfechoDa(falha, PRIMEIRA_CHAMADA, situacao()), primeira, 'first call');
      assert.deepEqual(desfechoDa(falha, RESPOSTA.moderna, situacao()), moderna, 'answer, 2026-07-28');
      assert.deepEqual(desfechoDa(falha, RESPOSTA.sessao, situacao()), sessao, 'answer, 2025');
    });

  it('uncertain, for a tool not declared safe to repeat: FAILED saying so, never replayed', () => {
    const unico = situacao({ efeito: 'unico' });
    for (const tabela of [PRIMEIRA_CHAMADA, RESPOSTA.moderna, RESPOSTA.sessao])
      for (const caso of ['sem-resposta', 'repeticao'] as const)
        assert.deepEqual(
          desfechoDa({ tipo: 'incerto', caso, mensagem: 'm' }, tabela, unico),
          falhou(
            `Sem desfecho do servidor MCP em ${ONDE} (m): pode ter feito. A ferramenta nao se declara segura de repetir, entao o agente nao a repete: confira no servidor antes de pedir de novo.`,
          ),
        );
  });

  it('-32602 to an answer that echoed no state (a URL question, its call made again) keeps the question', () => {
    const falha: Falha = { tipo: 'resposta', caso: 'parametros-invalidos', codigo: -32602, mensagem: 'm' };
    assert.deepEqual(
      desfechoDa(falha, RESPOSTA.moderna, situacao({ comEstado: false })),
      mantida('O servidor MCP nao concluiu a resposta (-32602: m).'),
    );
  });
});
