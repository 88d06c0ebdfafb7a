/**
 * The web console in a real browser (test/apoio/navegador.ts) against the
 * real agent and MCP server: the room profile's view. Each flow leaves a
 * screenshot of its end in test/capturas/ (not committed).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { enviar, tarefa } from './apoio/a2a.js';
import { chamarFerramenta, textoDe } from './apoio/mcp.js';
import { abrirNavegador, capturar, entrarComToken } from './apoio/navegador.js';
import { iniciarReceptor } from './apoio/otlp.js';
import { iniciarAgente, iniciarServidorMcp, type Processo } from './apoio/processos.js';

interface Reserva {
  readonly sala: string;
  readonly inicio: string;
  readonly fim: string;
  readonly responsavel: string;
}

async function reservar(pagina: Page, { sala, inicio, fim, responsavel }: Reserva): Promise<void> {
  await pagina.getByRole('region', { name: 'Salas' }).getByRole('listitem').filter({ hasText: 'sala-mirante' }).waitFor();
  await pagina.getByLabel('Sala', { exact: true }).selectOption(sala);
  await pagina.getByLabel('Início', { exact: true }).fill(inicio);
  await pagina.getByLabel('Fim', { exact: true }).fill(fim);
  await pagina.getByLabel('Responsável', { exact: true }).fill(responsavel);
  await pagina.getByRole('button', { name: 'Reservar', exact: true }).click();
}

const resultado = (pagina: Page) => pagina.getByRole('region', { name: 'Resultado' });
const estados = async (pagina: Page) => (await pagina.locator('#estados li').allInnerTexts()).map((linha) => linha.split(' ').at(-1));

describe('the console, in Chromium', () => {
  let mcp: Processo;
  let agente: Processo;
  let navegador: Awaited<ReturnType<typeof abrirNavegador>>;
  let pagina: Page;
  // The browser first: one that cannot start leaves no process behind to keep the file from ending.
  before(async () => {
    navegador = await abrirNavegador();
    mcp = await iniciarServidorMcp();
    agente = await iniciarAgente(mcp.url);
    pagina = await navegador.contexto.newPage();
  });
  after(async () => {
    await (navegador as typeof navegador | undefined)?.fechar();
    await (agente as Processo | undefined)?.parar();
    await (mcp as Processo | undefined)?.parar();
  });

  it('lists the rooms through the agent and books a free one: the agent’s own message and the artifact', async () => {
    await pagina.goto(agente.url);
    for (const sala of ['sala-aquario', 'sala-porao', 'sala-garagem', 'sala-fusca', 'sala-mirante'])
      await pagina.getByRole('region', { name: 'Salas' }).getByRole('listitem').filter({ hasText: sala }).waitFor();
    await reservar(pagina, { sala: 'sala-aquario', inicio: '2026-11-04T10:00', fim: '2026-11-04T11:00', responsavel: 'Doc Brown' });
    await resultado(pagina)
      .getByText(/^Reserva res-\d{4} confirmada na sala-aquario\.$/)
      .waitFor();
    const artefato = JSON.parse(await resultado(pagina).locator('pre').innerText()) as Record<string, unknown>;
    assert.deepEqual(
      { ...artefato, reserva: undefined },
      {
        reserva: undefined,
        sala: 'sala-aquario',
        inicio: '2026-11-04T10:00:00-03:00',
        fim: '2026-11-04T11:00:00-03:00',
        responsavel: 'Doc Brown',
        politica: '2026-11-01',
      },
    );
    assert.deepEqual(await estados(pagina), ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    await capturar(pagina, 'reserva-livre');
  });

  it('a conflict shows one button per alternative and Recusar; clicking one books it on the same Task', async () => {
    await pagina.goto(agente.url);
    await reservar(pagina, { sala: 'sala-garagem', inicio: '2026-11-03T14:00', fim: '2026-11-03T15:00', responsavel: 'Biff' });
    const alternativas = pagina.getByRole('group', { name: 'Alternativas' });
    await alternativas.getByRole('button', { name: 'Recusar', exact: true }).waitFor();
    assert.deepEqual(await alternativas.getByRole('button').allInnerTexts(), ['sala-fusca', 'sala-mirante', 'Recusar']);
    const taskId = await pagina.locator('#task-id').innerText();
    await alternativas.getByRole('button', { name: 'sala-mirante', exact: true }).click();
    await resultado(pagina)
      .getByText(/^Reserva res-\d{4} confirmada na sala-mirante\.$/)
      .waitFor();
    assert.equal(await pagina.locator('#task-id').innerText(), taskId, 'the answer went to the same Task');
    assert.deepEqual((await estados(pagina)).slice(-3), ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    await capturar(pagina, 'console', true);

    // The Fio panel: the pause's tools/call and its retry, each with its own JSON-RPC id, one trace; no requestState anywhere.
    const fio = pagina.getByRole('list', { name: 'Fio' });
    const titulos = await fio.locator('li > p').allInnerTexts();
    const chamadas = titulos.filter((titulo) => titulo.startsWith('MCP tools/call'));
    assert.equal(chamadas.length, 2, titulos.join('\n'));
    const ids = chamadas.map((titulo) => /id=(\S+)/.exec(titulo)?.[1]);
    assert.notEqual(ids[0], ids[1], 'the retry has a new JSON-RPC id');
    const traces = chamadas.map((titulo) => /traceparent=00-([0-9a-f]{32})-/.exec(titulo)?.[1]);
    assert.equal(traces[0], traces[1], 'both under the Task’s trace');
    assert.ok(
      titulos.some((titulo) => titulo.startsWith('A2A SendStreamingMessage')),
      titulos.join('\n'),
    );
    // Telemetry is off: each exchange says how long it took, and none names a trace to look up.
    for (const titulo of titulos) assert.match(titulo, / \d+\.\d ms$/, 'a duration, and no trace_id after it');
    for (const detalhe of await fio.locator('details').all()) await detalhe.locator('summary').click();
    const texto = await fio.innerText();
    assert.match(texto, /"requestState": "<selado: \d+ bytes>"/, 'the pause and the retry show the state sealed');
    assert.doesNotMatch(texto, /"requestState": "(?!<selado: \d+ bytes>")/);
    await capturar(pagina, 'fio');
  });

  it('Recusar ends the Task canceled, with the agent’s words', async () => {
    await pagina.goto(agente.url);
    await reservar(pagina, { sala: 'sala-fusca', inicio: '2026-11-03T16:00', fim: '2026-11-03T17:00', responsavel: 'Biff' });
    const recusar = pagina.getByRole('group', { name: 'Alternativas' }).getByRole('button', { name: 'Recusar', exact: true });
    await recusar.waitFor();
    await recusar.click();
    await resultado(pagina).getByText('Nenhuma sala reservada (recusado).', { exact: true }).waitFor();
    assert.equal((await estados(pagina)).at(-1), 'TASK_STATE_CANCELED');
    await capturar(pagina, 'conflito-recusado');
  });

  it('a booking the policy refuses shows the tool’s exact message; the form itself checks only the order of the times', async () => {
    await pagina.goto(agente.url);
    await reservar(pagina, { sala: 'sala-porao', inicio: '2026-11-04T11:00', fim: '2026-11-04T10:00', responsavel: 'Marty' });
    assert.equal(await pagina.getByRole('alert').innerText(), 'O fim deve ser depois do início.');
    assert.equal(await pagina.locator('#estados li').count(), 0, 'nothing was sent');

    const fora = { sala: 'sala-porao', inicio: '2026-11-04T21:00:00-03:00', fim: '2026-11-04T22:00:00-03:00', responsavel: 'Marty' };
    const mensagemDaTool = textoDe(await chamarFerramenta(mcp.url, 'reservar_sala', fora));
    await reservar(pagina, { ...fora, inicio: '2026-11-04T21:00', fim: '2026-11-04T22:00' });
    await resultado(pagina).getByText(mensagemDaTool, { exact: true }).waitFor();
    assert.equal((await estados(pagina)).at(-1), 'TASK_STATE_FAILED');
    await capturar(pagina, 'intervalo-recusado');
  });

  it('fits a phone-width screen and works from the keyboard', async () => {
    const celular = await navegador.contexto.newPage();
    await celular.setViewportSize({ width: 390, height: 844 });
    await celular.goto(agente.url);
    await celular.getByRole('region', { name: 'Salas' }).getByRole('listitem').filter({ hasText: 'sala-mirante' }).waitFor();
    const larguras = await celular.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok((larguras[0] ?? 0) <= (larguras[1] ?? 0), `no sideways scroll: ${larguras.join(' > ')}`);
    await celular.getByLabel('Sala', { exact: true }).selectOption('sala-aquario');
    await celular.getByLabel('Início', { exact: true }).fill('2026-11-05T09:00');
    await celular.getByLabel('Fim', { exact: true }).fill('2026-11-05T09:30');
    await celular.getByLabel('Responsável', { exact: true }).fill('Lorraine');
    // Sent with Enter from the last field, and a pause answered with Enter on the button that takes the focus.
    await celular.keyboard.press('Enter');
    await resultado(celular)
      .getByText(/^Reserva res-\d{4} confirmada na sala-aquario\.$/)
      .waitFor();
    await celular.getByLabel('Responsável', { exact: true }).fill('George');
    await celular.keyboard.press('Enter');
    const primeira = celular.getByRole('group', { name: 'Alternativas' }).getByRole('button').first();
    await primeira.waitFor();
    assert.equal(await celular.evaluate(() => document.activeElement?.textContent), await primeira.innerText());
    const escolhida = await primeira.innerText();
    await celular.keyboard.press('Enter');
    await resultado(celular).getByText(`confirmada na ${escolhida}.`, { exact: false }).waitFor();
    await capturar(celular, 'celular');
    await celular.close();
  });
});

it('with AGENTE_TOKENS: asks for a token, says when the agent refuses it, and works with the right one, Fio included', async () => {
  const navegador = await abrirNavegador();
  const mcp = await iniciarServidorMcp();
  const ana = randomBytes(24).toString('base64url');
  const agente = await iniciarAgente(mcp.url, { AGENTE_TOKENS: `ana:${ana}` });
  try {
    const pagina = await navegador.contexto.newPage();
    const token = await entrarComToken(pagina, agente.url, ana);
    await reservar(pagina, { sala: 'sala-porao', inicio: '2026-11-06T10:00', fim: '2026-11-06T11:00', responsavel: 'Ana' });
    await resultado(pagina)
      .getByText(/^Reserva res-\d{4} confirmada na sala-porao\.$/)
      .waitFor();
    await pagina
      .getByRole('list', { name: 'Fio' })
      .getByText(/^MCP tools\/call id=/)
      .waitFor();
    assert.equal(await token.isVisible(), false);
    await capturar(pagina, 'com-token');
  } finally {
    await navegador.fechar();
    await agente.parar();
    await mcp.parar();
  }
});

it('with telemetry on: each exchange on the Fio names its trace, the one the agent exported its spans under', async () => {
  const navegador = await abrirNavegador();
  const receptor = await iniciarReceptor();
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receptor.url, OTEL_BSP_SCHEDULE_DELAY: '50' };
  const mcp = await iniciarServidorMcp(otel);
  const agente = await iniciarAgente(mcp.url, otel);
  try {
    const pagina = await navegador.contexto.newPage();
    await pagina.goto(agente.url);
    const fio = pagina.getByRole('list', { name: 'Fio' });
    const traceDe = (titulo: string) => / \d+\.\d ms trace_id=([0-9a-f]{32})$/.exec(titulo)?.[1];

    // The rooms came with SendMessage: the trace id the page read from its traceresponse is the agent's span's.
    const listagem = await fio
      .locator('li > p')
      .filter({ hasText: /^A2A SendMessage / })
      .innerText();
    const traceDaListagem = traceDe(listagem);
    assert.ok(traceDaListagem, listagem);
    await receptor.esperar(() =>
      receptor.spans.some(
        (span) =>
          span.servico === 'agente' && span.tipo === 'SPAN_KIND_SERVER' && span.nome === 'SendMessage' && span.traceId === traceDaListagem,
      ),
    );

    // A booking: the MCP requests the agent made for it ran in the trace of the page's request.
    await reservar(pagina, { sala: 'sala-aquario', inicio: '2026-11-04T10:00', fim: '2026-11-04T11:00', responsavel: 'Doc Brown' });
    await resultado(pagina)
      .getByText(/^Reserva res-\d{4} confirmada na sala-aquario\.$/)
      .waitFor();
    const titulos = await fio.locator('li > p').allInnerTexts();
    const [passo, ...mcps] = titulos;
    assert.match(passo ?? '', /^A2A SendStreamingMessage /, titulos.join('\n'));
    const trace = traceDe(passo ?? '');
    assert.ok(trace, titulos.join('\n'));
    assert.ok(
      mcps.some((titulo) => titulo.startsWith('MCP tools/call')),
      titulos.join('\n'),
    );
    for (const titulo of mcps) {
      assert.equal(traceDe(titulo), trace, titulo);
      assert.equal(/traceparent=00-([0-9a-f]{32})-/.exec(titulo)?.[1], trace, `the traceparent sent names the same trace: ${titulo}`);
    }
    // The exported spans: the page's request, and the MCP client span the tools/call's traceparent names.
    const chamada = mcps.find((titulo) => titulo.startsWith('MCP tools/call')) ?? '';
    const spanDaChamada = /traceparent=00-[0-9a-f]{32}-([0-9a-f]{16})-/.exec(chamada)?.[1];
    await receptor.esperar(() =>
      receptor.spans.some(
        (span) =>
          span.servico === 'agente' && span.tipo === 'SPAN_KIND_SERVER' && span.nome === 'SendStreamingMessage' && span.traceId === trace,
      ),
    );
    await receptor.esperar(() =>
      receptor.spans.some(
        (span) =>
          span.servico === 'agente' &&
          span.tipo === 'SPAN_KIND_CLIENT' &&
          span.nome === 'tools/call reservar_sala' &&
          span.traceId === trace &&
          span.spanId === spanDaChamada,
      ),
    );
    await capturar(pagina, 'fio-com-telemetria');
  } finally {
    await navegador.fechar();
    await agente.parar();
    await mcp.parar();
    await receptor.fechar();
  }
});

describe('the console’s data and its switch', () => {
  it('GET /console/tarefas/{id}/mcp answers only the Task’s owner; AGENTE_CONSOLE=0 turns page and data off', async () => {
    const mcp = await iniciarServidorMcp();
    const ana = randomBytes(24).toString('base64url');
    const bia = randomBytes(24).toString('base64url');
    const [comTokens, desligado] = await Promise.all([
      iniciarAgente(mcp.url, { AGENTE_TOKENS: `ana:${ana},bia:${bia}` }),
      iniciarAgente(mcp.url, { AGENTE_CONSOLE: '0' }),
    ]);
    try {
      const pausa = await enviar(
        comTokens.url,
        'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Ana',
        { token: ana },
      );
      const caminho = new URL(`/console/tarefas/${tarefa(pausa).id}/mcp`, comTokens.url);
      assert.equal((await fetch(caminho)).status, 401);
      assert.equal(
        (await fetch(caminho, { headers: { authorization: `Bearer ${bia}` } })).status,
        404,
        'another identity: as if it did not exist',
      );
      const daAna = await fetch(caminho, { headers: { authorization: `Bearer ${ana}` } });
      assert.equal(daAna.status, 200);
      const { trocas } = (await daAna.json()) as { trocas: { metodo: string; resposta: string }[] };
      assert.ok(trocas.some((troca) => troca.metodo === 'tools/call' && /"requestState":"<selado: \d+ bytes>"/.test(troca.resposta)));
      const estranho = await fetch(caminho, { headers: { authorization: `Bearer ${ana}`, origin: 'http://evil.example' } });
      assert.equal(estranho.status, 403);

      const pagina = await fetch(desligado.url);
      assert.equal(pagina.status, 404);
      assert.match(((await pagina.json()) as { error: { message: string } }).error.message, /^Nada aqui/);
      assert.equal((await fetch(new URL('/console/tarefas/x/mcp', desligado.url))).status, 404);
    } finally {
      await Promise.all([comTokens.parar(), desligado.parar()]);
      await mcp.parar();
    }
  });
});
