/**
 * A 2025-era server over Streamable HTTP, as users run it: the reference
 * server-everything (1.x SDK, stateful sessions), started on a free port.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { setTimeout as esperar } from 'node:timers/promises';
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { lerServidores } from '../src/mcp/configuracao.js';
import { ehPerguntaDaTarefa, type ResultadoDaFerramenta } from '../src/mcp/conexao.js';
import { ConexaoGenerica } from '../src/mcp/generica.js';
import { portaLivre } from './apoio.js';

const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

interface Everything {
  readonly url: string;
  /** How many lines of its stdout (one or two per request it received) matched so far. */
  contar(padrao: RegExp): number;
  /** Resolves once that many lines matched: its stdout reaches us after its answer. */
  esperarLinhas(padrao: RegExp, quantas: number): Promise<void>;
  parar(): void;
}

async function iniciarEverything(): Promise<Everything> {
  const porta = await portaLivre();
  const filho = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(porta) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Drained, or the pipe would fill and block the server.
  const saida: string[] = [];
  filho.stdout.on('data', (parte: Buffer) => saida.push(...parte.toString('utf8').split('\n')));
  const contar = (padrao: RegExp) => saida.filter((linha) => padrao.test(linha)).length;
  let erros = '';
  await new Promise<void>((resolver, rejeitar) => {
    filho.stderr.on('data', (parte: Buffer) => {
      erros += parte.toString('utf8');
      if (/listening on port/.test(erros)) resolver();
    });
    filho.once('exit', (codigo) => rejeitar(new Error(`server-everything saiu (${String(codigo)}) antes de ouvir:\n${erros}`)));
  });
  return {
    url: `http://127.0.0.1:${String(porta)}/mcp`,
    contar,
    esperarLinhas: (padrao, quantas) =>
      new Promise((resolver) => {
        const conferir = () => {
          if (contar(padrao) < quantas) return;
          filho.stdout.off('data', conferir);
          resolver();
        };
        filho.stdout.on('data', conferir);
        conferir();
      }),
    parar: () => filho.kill(),
  };
}

const textos = (resultado: ResultadoDaFerramenta) =>
  isInputRequiredResult(resultado) || ehPerguntaDaTarefa(resultado)
    ? ''
    : resultado.content.map((bloco) => (bloco.type === 'text' ? bloco.text : '')).join('\n');

describe('a 2025-era server over Streamable HTTP (server-everything)', () => {
  let everything: Everything | undefined;
  before(async () => {
    everything = await iniciarEverything();
  });
  after(() => everything?.parar());

  /** A connection of its own for each test, and its log lines. */
  function conectar(prazoMs = 10_000) {
    if (!everything) throw new Error('server-everything nao subiu');
    const [servidor] = lerServidores(JSON.stringify({ mcpServers: { tudo: { url: everything.url } } }), 'teste.json');
    if (!servidor) throw new Error('sem servidor');
    const linhas: string[] = [];
    return { conexao: new ConexaoGenerica(servidor, (linha) => linhas.push(linha), prazoMs), linhas };
  }

  it("is a 'sessao' server ('auto' probed, fell back to initialize) and lists its tools", async () => {
    const { conexao, linhas } = conectar();
    try {
      await conexao.conectar();
      assert.equal(conexao.era(), 'sessao');
      assert.equal(conexao.onde, everything?.url);
      const nomes = (await conexao.ferramentas(TRACEPARENT)).map(({ name }) => name);
      for (const nome of ['echo', 'get-sum', 'trigger-long-running-operation', 'trigger-elicitation-request', 'trigger-url-elicitation'])
        assert.ok(nomes.includes(nome), `${nome} em ${nomes.join(', ')}`);
      // No sampling and no roots declared: the server registers no tool that needs them.
      assert.ok(!nomes.includes('trigger-sampling-request') && !nomes.includes('get-roots-list'));
      assert.match(linhas[0] ?? '', /^mcp-> servidor=tudo sessao=1 metodo=server\/discover .*resultado="falha .*Server not initialized/);
      assert.match(linhas[1] ?? '', /^mcp-> servidor=tudo sessao=1 metodo=initialize id=0 .*resultado=complete [\d.]+ms$/);
      assert.match(
        linhas[2] ?? '',
        new RegExp(`^mcp-> servidor=tudo sessao=1 metodo=tools/list id=1 nome=- traceparent=${TRACEPARENT} resultado=complete`),
      );
    } finally {
      await conexao.fechar();
    }
  });

  it("takes its elicitation/create to the calling call's aoPerguntar, and the answer to the tool", async () => {
    const { conexao, linhas } = conectar();
    try {
      const perguntas: string[] = [];
      const resultado = await conexao.chamar(
        'trigger-elicitation-request',
        {},
        {
          traceparent: TRACEPARENT,
          aoPerguntar: (pergunta) => {
            perguntas.push(pergunta.message);
            return Promise.resolve({
              action: 'accept',
              content: { name: 'Marty McFly', check: true, email: 'marty@hill.valley', integer: 7 },
            });
          },
        },
      );
      assert.deepEqual(perguntas, ['Please provide inputs for the following fields:']);
      assert.match(textos(resultado), /User provided the requested information![\s\S]*Name: Marty McFly[\s\S]*Favorite Integer: 7/);
      assert.ok(linhas.some((linha) => /^mcp<- servidor=tudo sessao=1 metodo=elicitation\/create id=0 .*resultado=accept/.test(linha)));
    } finally {
      await conexao.fechar();
    }
  });

  it('declines for the agent when the call does not ask, and passes a decline on', async () => {
    const { conexao } = conectar();
    try {
      const semPergunta = await conexao.chamar('trigger-elicitation-request', {}, { traceparent: TRACEPARENT });
      assert.match(textos(semPergunta), /User declined/);
      const recusada = await conexao.chamar(
        'trigger-elicitation-request',
        {},
        { traceparent: TRACEPARENT, aoPerguntar: () => Promise.resolve({ action: 'decline' }) },
      );
      assert.match(textos(recusada), /User declined/);
    } finally {
      await conexao.fechar();
    }
  });

  it('gives each running call a session of its own, so each question reaches its own call', async () => {
    const { conexao, linhas } = conectar();
    const ENCERRADA = /^Received session termination request/;
    const encerradas = everything?.contar(ENCERRADA) ?? 0;
    try {
      let abrir = () => {};
      const ambasPerguntadas = new Promise<void>((resolver) => (abrir = resolver));
      let perguntadas = 0;
      const chamar = (nome: string) =>
        conexao.chamar(
          'trigger-elicitation-request',
          {},
          {
            traceparent: TRACEPARENT,
            // Both questions are open at once: neither call can be answered before the other has asked.
            aoPerguntar: async () => {
              if (++perguntadas === 2) abrir();
              await ambasPerguntadas;
              return { action: 'accept', content: { name: nome } };
            },
          },
        );
      const [doc, marty] = await Promise.all([chamar('Doc Brown'), chamar('Marty McFly')]);
      assert.match(textos(doc), /Name: Doc Brown/);
      assert.match(textos(marty), /Name: Marty McFly/);
      assert.ok(linhas.some((linha) => linha.startsWith('mcp-> servidor=tudo sessao=2 metodo=initialize')));
    } finally {
      await conexao.fechar();
    }
    // fechar() ended both sessions on the server (DELETE), not just its sockets.
    await everything?.esperarLinhas(ENCERRADA, encerradas + 2);
  });

  it("hands the call's progress to aoProgredir", async () => {
    const { conexao } = conectar();
    try {
      const progresso: unknown[] = [];
      const resultado = await conexao.chamar(
        'trigger-long-running-operation',
        { duration: 0.3, steps: 3 },
        { traceparent: TRACEPARENT, aoProgredir: (passo) => progresso.push(passo) },
      );
      assert.match(textos(resultado), /Long running operation completed/);
      assert.deepEqual(progresso, [
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    } finally {
      await conexao.fechar();
    }
  });

  it('waits the deadline from the last progress, and not while a question waits for its answer', async () => {
    const { conexao } = conectar(1_000);
    try {
      // 1.6 s of work, a progress every 0.4 s: longer than the deadline, never silent for as long.
      const longa = await conexao.chamar(
        'trigger-long-running-operation',
        { duration: 1.6, steps: 4 },
        { traceparent: TRACEPARENT, aoProgredir: () => {} },
      );
      assert.match(textos(longa), /Long running operation completed/);
      const demorada = await conexao.chamar(
        'trigger-elicitation-request',
        {},
        {
          traceparent: TRACEPARENT,
          aoPerguntar: async () => {
            await esperar(1_500);
            return { action: 'decline' };
          },
        },
      );
      assert.match(textos(demorada), /User declined/);
      await assert.rejects(conexao.chamar('trigger-long-running-operation', { duration: 2, steps: 1 }, { traceparent: TRACEPARENT }), {
        name: 'SdkError',
        message: 'Request timed out',
      });
    } finally {
      await conexao.fechar();
    }
  });

  it('cancels the call when its signal aborts: the SDK sends notifications/cancelled (this era has no per-request stream to close)', async () => {
    const { conexao, linhas } = conectar();
    try {
      const cancelar = new AbortController();
      await assert.rejects(
        conexao.chamar(
          'trigger-long-running-operation',
          { duration: 5, steps: 5 },
          { traceparent: TRACEPARENT, sinal: cancelar.signal, aoProgredir: () => cancelar.abort() },
        ),
        { name: 'AbortError' },
      );
      // The log writes `cancelada` when it sees notifications/cancelled for the request go out.
      assert.ok(
        linhas.some((linha) =>
          /^mcp-> servidor=tudo sessao=1 metodo=tools\/call id=\d+ nome=trigger-long-running-operation .*resultado=cancelada/.test(linha),
        ),
      );
      // The session is free again for the next call.
      assert.match(textos(await conexao.chamar('echo', { message: 'ainda aqui' }, { traceparent: TRACEPARENT })), /Echo: ainda aqui/);
    } finally {
      await conexao.fechar();
    }
  });
});
