/**
 * The console for any MCP server, in Chromium (test/apoio/navegador.ts):
 * the agent bridges server-everything through AGENTE_MCP_CONFIG, and the
 * page builds itself from the agent card. A skill's form comes from its
 * inputSchema, a question's from its requestedSchema; results are drawn by
 * part; the Fio is a sequence diagram. With CAPTURAS_DOS_DOCS=1, the
 * screenshots the docs show are written to docs/imagens/.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { abrirNavegador, capturar, entrarComToken } from './apoio/navegador.js';
import {
  everythingComAgente,
  iniciarAgenteGenerico,
  iniciarEverything,
  iniciarPerguntas,
  pastaTemporaria,
} from './apoio/ponte-generica.js';
import type { Processo } from './apoio/processos.js';

const resultado = (pagina: Page) => pagina.getByRole('region', { name: 'Resultado' });
const ultimoEstado = async (pagina: Page) => (await pagina.locator('#estados li').allInnerTexts()).at(-1)?.split(' ').at(-1);
const esperarEstado = (pagina: Page, estado: string) =>
  pagina
    .locator('#estados li')
    .filter({ hasText: new RegExp(` ${estado}$`) })
    .first()
    .waitFor();

describe('the console for any MCP server (server-everything), in Chromium', () => {
  const processos = everythingComAgente();
  let navegador: Awaited<ReturnType<typeof abrirNavegador>>;
  let pagina: Page;
  before(async () => {
    navegador = await abrirNavegador();
    pagina = await navegador.contexto.newPage();
  });
  after(async () => {
    await (navegador as typeof navegador | undefined)?.fechar();
  });

  /** Opens the page and chooses a skill by its name on the card. */
  async function escolher(nome: string): Promise<void> {
    await pagina.goto(processos.agente.url);
    await pagina.getByRole('button', { name: nome, exact: true }).click();
    await pagina.getByRole('heading', { name: nome, exact: true }).waitFor();
  }

  it('lists the card’s skills with their descriptions, no room in sight; echo goes through its generated form', async () => {
    await pagina.goto(processos.agente.url);
    const skills = pagina.getByRole('region', { name: 'Skills' });
    await skills.getByRole('button', { name: 'Echo Tool', exact: true }).waitFor();
    assert.ok(await skills.getByText('Echoes back the input string', { exact: true }).isVisible());
    assert.equal(await pagina.getByRole('region', { name: 'Salas' }).count(), 0, 'no room panel for a generic agent');
    assert.match(await pagina.locator('#apresentacao').innerText(), /everything/);

    await skills.getByRole('button', { name: 'Echo Tool', exact: true }).click();
    const campo = pagina.getByLabel('message', { exact: true });
    assert.equal(await pagina.evaluate(() => document.activeElement?.getAttribute('name')), 'message', 'the focus moved to the form');
    assert.equal(await campo.getAttribute('required'), '', 'a required field is marked as such');
    await campo.fill('pela ponte');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    await resultado(pagina).getByText('Echo: pela ponte', { exact: true }).first().waitFor();
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_COMPLETED');
    await capturar(pagina, 'generico-eco');
  });

  it('arguments the inputSchema refuses: REJECTED, and the agent’s message beside the form', async () => {
    await escolher('Get Sum Tool');
    await pagina.getByLabel('a', { exact: true }).fill('2');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const aviso = pagina.locator('#aviso-chamada');
    await aviso.getByText(/^Argumentos recusados por everything\.get-sum: /).waitFor();
    assert.match(await aviso.innerText(), /required property 'b'/);
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_REJECTED');
  });

  it('a question is a form from its requestedSchema: an answer the schema refuses stays paused, with the message and what was typed; a good one completes', async () => {
    await escolher('Trigger Elicitation Request Tool');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const pergunta = pagina.locator('#pergunta');
    await pergunta.getByRole('group', { name: 'Please provide inputs for the following fields:' }).waitFor();
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_INPUT_REQUIRED');
    // A string, a boolean, an integer out of its range, a choice with titles.
    await pergunta.getByLabel('String', { exact: true }).fill('Marty McFly');
    await pergunta.getByLabel('Boolean', { exact: true }).check();
    await pergunta.getByLabel('Integer', { exact: true }).fill('500');
    await pergunta.getByLabel('Titled Single Select Enum', { exact: true }).selectOption({ label: 'Wonder Woman' });
    await capturar(pagina, 'generico-pergunta', true);
    await pergunta.getByRole('button', { name: 'Responder', exact: true }).click();
    await pergunta
      .getByRole('alert')
      .getByText(/data\/integer must be <= 100/)
      .waitFor();
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_INPUT_REQUIRED', 'still paused');
    assert.equal(await pergunta.getByLabel('String', { exact: true }).inputValue(), 'Marty McFly', 'what was typed stays');

    await pergunta.getByLabel('Integer', { exact: true }).fill('7');
    await pergunta.getByRole('button', { name: 'Responder', exact: true }).click();
    await resultado(pagina)
      .getByText(/User provided the requested information!/)
      .first()
      .waitFor();
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_COMPLETED');
    const texto = await resultado(pagina).innerText();
    for (const linha of ['- Name: Marty McFly', '- Agreed to terms: true', '- Favorite Integer: 7'])
      assert.ok(texto.includes(linha), `${linha} in:\n${texto}`);
    assert.match(texto, /"titledSingleSelectEnum": "hero-3"/);
    await capturar(pagina, 'generico-resposta');

    // The Fio: a lane for the page, the agent and the server; the server's question drawn from its lane to the agent's.
    const fio = pagina.getByRole('list', { name: 'Fio' });
    assert.deepEqual(await pagina.locator('#faixas span').allInnerTexts(), ['Página', 'Agente', 'MCP everything']);
    const titulos = await fio.locator('li > p').allTextContents();
    assert.ok(
      titulos.some((titulo) => titulo.startsWith('MCP elicitation/create ')),
      titulos.join('\n'),
    );
    assert.ok(
      titulos.some((titulo) => titulo.startsWith('MCP tools/call ')),
      titulos.join('\n'),
    );
    assert.equal(await fio.locator('li.vao').count(), 2, 'two pauses: the refused answer waited too');
    // A session's call and its question start in the first step and end in the last: each arrow in the step where it happened.
    const passos = fio.locator('> li.troca.a2a');
    const titulosDo = async (passo: typeof passos) =>
      (await passo.locator('li.troca.mcp > p').allTextContents()).map((titulo) =>
        titulo.replace(/id=\d+/, 'id=N').replace(/ [\d.]+ ms$/, ''),
      );
    assert.deepEqual(await titulosDo(passos.first()), [
      'MCP tools/call id=N aguardando resposta',
      'MCP elicitation/create id=N aguardando resposta',
    ]);
    assert.deepEqual(await titulosDo(passos.last()), ['MCP resposta de elicitation/create id=N', 'MCP resposta de tools/call id=N']);
    await capturar(pagina.locator('.fio'), 'generico-fio', true);
    const pedidoDoServidor = fio
      .locator('li.troca.mcp')
      .filter({ hasText: /^MCP elicitation\/create/ })
      .locator('details.seta.pedido');
    assert.match((await pedidoDoServidor.getAttribute('class')) ?? '', /esquerda/, 'from the server’s lane to the agent’s');
    await pedidoDoServidor.locator('summary').click();
    assert.match(await pedidoDoServidor.locator('pre').innerText(), /"method": "elicitation\/create"/);
  });

  it('Recusar declines the question: server-everything completes saying so', async () => {
    await escolher('Trigger Elicitation Request Tool');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const recusar = pagina.locator('#pergunta').getByRole('button', { name: 'Recusar', exact: true });
    await recusar.waitFor();
    await recusar.click();
    await resultado(pagina)
      .getByText(/User declined to provide the requested information/)
      .first()
      .waitFor();
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_COMPLETED');
  });

  it('the page comes with a policy that allows its own origin only, and data: for the images and audio it draws', async () => {
    const resposta = await fetch(processos.agente.url);
    assert.equal(
      resposta.headers.get('content-security-policy'),
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; media-src 'self' data:; object-src 'none'; require-trusted-types-for 'script'; trusted-types 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
  });

  it('structured content is a JSON tree that opens level by level', async () => {
    await escolher('Get Structured Content Tool');
    await pagina.getByLabel('location', { exact: true }).selectOption('Chicago');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const arvore = resultado(pagina).locator('details.json');
    await arvore.first().waitFor();
    assert.equal(await arvore.first().locator('> summary').innerText(), 'dados {3}');
    const folhas = await arvore.first().locator('.folha').allInnerTexts();
    assert.deepEqual(
      folhas.map((folha) => folha.split(':')[0]),
      ['temperature', 'conditions', 'humidity'],
    );
  });

  it('an image part is shown inline, from its bytes', async () => {
    await escolher('Get Tiny Image Tool');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const imagem = resultado(pagina).getByRole('img');
    await imagem.waitFor();
    assert.match((await imagem.getAttribute('src')) ?? '', /^data:image\/png;base64,iVBORw0KGgo/);
    assert.ok((await imagem.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0, 'the browser decoded it');
    await capturar(pagina, 'generico-imagem');
  });

  it('a long call shows its progress as it streams, and Cancelar tarefa ends it CANCELED with the agent’s words', async () => {
    await escolher('Trigger Long Running Operation Tool');
    await pagina.getByLabel('duration', { exact: true }).fill('30');
    await pagina.getByLabel('steps', { exact: true }).fill('30');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const progresso = pagina.getByRole('list', { name: 'Progresso' });
    await progresso.getByText('Progresso 1/30.', { exact: true }).waitFor();
    await pagina.getByRole('button', { name: 'Cancelar tarefa', exact: true }).click();
    await resultado(pagina)
      .getByText(/^Task cancelada a pedido do cliente/)
      .waitFor();
    await esperarEstado(pagina, 'TASK_STATE_CANCELED');
    assert.equal(await pagina.getByRole('button', { name: 'Cancelar tarefa', exact: true }).isVisible(), false);
    // The stream began first and ended last: drawn above the CancelTask sent while it ran, with the call it made inside it.
    const passos = pagina.getByRole('list', { name: 'Fio' }).locator('> li.troca.a2a');
    assert.deepEqual(
      (await passos.locator('> p').allTextContents()).map((titulo) => titulo.split(' ')[1]),
      ['SendStreamingMessage', 'CancelTask'],
    );
    assert.match((await passos.first().locator('li.troca.mcp > p').allTextContents()).join('\n'), /^MCP tools\/call /);
    await capturar(pagina, 'generico-cancelada');
  });

  it('a URL to visit (AUTH_REQUIRED) is a link that opens in a new tab, and Pronto goes on', async () => {
    await escolher('Trigger URL Elicitation Tool');
    await pagina.getByLabel('url', { exact: true }).fill('https://exemplo.test/autorizar?conta=42');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const link = pagina.locator('#pergunta').getByRole('link', { name: 'https://exemplo.test/autorizar?conta=42' });
    await link.waitFor();
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_AUTH_REQUIRED');
    await pagina.locator('#pergunta').getByRole('button', { name: 'Pronto', exact: true }).click();
    await esperarEstado(pagina, 'TASK_STATE_COMPLETED');
  });

  it('fits a phone-width screen, and a skill is chosen and sent from the keyboard', async () => {
    const celular = await navegador.contexto.newPage();
    await celular.setViewportSize({ width: 390, height: 844 });
    await celular.goto(processos.agente.url);
    const eco = celular.getByRole('button', { name: 'Echo Tool', exact: true });
    await eco.focus();
    await celular.keyboard.press('Enter');
    await celular.keyboard.type('do teclado');
    await celular.keyboard.press('Enter');
    await resultado(celular).getByText('Echo: do teclado', { exact: true }).first().waitFor();
    const larguras = await celular.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok((larguras[0] ?? 0) <= (larguras[1] ?? 0), `no sideways scroll: ${larguras.join(' > ')}`);
    await capturar(celular, 'generico-celular');
    await celular.close();
  });
});

describe('the console for a 2026-07-28 server (the test fixture perguntas), in Chromium', () => {
  let navegador: Awaited<ReturnType<typeof abrirNavegador>> | undefined;
  let perguntas: Processo | undefined;
  let agente: Processo | undefined;
  const pasta = pastaTemporaria();
  before(async () => {
    navegador = await abrirNavegador();
    perguntas = await iniciarPerguntas();
    agente = await iniciarAgenteGenerico(pasta.config({ perguntas: { url: perguntas.url } }));
  });
  after(async () => {
    await navegador?.fechar();
    await agente?.parar();
    await perguntas?.parar();
    pasta.apagar();
  });

  async function abrir(skill: string): Promise<Page> {
    assert.ok(navegador && agente);
    const pagina = await navegador.contexto.newPage();
    await pagina.goto(agente.url);
    await pagina.getByRole('button', { name: skill, exact: true }).click();
    return pagina;
  }

  it('two questions at once are two forms answered together; the next round replaces them; each retry is the same tools/call on a new id', async () => {
    const pagina = await abrir('Agendar visita');
    await pagina.getByLabel('visitante', { exact: true }).fill('Marty');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const pergunta = pagina.locator('#pergunta');
    const dia = pergunta.getByRole('group', { name: 'Em que dia da semana e a visita?' });
    const acompanhante = pergunta.getByRole('group', { name: 'Quem acompanha o visitante?' });
    await dia.waitFor();
    await acompanhante.waitFor();
    await dia.getByLabel('Dia', { exact: true }).selectOption('quarta');
    await acompanhante.getByLabel('Nome', { exact: true }).fill('Doc');
    await acompanhante.getByLabel('Cracha', { exact: true }).check();
    await pergunta.getByRole('button', { name: 'Responder', exact: true }).click();

    const confirmar = pergunta.getByRole('group', { name: 'Confirma a visita?' });
    await confirmar.waitFor();
    assert.equal(await dia.count(), 0, 'the first round’s forms are gone');
    await confirmar.getByLabel('Confirmado', { exact: true }).check();
    await pergunta.getByRole('button', { name: 'Responder', exact: true }).click();
    await resultado(pagina).getByText('Visita de Marty agendada para quarta, acompanhada por Doc, com cracha.').first().waitFor();
    assert.equal(await ultimoEstado(pagina), 'TASK_STATE_COMPLETED');

    const fio = pagina.getByRole('list', { name: 'Fio' });
    assert.deepEqual(await pagina.locator('#faixas span').allInnerTexts(), ['Página', 'Agente', 'MCP perguntas']);
    const chamadas = await fio.locator('li.troca.mcp details.seta.pedido summary').allInnerTexts();
    const dasVisitas = chamadas.filter((rotulo) => rotulo.startsWith('tools/call agendar_visita'));
    assert.deepEqual(
      dasVisitas.map((rotulo) => rotulo.replace(/ id=\S+$/, '')),
      ['tools/call agendar_visita', 'tools/call agendar_visita + inputResponses', 'tools/call agendar_visita + inputResponses'],
      chamadas.join('\n'),
    );
    assert.equal(new Set(dasVisitas.map((rotulo) => /id=(\S+)$/.exec(rotulo)?.[1])).size, 3, 'three JSON-RPC ids');
    const respostas = await fio.locator('li.troca.mcp details.seta.resposta summary').allInnerTexts();
    assert.equal(respostas.filter((rotulo) => rotulo.includes(' · input_required · ')).length, 2, respostas.join('\n'));
    assert.equal(await fio.locator('li.vao').count(), 2);
    await capturar(pagina, 'generico-duas-perguntas');
    await pagina.close();
  });

  it('text/markdown is drawn as Markdown, and nothing in it runs: no script link, no HTML', async () => {
    const pagina = await abrir('Nota em Markdown');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    const nota = resultado(pagina).locator('.markdown');
    await nota.getByRole('heading', { name: 'Visitas da semana' }).waitFor();
    assert.equal(await nota.locator('strong').innerText(), 'segunda');
    assert.equal(await nota.locator('em').innerText(), 'terca');
    assert.equal(await nota.locator('li').count(), 2);
    assert.deepEqual(await nota.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href'))), [
      'https://exemplo.test/agenda',
    ]);
    assert.match(await nota.innerText(), /isca \(javascript:alert\(1\)\)/);
    assert.equal(await nota.locator('img').count(), 0, 'the HTML stayed text');
    assert.match(await nota.innerText(), /<img src=x onerror=/);
    assert.notEqual(await pagina.title(), 'invadido');
    await pagina.close();
  });
});

it('a generic agent with AGENTE_TOKENS: the page asks for a token, says when the agent refuses it, and calls skills with the right one', async () => {
  const navegador = await abrirNavegador();
  const pasta = pastaTemporaria();
  const everything = await iniciarEverything();
  const ana = randomBytes(24).toString('base64url');
  const agente = await iniciarAgenteGenerico(pasta.config({ everything: { url: everything.url } }), { AGENTE_TOKENS: `ana:${ana}` });
  try {
    const pagina = await navegador.contexto.newPage();
    const token = await entrarComToken(pagina, agente.url, ana);
    await token.waitFor({ state: 'hidden' });
    await pagina.getByRole('button', { name: 'Echo Tool', exact: true }).click();
    await pagina.getByLabel('message', { exact: true }).fill('com token');
    await pagina.getByRole('button', { name: 'Enviar', exact: true }).click();
    await resultado(pagina).getByText('Echo: com token', { exact: true }).first().waitFor();
  } finally {
    await navegador.fechar();
    await agente.parar();
    await everything.parar();
    pasta.apagar();
  }
});
