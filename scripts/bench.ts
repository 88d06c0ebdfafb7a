/**
 * `npm run bench [-- --segundos 5 --aquecimento 15 --rodadas 3 --conexoes 10 --agente-antes <bundle> --transacoes 3 --so-transacoes --so-mcp]`: what our processes cost
 * over the platform, measured in one run on one machine. Starts everything
 * on free ports, warms up, then measures each scenario for a fixed time and
 * concurrency with autocannon, prints one table and writes it as JSON.
 * First, the transactions per request on a PostgreSQL Tasks database
 * (scripts/transacoes.ts), each kind's statements on stderr.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { specTypeSchemas, type ElicitRequestParams } from '@modelcontextprotocol/client';
import { idDaReserva } from '../servidor-mcp/src/dominio/regras.js';
import { FERRAMENTAS } from 'compartilhado/contrato';
import { idDaSkill } from '../agente/src/mcp/conexao.js';
import { vaga } from './dados.js';
import * as z from 'zod';
import { CorpoA2A, tarefaDo } from './a2a-cru.js';
import { objeto } from 'compartilhado/log';
import { WebSocket, type MessageEvent } from 'undici';
import { chaveEEstado, pedidoMcp } from './mcp-cru.js';
import { iniciarPostgres } from './postgres.js';
import { contarTransacoes, detalhar, medidaMediana, TIPOS, type Tipo } from './transacoes.js';
import { ARQUIVO_DO_AGENTE, ARQUIVO_DO_MCP, cpuMicrossegundos, iniciar, memoriaMiB, type Processo } from './processos.js';

const { values } = parseArgs({
  options: {
    segundos: { type: 'string', default: '5' },
    // Load before each measured run, the same for every scenario: measured by each process's CPU per request
    // (/proc/<pid>/stat), a fresh process keeps getting cheaper for about 15 s, floors and ours alike.
    aquecimento: { type: 'string', default: '15' },
    conexoes: { type: 'string', default: '10' },
    saida: { type: 'string', default: `bench/resultados/${new Date().toISOString().replace(/[:.]/g, '-')}.json` },
    pausadas: { type: 'string', default: '10000' },
    // An agent bundle built from an earlier commit, measured beside this one in the same run (see docs/desempenho.md).
    'agente-antes': { type: 'string' },
    // Rounds of the scenarios compared with each other (the median of each is what the ratios compare).
    rodadas: { type: 'string', default: '3' },
    // Rounds of the transaction count (the median is printed); --so-transacoes runs nothing else.
    transacoes: { type: 'string', default: '3' },
    'so-transacoes': { type: 'boolean', default: false },
    // Only the SDK floor and our two MCP tools, in a few seconds: for work on the MCP server alone.
    'so-mcp': { type: 'boolean', default: false },
  },
});
const SEGUNDOS = Number(values.segundos);
const AQUECIMENTO = Number(values.aquecimento);
const CONEXOES = Number(values.conexoes);
const RODADAS = Number(values.rodadas);
const PAUSADAS = Number(values.pausadas);
const RAIZ = new URL('../', import.meta.url);
const DADOS = new URL('dados/', RAIZ);

interface Linha {
  cenario: string;
  reqPorSeg: number;
  /** autocannon reports percentiles in whole milliseconds; the mean keeps the fraction. */
  media: number;
  p50: number;
  p99: number;
  erros: number;
  pedidos: number;
  /** In the rounds, each process's CPU (user + system) per request, in microseconds, by the process's role. */
  cpu?: Record<string, number>;
}
const linhas: Linha[] = [];
/** What one autocannon connection carries from a response to its next request. */
const Contexto = z.object({ chave: z.string().optional(), requestState: z.string().optional(), taskId: z.string().optional() });
type Contexto = z.infer<typeof Contexto>;
const processos: Processo[] = [];

const corpoMcp = (metodo: string, params: Record<string, unknown>) => pedidoMcp({ metodo, params }, randomUUID()).body;
const chamarFerramenta = (name: string, args: Record<string, unknown>, extra?: Record<string, unknown>) => ({
  method: 'POST' as const,
  ...pedidoMcp({ metodo: 'tools/call', params: { name, arguments: args, ...extra } }, randomUUID()),
});
const mensagemComParte = (parte: object, taskId?: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: randomUUID(),
    method: 'SendMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [parte], ...(taskId ? { taskId } : {}) } },
  });
const mensagemA2A = (texto: string, taskId?: string) => mensagemComParte({ text: texto }, taskId);
const mensagemA2ADados = (dados: object) => mensagemComParte({ data: dados });

/** Free slots that never repeat, from 2030 on (the data file and the other scenarios use earlier days). */
function vagas() {
  let n = 0;
  return () => ({ ...vaga(n++, '2030-01-01', 30), responsavel: 'Bench' });
}

async function medir(
  cenario: string,
  url: string,
  requests: autocannon.Request[],
  duracao = SEGUNDOS,
  conexoes = CONEXOES,
  aquecimento = false,
): Promise<Linha> {
  const resultado = await autocannon({ url, connections: conexoes, duration: duracao, requests });
  const erros = resultado.errors + resultado.timeouts + resultado.non2xx;
  const linha = {
    cenario,
    reqPorSeg: resultado.requests.average,
    media: resultado.latency.mean,
    p50: resultado.latency.p50,
    p99: resultado.latency.p99,
    erros,
    pedidos: resultado.requests.total,
  };
  if (!aquecimento) linhas.push(linha);
  process.stderr.write(
    `  ${cenario}: ${linha.reqPorSeg.toFixed(0)} req/s, media ${linha.media.toFixed(2)} ms, p50 ${linha.p50} ms, p99 ${linha.p99} ms, erros ${erros}\n`,
  );
  return linha;
}

/** Warm-up (JIT, caches, connection pools), then the measured run. */
async function aquecerEMedir(cenario: string, url: string, requests: () => autocannon.Request[], conexoes = CONEXOES): Promise<Linha> {
  await medir(`${cenario} (aquecimento)`, url, requests(), AQUECIMENTO, conexoes, true);
  return medir(conexoes === CONEXOES ? cenario : `${cenario} (${conexoes} conexao)`, url, requests(), SEGUNDOS, conexoes);
}

const REAQUECIMENTO_S = 3;

interface Cenario {
  readonly nome: string;
  readonly url: string;
  readonly requests: () => autocannon.Request[];
  /** The processes a request goes through, by role: their CPU per request is measured beside the throughput. */
  readonly processos: Readonly<Record<string, Processo>>;
}

/**
 * Scenarios compared with each other, all up at once, each warmed up, then
 * measured in alternating rounds: on this kind of machine (two cores, the
 * load generator on one of them) one moment of the load differs from the
 * next by up to a third, floors and ours alike. Each measurement follows
 * REAQUECIMENTO_S of the same load: a process idle while the others ran
 * has had its heap shrunk by V8, and its first seconds back collect more
 * often (the first scenario, idle longest, came out a third slower in its
 * first round). The round with the median throughput stands for each
 * scenario in the ratios.
 */
async function emRodadas<const C extends readonly Cenario[]>(...cenarios: C): Promise<{ [K in keyof C]: Linha }> {
  for (const { nome, url, requests } of cenarios) await medir(`${nome} (aquecimento)`, url, requests(), AQUECIMENTO, CONEXOES, true);
  const rodadas = cenarios.map((): Linha[] => []);
  for (let rodada = 1; rodada <= RODADAS; rodada++) {
    for (const [i, { nome, url, requests, processos }] of cenarios.entries()) {
      await medir(`${nome} (reaquecimento)`, url, requests(), REAQUECIMENTO_S, CONEXOES, true);
      const papeis = Object.entries(processos);
      const antes = papeis.map(([, processo]) => cpuMicrossegundos(processo.filho));
      const linha = await medir(`${nome}, rodada ${String(rodada)}`, url, requests());
      linha.cpu = Object.fromEntries(
        papeis.map(([papel, processo], j) => [papel, (cpuMicrossegundos(processo.filho) - (antes[j] ?? 0)) / linha.pedidos]),
      );
      rodadas[i]?.push(linha);
    }
  }
  return rodadas.map((linhas) => [...linhas].sort((a, b) => a.reqPorSeg - b.reqPorSeg)[Math.floor(linhas.length / 2)]) as {
    [K in keyof C]: Linha;
  };
}

function dadosCom(reservas: number): string {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-bench-'));
  for (const arquivo of ['salas.json', 'politica-de-uso.md']) copyFileSync(new URL(arquivo, DADOS), join(pasta, arquivo));
  const lista = Array.from({ length: reservas }, (_, i) => ({
    id: idDaReserva(i + 1),
    ...vaga(i, '2027-01-01', 45),
    responsavel: 'Carga',
  }));
  writeFileSync(join(pasta, 'reservas.json'), JSON.stringify(lista));
  return pasta;
}

/** The question `chave` of an input_required reply, checked by the MCP SDK's own schema. */
function questaoDe(corpo: string, chave: string): ElicitRequestParams {
  const pedido = objeto(objeto(objeto(objeto(JSON.parse(corpo))?.result)?.inputRequests)?.[chave]);
  const lida = specTypeSchemas.ElicitRequestParams['~standard'].validate(pedido?.params);
  if (lida.issues) throw new Error(`a pergunta ${chave} do servidor MCP nao e uma elicitation/create: ${JSON.stringify(lida.issues)}`);
  return lida.value;
}

/**
 * RSS says little about a few MiB, so the stores are also measured alone:
 * a real paused Task (read back with GetTask) and a real pause (with a real
 * requestState), saved PAUSADAS times into the agent's own in-memory stores,
 * heap measured after a forced GC (the bench runs with --expose-gc).
 */
async function heapPorPausada(a2a: string, mcpUrl: string, pedido: string): Promise<number> {
  const coletar = (globalThis as { gc?: () => void }).gc;
  if (!coletar) throw new Error('rode com node --expose-gc (npm run bench ja faz isso)');
  const { Task } = await import('@a2a-js/sdk');
  const { TarefasEmMemoria } = await import('../agente/src/armazenamento/tarefas.js');
  const { ServerCallContext } = await import('@a2a-js/sdk/server');
  const { PausasEmMemoria } = await import('../agente/src/armazenamento/pausas.js');
  const { SKILLS } = await import('../agente/src/salas/intencao.js');
  const postar = async (url: string, headers: Record<string, string>, body: string) =>
    (await fetch(url, { method: 'POST', headers, body })).text();
  const modelo = Task.fromJSON(
    tarefaDo(CorpoA2A.parse(JSON.parse(await postar(a2a, { 'content-type': 'application/json' }, mensagemA2A(pedido))))),
  );
  const args = { sala: 'sala-garagem', inicio: '2026-11-03T14:00:00-03:00', fim: '2026-11-03T15:00:00-03:00', responsavel: 'Bench' };
  const pergunta = await postar(
    mcpUrl,
    chamarFerramenta(FERRAMENTAS.reservar, args).headers,
    corpoMcp('tools/call', { name: FERRAMENTAS.reservar, arguments: args }),
  );
  const { chave, requestState } = chaveEEstado(pergunta);
  // The question as the server wrote it: a pause keeps it whole, so its size counts.
  const perguntas = { [chave]: questaoDe(pergunta, chave) };
  const texto = JSON.stringify(Task.toJSON(modelo));
  const tarefas = new TarefasEmMemoria(PAUSADAS * 2);
  const contexto = new ServerCallContext();
  const pausas = new PausasEmMemoria();
  coletar();
  const antes = process.memoryUsage().heapUsed;
  for (let i = 0; i < PAUSADAS; i++) {
    const id = randomUUID();
    // Its own ids everywhere, messages included, as a Task of its own would have.
    await tarefas.save(Task.fromJSON(JSON.parse(texto.replaceAll(modelo.id, id).replaceAll(modelo.contextId, randomUUID()))), contexto);
    await pausas.guardar(id, {
      skill: SKILLS.reservar,
      ferramenta: FERRAMENTAS.reservar,
      argumentos: args,
      perguntas,
      // A copy per pause, as each would be its own string in a real agent.
      requestState: `${requestState} `.trimEnd(),
      rodada: 1,
      trace: { traceId: randomBytes(16).toString('hex'), flags: '01' },
      criadaEm: Date.now(),
    });
  }
  coletar();
  const kib = (process.memoryUsage().heapUsed - antes) / 1024 / PAUSADAS;
  if (tarefas.tamanho !== PAUSADAS || (await pausas.total()) !== PAUSADAS) throw new Error('as estruturas nao guardaram tudo');
  return kib;
}

/**
 * The agent's RSS per paused Task, in a fresh agent (inspector on a
 * loopback port): RSS after a full GC, PAUSADAS pauses that stay open, RSS
 * right after them and after another full GC. Right after, RSS also holds
 * the garbage of the load: V8 lets the heap grow to several times what is
 * live before it collects. The full GC (the inspector's, which also gives
 * free pages back) leaves what the Tasks really keep.
 */
const AQUECIMENTO_DE_PAUSAS = 500;

async function rssPorPausada(mcpUrl: string, pedido: string) {
  const agente = await subir(ARQUIVO_DO_AGENTE, {
    AGENTE_PORT: '0',
    MCP_URL: mcpUrl,
    AGENTE_MAX_PAUSED: String(PAUSADAS * 2 + AQUECIMENTO_DE_PAUSAS),
    NODE_OPTIONS: '--inspect=127.0.0.1:0',
  });
  const inspetor = new WebSocket(
    /Debugger listening on (ws:\/\/\S+)/.exec(await agente.esperarLinha(/Debugger listening on ws:/))?.[1] ?? '',
  );
  await new Promise((resolver, rejeitar) => {
    inspetor.addEventListener('open', resolver);
    inspetor.addEventListener('error', rejeitar);
  });
  let proximo = 0;
  const coletar = async () => {
    const id = ++proximo;
    await new Promise<void>((resolver) => {
      const ouvir = (evento: MessageEvent) => {
        if (typeof evento.data !== 'string' || objeto(JSON.parse(evento.data))?.id !== id) return;
        inspetor.removeEventListener('message', ouvir);
        resolver();
      };
      inspetor.addEventListener('message', ouvir);
      inspetor.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
    });
    return memoriaMiB(agente.filho);
  };
  // Some pauses first: code compiled, pools and caches filled, as in an agent that has been serving.
  const pausar = async (amount: number) => {
    let pausadas = 0;
    await autocannon({
      url: `${agente.url}/a2a`,
      connections: CONEXOES,
      amount,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => ({ ...req, body: mensagemA2A(pedido) }),
          onResponse: (status) => {
            if (status === 200) pausadas++;
          },
        },
      ],
    });
    return pausadas;
  };
  await pausar(AQUECIMENTO_DE_PAUSAS);
  const antes = await coletar();
  const pausadas = await pausar(PAUSADAS);
  const logoDepois = memoriaMiB(agente.filho);
  const depoisDoGc = await coletar();
  inspetor.close();
  await agente.parar();
  const porTask = (mib: number) => ((mib - antes) * 1024) / pausadas;
  return { pausadas, antes, logoDepois, depoisDoGc, kibLogoDepois: porTask(logoDepois), kibDepoisDoGc: porTask(depoisDoGc) };
}

const segredo = randomBytes(32).toString('hex');

const ecoDoPiso = () => [chamarFerramenta('eco', { texto: 'oi' })];
const consultarGaragem = () => [
  chamarFerramenta('consultar_disponibilidade', {
    sala: 'sala-garagem',
    inicio: '2026-11-03T14:00:00-03:00',
    fim: '2026-11-03T15:00:00-03:00',
  }),
];
/** Each request books a slot never asked for before. */
const reservarLivre =
  (vaga = vagas()) =>
  () => [
    {
      ...chamarFerramenta(FERRAMENTAS.reservar, {}),
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        body: corpoMcp('tools/call', { name: FERRAMENTAS.reservar, arguments: vaga() }),
      }),
    },
  ];

/** An OTLP/HTTP endpoint that reads each export whole and answers 200, counting them: the cheapest collector there is. */
async function coletorMudo(): Promise<{ url: string; lotes: () => number; fechar: () => void }> {
  let lotes = 0;
  const servidor = createServer((req, res) => {
    req.resume().on('end', () => {
      lotes++;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  servidor.listen(0, '127.0.0.1');
  await once(servidor, 'listening');
  const { port } = servidor.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}`, lotes: () => lotes, fechar: () => servidor.close() };
}

/**
 * Each process, compiled, started `vezes` times: from spawn to accepting
 * connections (its "ouvindo em" line), and its RSS once it has sat idle for
 * a second. Min and max of the starts, milliseconds and MiB.
 */
async function subidas(arquivo: string, env: Record<string, string>, vezes = 3) {
  const ms: number[] = [];
  const mib: number[] = [];
  for (let i = 0; i < vezes; i++) {
    const comeco = performance.now();
    const processo = await iniciar(arquivo, env);
    ms.push(performance.now() - comeco);
    await new Promise((resolver) => setTimeout(resolver, 1000));
    mib.push(memoriaMiB(processo.filho));
    await processo.parar();
  }
  return { ms: [Math.min(...ms), Math.max(...ms)], mib: [Math.min(...mib), Math.max(...mib)] };
}
const subir = async (arquivo: string, env: Record<string, string>) => {
  const processo = await iniciar(arquivo, env, { soAtePronto: true });
  processos.push(processo);
  return processo;
};

/** Transactions per request on a PostgreSQL Tasks database, counted from its statement log: the counts and their table. */
async function medirTransacoes() {
  process.stderr.write(`bench: transacoes no banco de Tasks por pedido, ${values.transacoes} rodadas\n`);
  const contagem = await contarTransacoes(Number(values.transacoes));
  process.stderr.write(`${detalhar(contagem)}\n`);
  const tipos = Object.keys(TIPOS) as Tipo[];
  const transacoes = tipos.map((tipo) => medidaMediana(contagem, tipo));
  const tabela = [
    `| transacoes por pedido (PostgreSQL, log de comandos, mediana de ${values.transacoes}; alvo <= 3 sem pausa e na resposta) | ${tipos.join(' | ')} |`,
    `| --- |${' ---: |'.repeat(tipos.length)}`,
    `| banco de Tasks (agente) | ${transacoes.map((medida) => String(medida.tarefas.length)).join(' | ')} |`,
    `| banco de reservas (servidor MCP) | ${transacoes.map((medida) => String(medida.reservas)).join(' | ')} |`,
  ].join('\n');
  return { contagem, tabela };
}

const cpuPorPapel = ({ cpu }: Linha) =>
  cpu
    ? Object.entries(cpu)
        .map(([papel, us]) => `${papel} ${us.toFixed(0)}`)
        .join(' + ')
    : '-';
/** CPU per request of all the processes a scenario's request went through. */
const cpuTotal = ({ cpu = {} }: Linha) => Object.values(cpu).reduce((soma, us) => soma + us, 0);

/** The table on stdout, the rows and ratios as JSON in bench/resultados/. */
function publicar(razoes: Record<string, number>, extras: object, rodape = ''): void {
  const tabela = [
    '| cenario | req/s | media (ms) | p50 (ms) | p99 (ms) | erros | CPU por request (µs) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...linhas.map(
      (l) => `| ${l.cenario} | ${l.reqPorSeg.toFixed(0)} | ${l.media.toFixed(2)} | ${l.p50} | ${l.p99} | ${l.erros} | ${cpuPorPapel(l)} |`,
    ),
    '',
    '| razao | valor |',
    '| --- | ---: |',
    ...Object.entries(razoes).map(([nome, valor]) => `| ${nome} | ${valor.toFixed(2)} |`),
    ...(rodape ? ['', rodape] : []),
  ].join('\n');
  process.stdout.write(`\n${tabela}\n`);
  mkdirSync(new URL('bench/resultados/', RAIZ), { recursive: true });
  const saida = new URL(values.saida, RAIZ);
  writeFileSync(
    saida,
    JSON.stringify({ quando: new Date().toISOString(), segundos: SEGUNDOS, conexoes: CONEXOES, linhas, razoes, extras }, null, 2),
  );
  process.stderr.write(`resultado em ${saida.pathname}\n`);
}

/** The SDK floor and our two MCP tools, in rounds: for work on the MCP server alone. */
async function soMcp(): Promise<void> {
  const sdk = await subir('scripts/bench/piso-sdk.ts', {});
  const mcp = await subir(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredo });
  const [pisoSdk, consultar, reservar] = await emRodadas(
    { nome: 'piso do SDK MCP (1 tool)', url: sdk.url, requests: ecoDoPiso, processos: { servidor: sdk } },
    { nome: 'nosso MCP: consultar_disponibilidade', url: mcp.url, requests: consultarGaragem, processos: { servidor: mcp } },
    { nome: 'nosso MCP: reservar_sala livre', url: mcp.url, requests: reservarLivre(), processos: { servidor: mcp } },
  );
  publicar(razoesDoMcp(pisoSdk, consultar, reservar), {});
}

const razoesDoMcp = (pisoSdk: Linha, consultar: Linha, reservar: Linha) => ({
  [`consultar / piso SDK (vazao, medianas de ${String(RODADAS)} rodadas alternadas, alvo >= 0.95)`]:
    consultar.reqPorSeg / pisoSdk.reqPorSeg,
  'consultar / piso SDK (CPU do servidor por request, piso / nosso, na rodada mediana de cada um)': cpuTotal(pisoSdk) / cpuTotal(consultar),
  [`reservar / piso SDK (vazao, medianas de ${String(RODADAS)} rodadas alternadas)`]: reservar.reqPorSeg / pisoSdk.reqPorSeg,
  'reservar / piso SDK (CPU do servidor por request, piso / nosso, na rodada mediana de cada um)': cpuTotal(pisoSdk) / cpuTotal(reservar),
});

async function completo(): Promise<void> {
  const { contagem, tabela: tabelaDeTransacoes } = await medirTransacoes();
  const bruto = await subir('scripts/bench/piso-bruto.ts', {});
  const sdk = await subir('scripts/bench/piso-sdk.ts', {});
  const mcp = await subir(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredo });
  // One walk of free slots for every booking on this server, the MCP rounds' and the agent's after them:
  // a second walk would find the first one's slots taken (the rounds book ~100 000 of them) and measure pauses.
  const livres = vagas();
  const emMemoria = reservarLivre(livres);
  const [pisoBruto, pisoSdk, consultar, reservar] = await emRodadas(
    { nome: 'piso bruto (node:http)', url: bruto.url, requests: ecoDoPiso, processos: { servidor: bruto } },
    { nome: 'piso do SDK MCP (1 tool)', url: sdk.url, requests: ecoDoPiso, processos: { servidor: sdk } },
    { nome: 'nosso MCP: consultar_disponibilidade', url: mcp.url, requests: consultarGaragem, processos: { servidor: mcp } },
    { nome: 'nosso MCP: reservar_sala livre', url: mcp.url, requests: emMemoria, processos: { servidor: mcp } },
  );
  await bruto.parar();
  const reservarSozinho = await aquecerEMedir('nosso MCP: reservar_sala livre', mcp.url, emMemoria, 1);

  // The same bookings on PostgreSQL (durable settings: fsync and synchronous commit on), same run.
  const postgres = await iniciarPostgres({ duravel: true });
  let reservarNoBanco: Linha;
  try {
    const mcpNoBanco = await subir(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredo, RESERVAS_DB: postgres.url });
    reservarNoBanco = await aquecerEMedir('nosso MCP: reservar_sala livre (RESERVAS_DB, PostgreSQL)', mcpNoBanco.url, reservarLivre());
    await mcpNoBanco.parar();
  } finally {
    await postgres.parar();
  }
  const conflito = { sala: 'sala-garagem', inicio: '2026-11-03T14:00:00-03:00', fim: '2026-11-03T15:00:00-03:00', responsavel: 'Bench' };
  await aquecerEMedir('nosso MCP: input_required + retry (par)', mcp.url, () => [
    {
      ...chamarFerramenta(FERRAMENTAS.reservar, conflito),
      setupRequest: (req) => ({ ...req, body: corpoMcp('tools/call', { name: FERRAMENTAS.reservar, arguments: conflito }) }),
      onResponse: (_status, corpo, contexto) => {
        Object.assign(contexto, chaveEEstado(corpo) satisfies Contexto);
      },
    },
    {
      ...chamarFerramenta(FERRAMENTAS.reservar, conflito),
      setupRequest: (req, contexto) => {
        const { chave, requestState } = Contexto.parse(contexto);
        return {
          ...req,
          body: corpoMcp('tools/call', {
            name: FERRAMENTAS.reservar,
            arguments: conflito,
            inputResponses: { [chave ?? '']: { action: 'decline' } },
            requestState,
          }),
        };
      },
    },
  ]);

  const agente = await subir(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', MCP_URL: mcp.url, AGENTE_MAX_PAUSED: String(PAUSADAS * 2) });
  const a2a = `${agente.url}/a2a`;
  const pedidoLivre = () => {
    const v = livres();
    return mensagemA2A(`reservar sala=${v.sala} inicio=${v.inicio} fim=${v.fim} responsavel=${v.responsavel}`);
  };
  const enviarLivre = (): autocannon.Request[] => [
    { method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: pedidoLivre() }) },
  ];
  // The A2A floors: the SDK with an executor that only publishes a booking's events; the bridge floor
  // also makes one tools/call through the official MCP client, to the SDK floor above.
  const enviarQualquer = (): autocannon.Request[] => [
    { method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: mensagemA2A('oi') }) },
  ];
  const a2aPiso = await subir('scripts/bench/piso-a2a.ts', {});
  const pontePiso = await subir('scripts/bench/piso-a2a.ts', { MCP_URL: sdk.url });
  const [pisoA2A, pisoPonte, enviar] = await emRodadas(
    {
      nome: 'a2a-floor (SDK A2A, executor sem trabalho)',
      url: `${a2aPiso.url}/a2a`,
      requests: enviarQualquer,
      processos: { agente: a2aPiso },
    },
    {
      nome: 'bridge-floor (a2a-floor + 1 tools/call pelo cliente MCP)',
      url: `${pontePiso.url}/a2a`,
      requests: enviarQualquer,
      processos: { agente: pontePiso, 'servidor MCP': sdk },
    },
    {
      nome: 'nosso A2A: SendMessage sala livre (ponte inteira)',
      url: a2a,
      requests: enviarLivre,
      processos: { agente, 'servidor MCP': mcp },
    },
  );
  await a2aPiso.parar();
  await pontePiso.parar();
  await sdk.parar();
  // The scenario books free slots, or it measures pauses: the slot after the rounds must still be free.
  const sonda = tarefaDo(
    CorpoA2A.parse(
      await (await fetch(a2a, { method: 'POST', headers: { 'content-type': 'application/json' }, body: pedidoLivre() })).json(),
    ),
  );
  if (sonda.status.state !== 'TASK_STATE_COMPLETED')
    throw new Error(`SendMessage sala livre nao reservou: ${JSON.stringify(sonda.status)}`);
  const enviarSozinho = await aquecerEMedir('nosso A2A: SendMessage sala livre (ponte inteira)', a2a, enviarLivre, 1);
  // The same request to an agent built from an earlier commit and to this one, both up, in rounds.
  let antes: { antes: number; agora: number } | undefined;
  if (values['agente-antes']) {
    const anterior = await subir(values['agente-antes'], { AGENTE_PORT: '0', MCP_URL: mcp.url });
    const [deAntes, deAgora] = await emRodadas(
      {
        nome: 'A2A de antes (--agente-antes): SendMessage sala livre',
        url: `${anterior.url}/a2a`,
        requests: enviarLivre,
        processos: { agente: anterior, 'servidor MCP': mcp },
      },
      { nome: 'nosso A2A: SendMessage sala livre', url: a2a, requests: enviarLivre, processos: { agente, 'servidor MCP': mcp } },
    );
    await anterior.parar();
    antes = { antes: deAntes.reqPorSeg, agora: deAgora.reqPorSeg };
  }
  // Telemetry on, exporting to a local OTLP endpoint that reads each batch and answers 200 (no decoding on
  // this machine's CPU): both processes traced, as deployed, against an untraced pair started with them,
  // so both sides are as fresh, in alternating rounds.
  const coletor = await coletorMudo();
  const par = async (env: Record<string, string>) => {
    const servidor = await subir(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredo, ...env });
    return { servidor, agente: await subir(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', MCP_URL: servidor.url, ...env }) };
  };
  const [semTelemetria, comTelemetria] = [await par({}), await par({ OTEL_EXPORTER_OTLP_ENDPOINT: coletor.url })];
  const [semTraces, comTraces] = await emRodadas(
    {
      nome: 'nosso A2A sem telemetria: SendMessage sala livre',
      url: `${semTelemetria.agente.url}/a2a`,
      requests: enviarLivre,
      processos: { agente: semTelemetria.agente, 'servidor MCP': semTelemetria.servidor },
    },
    {
      nome: 'nosso A2A com telemetria (OTLP local): SendMessage sala livre',
      url: `${comTelemetria.agente.url}/a2a`,
      requests: enviarLivre,
      processos: { agente: comTelemetria.agente, 'servidor MCP': comTelemetria.servidor },
    },
  );
  for (const { agente: alvo, servidor } of [semTelemetria, comTelemetria]) {
    await alvo.parar();
    await servidor.parar();
  }
  coletor.fechar();
  const telemetria = { sem: semTraces.reqPorSeg, com: comTraces.reqPorSeg, lotes: coletor.lotes() };
  process.stderr.write(`  coletor local: ${String(telemetria.lotes)} lotes OTLP recebidos\n`);
  // The generic bridge over the same server: AGENTE_MCP_CONFIG names it, and the booking is a tool call in a data part.
  const pastaGenerica = mkdtempSync(join(tmpdir(), 'bench-generico-'));
  const configGenerica = join(pastaGenerica, 'mcp.json');
  writeFileSync(configGenerica, JSON.stringify({ mcpServers: { salas: { url: mcp.url } } }));
  const generico = await subir(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', AGENTE_MCP_CONFIG: configGenerica });
  const enviarGenerico = (): autocannon.Request[] => [
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, body: mensagemA2ADados({ name: idDaSkill('salas', FERRAMENTAS.reservar), arguments: livres() }) }),
    },
  ];
  const enviarPeloGenerico = await aquecerEMedir(
    'A2A generico (AGENTE_MCP_CONFIG): SendMessage reservar_sala livre',
    `${generico.url}/a2a`,
    enviarGenerico,
  );
  await generico.parar();
  rmSync(pastaGenerica, { recursive: true, force: true });
  const pedidoEmConflito = 'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Bench';
  await aquecerEMedir('nosso A2A: pausa + continuacao (recusar)', a2a, () => [
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, body: mensagemA2A(pedidoEmConflito) }),
      onResponse: (_status, corpo, contexto) => {
        Object.assign(contexto, { taskId: tarefaDo(CorpoA2A.parse(JSON.parse(corpo))).id } satisfies Contexto);
      },
    },
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req, contexto) => ({ ...req, body: mensagemA2A('escolha=recusar', Contexto.parse(contexto).taskId) }),
    },
  ]);

  const rss = await rssPorPausada(mcp.url, pedidoEmConflito);
  process.stderr.write(
    `  ${rss.pausadas} Tasks pausadas num agente novo: RSS ${rss.antes.toFixed(0)} -> ${rss.logoDepois.toFixed(0)} MiB logo depois ` +
      `(${rss.kibLogoDepois.toFixed(2)} KiB por Task), ${rss.depoisDoGc.toFixed(0)} MiB depois de um GC completo (${rss.kibDepoisDoGc.toFixed(2)} KiB por Task)\n`,
  );
  const kibHeapPorPausada = await heapPorPausada(a2a, mcp.url, pedidoEmConflito);
  const subidaDoMcp = await subidas(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredo });
  const subidaDoAgente = await subidas(ARQUIVO_DO_AGENTE, { AGENTE_PORT: '0', MCP_URL: mcp.url });
  for (const [nome, { ms, mib }] of [
    ['servidor-mcp', subidaDoMcp],
    ['agente', subidaDoAgente],
  ] as const)
    process.stderr.write(
      `  ${nome}: ${ms.map((v) => v.toFixed(0)).join(' a ')} ms do spawn a aceitar conexoes, ${mib.map((v) => v.toFixed(0)).join(' a ')} MiB de RSS ocioso (3 subidas)\n`,
    );
  const extras = { rss, kibHeapPorPausada, subidaDoMcp, subidaDoAgente, transacoes: contagem };
  process.stderr.write(
    `  heap das estruturas do agente: ${extras.kibHeapPorPausada.toFixed(2)} KiB por Task pausada (Task + pausa reais, depois de GC)\n`,
  );
  await agente.parar();
  await mcp.parar();

  // Availability as bookings grow: one server per size, the same lookup.
  const escala = new Map<number, Linha>();
  for (const quantidade of [10, 1_000, 100_000]) {
    const pasta = dadosCom(quantidade);
    const servidor = await subir(ARQUIVO_DO_MCP, { MCP_PORT: '0', REQUEST_STATE_SECRET: segredo, DADOS_DIR: pasta });
    escala.set(
      quantidade,
      await aquecerEMedir(`consultar_disponibilidade com ${quantidade} reservas`, servidor.url, () => [
        chamarFerramenta('consultar_disponibilidade', {
          sala: 'sala-fusca',
          inicio: '2027-01-05T10:00:00-03:00',
          fim: '2027-01-05T11:00:00-03:00',
        }),
      ]),
    );
    await servidor.parar();
    rmSync(pasta, { recursive: true, force: true });
  }

  const razoes = {
    'piso SDK / piso bruto (vazao)': pisoSdk.reqPorSeg / pisoBruto.reqPorSeg,
    'bridge-floor / a2a-floor (vazao): o custo de uma chamada MCP do cliente oficial': pisoPonte.reqPorSeg / pisoA2A.reqPorSeg,
    ...razoesDoMcp(pisoSdk, consultar, reservar),
    'reservar com PostgreSQL / em memoria (vazao, alvo >= 0.5)': reservarNoBanco.reqPorSeg / reservar.reqPorSeg,
    [`nosso SendMessage / bridge-floor (vazao, medianas de ${String(RODADAS)} rodadas alternadas, alvo >= 1.2)`]:
      enviar.reqPorSeg / pisoPonte.reqPorSeg,
    'SendMessage / bridge-floor (CPU por request, agente + servidor MCP, piso / nosso, na rodada mediana de cada um)':
      cpuTotal(pisoPonte) / cpuTotal(enviar),
    'SendMessage p50 / reservar_sala p50, sob carga (alvo <= 1.5)': enviar.p50 / Math.max(reservar.p50, 1),
    'SendMessage pela ponte generica / pelo perfil de salas (vazao)': enviarPeloGenerico.reqPorSeg / enviar.reqPorSeg,
    ...(antes && {
      [`SendMessage agora / antes (--agente-antes, medianas de ${String(RODADAS)} rodadas alternadas, vazao, alvo >= 0.95)`]:
        antes.agora / antes.antes,
    }),
    [`SendMessage com telemetria / sem (OTLP local, os dois processos com traces e metricas, medianas de ${String(RODADAS)} rodadas alternadas, vazao, alvo >= 0.85)`]:
      telemetria.com / telemetria.sem,
    // With one connection, requests go one after another: 1 / throughput is the time each takes.
    'SendMessage / reservar_sala, tempo por request com 1 conexao (alvo <= 1.5)': reservarSozinho.reqPorSeg / enviarSozinho.reqPorSeg,
    'consultar p50 com 100000 / com 10 (alvo <= 1.5)': (escala.get(100_000)?.p50 ?? NaN) / (escala.get(10)?.p50 ?? NaN),
    'KiB de heap por Task pausada (alvo <= 2.5)': kibHeapPorPausada,
    'KiB de RSS do agente por Task pausada, logo depois (com o lixo da carga)': rss.kibLogoDepois,
    'KiB de RSS do agente por Task pausada, depois de um GC completo (alvo <= 8)': rss.kibDepoisDoGc,
  };

  publicar(razoes, extras, tabelaDeTransacoes);
}

try {
  if (values['so-transacoes']) process.stdout.write(`\n${(await medirTransacoes()).tabela}\n`);
  else {
    process.stderr.write(`bench: ${SEGUNDOS}s por cenario, ${CONEXOES} conexoes\n`);
    await (values['so-mcp'] ? soMcp() : completo());
  }
} finally {
  await Promise.all(processos.map((processo) => processo.parar()));
}
