/**
 * The agent bridging MCP servers that are not ours (issue 23), started with
 * AGENTE_MCP_CONFIG as a user would: server-everything over Streamable HTTP,
 * server-memory and server-filesystem over stdio (of the 2025 era, built on the 1.x SDK),
 * and the 2026-07-28 fixture of two question rounds. Every A2A exchange goes
 * through the official @a2a-js/sdk client; every process runs on a free port.
 * URL-mode questions (AUTH_REQUIRED) and CancelTask, of a running call and
 * of a Task paused on a session's question, have blocks of their own, each
 * with its own server-everything and agent, so the agent's log they read
 * holds only their calls (tied to a Task by the traceparent sent with it).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { Artifact, Part, SendMessageRequest, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { iniciarPostgres, type Postgres } from '../scripts/postgres.js';
import { clienteOficial, comoTarefa, dados, dadosDe, nomeDoEstado, resumo, texto, textoDe, todos } from './apoio/cliente-a2a.js';
import { leitor, rastro } from './apoio/fluxo-a2a.js';
import {
  card,
  everythingComAgente,
  ferramentasNoCard,
  iniciarAgenteGenerico,
  iniciarEverything,
  iniciarPerguntas,
  memoria,
  pastaTemporaria,
  sistemaDeArquivos,
  type Pasta,
  type ServidorExterno,
  type ServidorNoArquivo,
} from './apoio/ponte-generica.js';
import { linhasAte, type Processo } from './apoio/processos.js';

const enviar = async (cliente: Client, pedido: SendMessageRequest): Promise<Task> => comoTarefa(await cliente.sendMessage(pedido));

const mensagemDe = (task: Task) => textoDe(task.status?.message?.parts);

/** The status message's data part (a pause's inputRequests, and why an answer was refused). */
function dadosDaPausa(task: Task): { inputRequests: Record<string, { method: string; params: Record<string, unknown> }>; erro?: string } {
  const [pausa] = dadosDe(task.status?.message?.parts);
  assert.ok(pausa && typeof pausa === 'object' && 'inputRequests' in pausa, `a data part with inputRequests: ${JSON.stringify(pausa)}`);
  return pausa as ReturnType<typeof dadosDaPausa>;
}

function artefato(task: Task, nome: string): Artifact {
  const achado = task.artifacts.find((lido) => lido.name === nome);
  assert.ok(achado, `artifact ${nome} among ${task.artifacts.map((lido) => lido.name).join(', ')}`);
  return achado;
}

const partesDeArquivo = (partes: readonly Part[]) => partes.filter(({ content }) => content?.$case === 'raw' || content?.$case === 'url');

/**
 * The agent's log lines written while `acao` ran, to show what it sent to
 * MCP: a marker request before and after bounds them (see linhasAte).
 */
async function linhasDurante(agente: Processo, acao: () => Promise<unknown>): Promise<string[]> {
  const marcar = (id: string) => fetch(new URL(`/${id}`, agente.url));
  const antes = (await linhasAte(agente, marcar)).length;
  await acao();
  return (await linhasAte(agente, marcar)).slice(antes);
}

describe('server-everything over Streamable HTTP (one server: skill ids are still everything.<tool>)', () => {
  let pasta: Pasta | undefined;
  let everything: ServidorExterno | undefined;
  let agente: Processo | undefined;
  let cliente: Client;
  before(async () => {
    pasta = pastaTemporaria();
    everything = await iniciarEverything();
    agente = await iniciarAgenteGenerico(pasta.config({ everything: { url: everything.url } }));
    cliente = await clienteOficial(agente.url, 'JSONRPC');
  });
  after(async () => {
    await agente?.parar();
    await everything?.parar();
    pasta?.apagar();
  });
  const oAgente = () => {
    assert.ok(agente, 'the agent started');
    return agente;
  };

  it("the card: one skill per tool, and the extension with each tool's server, name and schemas", async () => {
    const lido = await card(oAgente().url);
    const ids = lido.skills.map(({ id }) => id);
    for (const tool of ['trigger-elicitation-request', 'get-structured-content', 'get-tiny-image', 'trigger-long-running-operation'])
      assert.ok(ids.includes(`everything.${tool}`), `everything.${tool} among ${ids.join(', ')}`);
    assert.ok(
      ids.every((id) => id.startsWith('everything.')),
      ids.join(', '),
    );
    const ferramentas = ferramentasNoCard(lido);
    assert.deepEqual(Object.keys(ferramentas).sort(), [...ids].sort(), 'the extension describes every skill, and only them');
    const estruturado = ferramentas['everything.get-structured-content'];
    assert.ok(estruturado);
    assert.equal(estruturado.servidor, 'everything');
    assert.equal(estruturado.ferramenta, 'get-structured-content');
    assert.deepEqual(estruturado.inputSchema, {
      type: 'object',
      properties: { location: { type: 'string', enum: ['New York', 'Chicago', 'Los Angeles'], description: 'Choose city' } },
      required: ['location'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    assert.deepEqual((estruturado.outputSchema as { required?: unknown }).required, ['temperature', 'conditions', 'humidity']);
    assert.deepEqual(estruturado.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it("an elicitation during the call pauses the Task; an accepted answer (inputResponses) completes it with the server's text", async () => {
    const pausa = await enviar(cliente, dados({ name: 'everything.trigger-elicitation-request', arguments: {} }));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    assert.equal(mensagemDe(pausa), 'Please provide inputs for the following fields:');
    const { inputRequests } = dadosDaPausa(pausa);
    const [chave, ...outras] = Object.keys(inputRequests);
    assert.ok(chave !== undefined && outras.length === 0, 'one question');
    const pergunta = inputRequests[chave];
    assert.equal(pergunta?.method, 'elicitation/create');
    assert.equal(pergunta.params.message, 'Please provide inputs for the following fields:');
    assert.deepEqual((pergunta.params.requestedSchema as { required?: unknown }).required, ['name']);

    const fim = await enviar(
      cliente,
      dados(
        { inputResponses: { [chave]: { action: 'accept', content: { name: 'Marty McFly', check: true, integer: 7 } } } },
        { taskId: pausa.id },
      ),
    );
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    assert.match(
      mensagemDe(fim),
      /^✅ User provided the requested information!\nUser inputs:\n- Name: Marty McFly\n- Agreed to terms: true\n- Favorite Integer: 7\n/,
    );
    const { parts } = artefato(fim, 'everything.trigger-elicitation-request');
    assert.equal(
      textoDe(parts.slice(0, 2)),
      '✅ User provided the requested information! User inputs:\n- Name: Marty McFly\n- Agreed to terms: true\n- Favorite Integer: 7',
    );
    assert.match(textoDe(parts), /"action": "accept"/);
  });

  it('recusar (text) declines: server-everything answers a decline with a normal result, so the Task completes', async () => {
    const pausa = await enviar(cliente, texto('everything.trigger-elicitation-request'));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const fim = await enviar(cliente, texto('recusar', { taskId: pausa.id }));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    assert.equal(mensagemDe(fim), '❌ User declined to provide the requested information.\n\nRaw result: {\n  "action": "decline"\n}');
    assert.deepEqual(
      artefato(fim, 'everything.trigger-elicitation-request').parts.map(({ content }) => content),
      [
        { $case: 'text', value: '❌ User declined to provide the requested information.' },
        { $case: 'text', value: '\nRaw result: {\n  "action": "decline"\n}' },
      ],
    );
  });

  it('an answer the requestedSchema refuses keeps the question, says why in the data part, and reaches nobody', async () => {
    const aAgente = oAgente();
    const pausa = await enviar(cliente, dados({ name: 'everything.trigger-elicitation-request', arguments: {} }));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const [chave = ''] = Object.keys(dadosDaPausa(pausa).inputRequests);

    let recusada: Task | undefined;
    const durante = await linhasDurante(aAgente, async () => {
      recusada = await enviar(
        cliente,
        dados({ inputResponses: { [chave]: { action: 'accept', content: { name: 42 } } } }, { taskId: pausa.id }),
      );
    });
    assert.ok(recusada);
    assert.equal(nomeDoEstado(recusada), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(recusada));
    const motivo = `Resposta recusada: a resposta a "${chave}" nao confere com o que foi pedido: data/name must be string`;
    assert.equal(dadosDaPausa(recusada).erro, motivo);
    assert.deepEqual(Object.keys(dadosDaPausa(recusada).inputRequests), [chave], 'the same question, still answerable');
    assert.equal(mensagemDe(recusada), `Please provide inputs for the following fields:\n${motivo}`);
    assert.deepEqual(
      durante.filter((linha) => linha.includes('mcp')),
      [],
      `nothing went to MCP:\n${durante.join('\n')}`,
    );

    // Unknown and missing keys are refused the same way.
    const semChave = await enviar(cliente, dados({ inputResponses: { outra: { action: 'decline' } } }, { taskId: pausa.id }));
    assert.equal(nomeDoEstado(semChave), 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(dadosDaPausa(semChave).erro, `Resposta recusada: nao ha pergunta "outra" pendente. falta a resposta a "${chave}".`);

    // The call was still waiting, untouched: a valid answer now is the one the server gets.
    const fim = await enviar(
      cliente,
      dados({ inputResponses: { [chave]: { action: 'accept', content: { name: 'Doc' } } } }, { taskId: pausa.id }),
    );
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    assert.match(mensagemDe(fim), /- Name: Doc\n/);
  });

  it("structuredContent becomes one data part after the tool's own text part; the status says the text content", async () => {
    const fim = await enviar(cliente, dados({ name: 'everything.get-structured-content', arguments: { location: 'New York' } }));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    const esperado = { temperature: 33, conditions: 'Cloudy', humidity: 82 };
    // server-everything's text block is its own JSON.stringify of the weather: passed on as it wrote it.
    assert.deepEqual(
      artefato(fim, 'everything.get-structured-content').parts.map(({ content, mediaType }) => ({ content, mediaType })),
      [
        { content: { $case: 'text', value: JSON.stringify(esperado) }, mediaType: '' },
        { content: { $case: 'data', value: esperado }, mediaType: 'application/json' },
      ],
    );
    assert.equal(mensagemDe(fim), JSON.stringify(esperado));
  });

  it('an image becomes a file part: its bytes (raw) and mediaType image/png', async () => {
    const fim = await enviar(cliente, texto('everything.get-tiny-image'));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    const { parts } = artefato(fim, 'everything.get-tiny-image');
    assert.deepEqual(
      parts.map(({ content }) => content?.$case),
      ['text', 'raw', 'text'],
      'each content block a part, in order',
    );
    const [imagem, ...outros] = partesDeArquivo(parts);
    assert.ok(imagem?.content?.$case === 'raw' && outros.length === 0, 'one file part, with its bytes');
    assert.equal(imagem.mediaType, 'image/png');
    assert.deepEqual([...imagem.content.value.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the PNG signature');
    assert.equal(textoDe(parts), "Here's the image you requested: The image above is the MCP logo.");
    assert.equal(mensagemDe(fim), "Here's the image you requested:\nThe image above is the MCP logo.");
  });

  it('resource links become file parts with their URI; an embedded text resource, a text part; a blob, a file part with its bytes; no text: "<skill> concluida."', async () => {
    const links = await enviar(cliente, texto('everything.get-resource-links count=2'));
    assert.equal(nomeDoEstado(links), 'TASK_STATE_COMPLETED', mensagemDe(links));
    assert.deepEqual(
      partesDeArquivo(artefato(links, 'everything.get-resource-links').parts).map(({ content, filename, mediaType }) => ({
        content,
        filename,
        mediaType,
      })),
      [
        { content: { $case: 'url', value: 'demo://resource/dynamic/blob/1' }, filename: 'Blob Resource 1', mediaType: 'text/plain' },
        { content: { $case: 'url', value: 'demo://resource/dynamic/text/2' }, filename: 'Text Resource 2', mediaType: 'text/plain' },
      ],
    );
    assert.equal(mensagemDe(links), 'Here are 2 resource links to resources available in this server:');

    const referencia = await enviar(cliente, texto('everything.get-resource-reference'));
    assert.equal(nomeDoEstado(referencia), 'TASK_STATE_COMPLETED', mensagemDe(referencia));
    const uri = 'demo://resource/dynamic/text/1';
    const [antes, embutido, depois, ...outras] = artefato(referencia, 'everything.get-resource-reference').parts;
    assert.equal(outras.length, 0, 'one part per content block');
    assert.deepEqual(
      [antes?.content, depois?.content],
      [
        { $case: 'text', value: 'Returning resource reference for Resource 1:' },
        { $case: 'text', value: `You can access this resource using the URI: ${uri}` },
      ],
    );
    assert.ok(embutido?.content?.$case === 'text', 'the embedded text resource, as text');
    assert.match(embutido.content.value, /^Resource 1: This is a plaintext resource created at /);
    assert.equal(embutido.mediaType, 'text/plain');
    assert.deepEqual(embutido.metadata, { uri });

    // "ola" as a data: URI, so the server reads nothing from the network; its answer has no text block.
    const semTexto = await enviar(
      cliente,
      dados({
        name: 'everything.gzip-file-as-resource',
        arguments: { name: 'ola.gz', data: 'data:text/plain;base64,b2xh', outputType: 'resource' },
      }),
    );
    assert.equal(nomeDoEstado(semTexto), 'TASK_STATE_COMPLETED', mensagemDe(semTexto));
    assert.equal(mensagemDe(semTexto), 'everything.gzip-file-as-resource concluida.');
    const [comprimido] = partesDeArquivo(artefato(semTexto, 'everything.gzip-file-as-resource').parts);
    assert.ok(comprimido?.content?.$case === 'raw');
    assert.equal(comprimido.mediaType, 'application/gzip');
    assert.equal(gunzipSync(comprimido.content.value).toString('utf8'), 'ola');
  });

  it('progress notifications are streamed as WORKING updates with their message, before COMPLETED', async () => {
    const eventos = await todos(
      cliente.sendMessageStream(dados({ name: 'everything.trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 } })),
    );
    assert.deepEqual(eventos.map(resumo), [
      'task:TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'artifact:everything.trigger-long-running-operation',
      'TASK_STATE_COMPLETED',
    ]);
    const mensagens = eventos.flatMap(({ payload }) =>
      payload?.$case === 'statusUpdate' && payload.value.status?.message ? [textoDe(payload.value.status.message.parts)] : [],
    );
    assert.deepEqual(mensagens, [
      'Progresso 1/4.',
      'Progresso 2/4.',
      'Progresso 3/4.',
      'Progresso 4/4.',
      'Long running operation completed. Duration: 0.4 seconds, Steps: 4.',
    ]);
  });

  it("arguments the inputSchema refuses: REJECTED with the validator's message, and no tools/call", async () => {
    let rejeitada: Task | undefined;
    const durante = await linhasDurante(oAgente(), async () => {
      rejeitada = await enviar(cliente, dados({ name: 'everything.get-structured-content', arguments: { location: 42 } }));
    });
    assert.ok(rejeitada);
    assert.equal(nomeDoEstado(rejeitada), 'TASK_STATE_REJECTED');
    assert.equal(
      mensagemDe(rejeitada),
      'Argumentos recusados por everything.get-structured-content: data/location must be string, data/location must be equal to one of the allowed values',
    );
    assert.deepEqual(
      durante.filter((linha) => linha.includes('metodo=tools/call')),
      [],
    );
  });
});

describe('server-everything with a "tools" allow-list', () => {
  const processos = everythingComAgente(['echo', 'get-sum']);

  it('only the listed tools are skills: get-env is neither in the card nor callable', async () => {
    const { agente } = processos;
    const lido = await card(agente.url);
    assert.deepEqual(
      lido.skills.map(({ id }) => id),
      ['everything.echo', 'everything.get-sum'],
    );
    assert.deepEqual(Object.keys(ferramentasNoCard(lido)), ['everything.echo', 'everything.get-sum']);

    const cliente = await clienteOficial(agente.url, 'HTTP+JSON');
    for (const name of ['everything.get-env', 'get-env']) {
      const recusada = await enviar(cliente, dados({ name, arguments: {} }));
      assert.equal(nomeDoEstado(recusada), 'TASK_STATE_REJECTED');
      assert.equal(mensagemDe(recusada), `Skill desconhecida "${name}". Skills: everything.echo, everything.get-sum.`);
      assert.deepEqual(recusada.artifacts, []);
    }

    // The bare tool name is an alias of the one skill of that tool: the artifact is named by the id.
    const soma = await enviar(cliente, texto('get-sum a=2 b=3'));
    assert.equal(nomeDoEstado(soma), 'TASK_STATE_COMPLETED', mensagemDe(soma));
    assert.equal(mensagemDe(soma), 'The sum of 2 and 3 is 5.');
    assert.deepEqual(
      soma.artifacts.map(({ name }) => name),
      ['everything.get-sum'],
    );
  });
});

describe('server-memory over stdio', () => {
  let pasta: Pasta | undefined;
  let agente: Processo | undefined;
  let grafo = '';
  before(async () => {
    pasta = pastaTemporaria();
    grafo = join(pasta.caminho, 'grafo.jsonl');
    agente = await iniciarAgenteGenerico(pasta.config({ memoria: memoria(grafo) }));
  });
  after(async () => {
    await agente?.parar();
    pasta?.apagar();
  });

  it("entities created with a data part come back from read_graph asked in text, as the artifact's data; isError fails the Task", async () => {
    assert.ok(agente);
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const entidades = [
      { name: 'Marty', entityType: 'pessoa', observations: ['viaja no tempo'] },
      { name: 'Doc', entityType: 'pessoa', observations: ['inventor', 'tem um DeLorean'] },
    ];
    const criadas = await enviar(cliente, dados({ name: 'memoria.create_entities', arguments: { entities: entidades } }));
    assert.equal(nomeDoEstado(criadas), 'TASK_STATE_COMPLETED', mensagemDe(criadas));
    assert.deepEqual(dadosDe(artefato(criadas, 'memoria.create_entities').parts), [{ entities: entidades }]);

    const lido = await enviar(cliente, texto('memoria.read_graph'));
    assert.equal(nomeDoEstado(lido), 'TASK_STATE_COMPLETED', mensagemDe(lido));
    assert.deepEqual(dadosDe(artefato(lido, 'memoria.read_graph').parts), [{ entities: entidades, relations: [] }]);
    // isError: the Task fails with the tool's own text.
    const falhou = await enviar(
      cliente,
      dados({ name: 'memoria.add_observations', arguments: { observations: [{ entityName: 'Biff', contents: ['nao existe'] }] } }),
    );
    assert.equal(nomeDoEstado(falhou), 'TASK_STATE_FAILED');
    assert.equal(mensagemDe(falhou), 'Entity with name Biff not found');
    assert.deepEqual(falhou.artifacts, []);
    // Written where the config said, not inside node_modules.
    assert.deepEqual(
      readFileSync(grafo, 'utf8')
        .trim()
        .split('\n')
        .map((linha) => JSON.parse(linha) as unknown),
      entidades.map((entidade) => ({ type: 'entity', ...entidade })),
    );
  });
});

describe("server-filesystem over stdio: the tool's text as text, and skill ids that stay when a server is added", () => {
  let pasta: Pasta | undefined;
  let agente: Processo | undefined;
  let arquivos = '';
  before(async () => {
    pasta = pastaTemporaria();
    arquivos = join(pasta.caminho, 'arquivos');
    mkdirSync(arquivos);
    writeFileSync(join(arquivos, 'ola.txt'), 'Olá, ponte!');
    agente = await iniciarAgenteGenerico(pasta.config({ fs: sistemaDeArquivos(arquivos) }));
  });
  after(async () => {
    await agente?.parar();
    pasta?.apagar();
  });
  const oAgente = () => {
    assert.ok(agente, 'the agent started');
    return agente;
  };

  it("read_text_file: the artifact's text part is the file's text as the tool wrote it, then its structuredContent as one data part", async () => {
    const cliente = await clienteOficial(oAgente().url, 'JSONRPC');
    const lido = await enviar(cliente, dados({ name: 'fs.read_text_file', arguments: { path: join(arquivos, 'ola.txt') } }));
    assert.equal(nomeDoEstado(lido), 'TASK_STATE_COMPLETED', mensagemDe(lido));
    assert.equal(mensagemDe(lido), 'Olá, ponte!');
    assert.deepEqual(
      artefato(lido, 'fs.read_text_file').parts.map(({ content, mediaType }) => ({ content, mediaType })),
      [
        { content: { $case: 'text', value: 'Olá, ponte!' }, mediaType: '' },
        { content: { $case: 'data', value: { content: 'Olá, ponte!' } }, mediaType: 'application/json' },
      ],
    );

    const listada = await enviar(cliente, texto(`fs.list_directory path=${arquivos}`));
    assert.equal(nomeDoEstado(listada), 'TASK_STATE_COMPLETED', mensagemDe(listada));
    assert.deepEqual(
      artefato(listada, 'fs.list_directory').parts.map(({ content }) => content),
      [
        { $case: 'text', value: '[FILE] ola.txt' },
        { $case: 'data', value: { content: '[FILE] ola.txt' } },
      ],
    );
  });

  it("the first server's skill ids are the same with one server in the file and with two", async () => {
    const sozinho = (await card(oAgente().url)).skills.map(({ id }) => id);
    for (const id of ['fs.read_text_file', 'fs.list_directory', 'fs.write_file']) assert.ok(sozinho.includes(id), sozinho.join(', '));
    assert.ok(
      sozinho.every((id) => id.startsWith('fs.')),
      sozinho.join(', '),
    );
    assert.ok(pasta);
    const config = pasta.config({ fs: sistemaDeArquivos(arquivos), memoria: memoria(join(pasta.caminho, 'grafo.jsonl')) }, 'dois.json');
    const comDois = await iniciarAgenteGenerico(config);
    try {
      const ids = (await card(comDois.url)).skills.map(({ id }) => id);
      assert.deepEqual(
        ids.filter((id) => id.startsWith('fs.')),
        sozinho,
      );
      assert.ok(ids.includes('memoria.read_graph'), ids.join(', '));
      const cliente = await clienteOficial(comDois.url, 'HTTP+JSON');
      const lido = await enviar(cliente, texto(`fs.read_text_file path=${join(arquivos, 'ola.txt')}`));
      assert.equal(nomeDoEstado(lido), 'TASK_STATE_COMPLETED', mensagemDe(lido));
      assert.equal(textoDe(artefato(lido, 'fs.read_text_file').parts), 'Olá, ponte!');
    } finally {
      await comDois.parar();
    }
  });
});

/** Two agents on one PostgreSQL database (TASKS_DB), each bridging the servers of the same config file. */
function doisAgentes(servidores: (pasta: Pasta) => Promise<Record<string, ServidorNoArquivo>>) {
  const estado: { pasta?: Pasta; postgres?: Postgres; agentes: Processo[]; parar: (() => Promise<unknown>)[] } = {
    agentes: [],
    parar: [],
  };
  before(async () => {
    const pasta = pastaTemporaria();
    estado.pasta = pasta;
    const postgres = await iniciarPostgres();
    estado.postgres = postgres;
    const banco = await postgres.novoBanco(`generica_${randomUUID().replaceAll('-', '')}`);
    const config = pasta.config(await servidores(pasta));
    for (let i = 0; i < 2; i++) estado.agentes.push(await iniciarAgenteGenerico(config, { TASKS_DB: banco }));
  });
  after(async () => {
    await Promise.all(estado.agentes.map((agente) => agente.parar()));
    for (const parar of estado.parar) await parar();
    await estado.postgres?.parar();
    estado.pasta?.apagar();
  });
  return {
    /** Stopped after the agents. */
    aoFim: (parar: () => Promise<unknown>) => estado.parar.push(parar),
    agentes: () => {
      const [a, b] = estado.agentes;
      assert.ok(a && b, 'both agents started');
      assert.ok(
        a.linhas.some((linha) => linha.includes('Tasks em PostgreSQL')),
        'the agents keep Tasks in PostgreSQL',
      );
      return [a, b] as const;
    },
  };
}

describe('the 2026-07-28 fixture and server-memory, on two agents sharing PostgreSQL (several servers: ids <nome>.<tool>)', () => {
  const { agentes, aoFim } = doisAgentes(async (pasta) => {
    const perguntas = await iniciarPerguntas();
    aoFim(() => perguntas.parar());
    return { perguntas: { url: perguntas.url }, memoria: memoria(join(pasta.caminho, 'grafo.jsonl')) };
  });

  it('the card names each skill <nome>.<tool>, and the extension says which server and tool it is', async () => {
    const [a] = agentes();
    const lido = await card(a.url);
    const ids = lido.skills.map(({ id }) => id);
    assert.ok(ids.includes('perguntas.agendar_visita'), ids.join(', '));
    for (const tool of ['create_entities', 'read_graph', 'search_nodes']) assert.ok(ids.includes(`memoria.${tool}`), ids.join(', '));
    assert.ok(
      ids.every((id) => id.startsWith('perguntas.') || id.startsWith('memoria.')),
      ids.join(', '),
    );
    const ferramentas = ferramentasNoCard(lido);
    assert.equal(ferramentas['perguntas.agendar_visita']?.servidor, 'perguntas');
    assert.equal(ferramentas['perguntas.agendar_visita'].ferramenta, 'agendar_visita');
    assert.equal(ferramentas['memoria.read_graph']?.servidor, 'memoria');
    assert.equal(ferramentas['memoria.read_graph'].ferramenta, 'read_graph');

    const cliente = await clienteOficial(a.url, 'JSONRPC');
    const grafo = await enviar(cliente, texto('memoria.read_graph'));
    assert.equal(nomeDoEstado(grafo), 'TASK_STATE_COMPLETED', mensagemDe(grafo));
    assert.deepEqual(dadosDe(artefato(grafo, 'memoria.read_graph').parts), [{ entities: [], relations: [] }]);
    // Only memoria has a read_graph: its bare name is an alias of memoria.read_graph, which names the artifact.
    const semPrefixo = await enviar(cliente, dados({ name: 'read_graph', arguments: {} }));
    assert.equal(nomeDoEstado(semPrefixo), 'TASK_STATE_COMPLETED', mensagemDe(semPrefixo));
    assert.deepEqual(
      semPrefixo.artifacts.map(({ name }) => name),
      ['memoria.read_graph'],
    );
    const desconhecida = await enviar(cliente, dados({ name: 'apagar_tudo', arguments: {} }));
    assert.equal(nomeDoEstado(desconhecida), 'TASK_STATE_REJECTED');
    assert.match(mensagemDe(desconhecida), /^Skill desconhecida "apagar_tudo"\. Skills: .*memoria\.read_graph/);
  });

  it('a durable pause: asked on agent A, two questions answered on agent B, the second round answered on A', async () => {
    const [a, b] = agentes();
    const [clienteA, clienteB] = await Promise.all([clienteOficial(a.url, 'JSONRPC'), clienteOficial(b.url, 'HTTP+JSON')]);

    const primeira = await enviar(clienteA, dados({ name: 'perguntas.agendar_visita', arguments: { visitante: 'Marty' } }));
    assert.equal(nomeDoEstado(primeira), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(primeira));
    assert.equal(mensagemDe(primeira), 'Em que dia da semana e a visita?\nQuem acompanha o visitante?');
    const rodada1 = dadosDaPausa(primeira).inputRequests;
    assert.deepEqual(Object.keys(rodada1).sort(), ['acompanhante', 'dia']);
    assert.deepEqual(rodada1.dia?.params.requestedSchema, {
      type: 'object',
      properties: {
        dia: { type: 'string', title: 'Dia', description: 'Dia util da visita', enum: ['segunda', 'terca', 'quarta', 'quinta', 'sexta'] },
      },
      required: ['dia'],
    });
    assert.equal(nomeDoEstado(await clienteB.getTask({ id: primeira.id, tenant: '' })), 'TASK_STATE_INPUT_REQUIRED');

    const segunda = await enviar(
      clienteB,
      dados(
        {
          inputResponses: {
            dia: { action: 'accept', content: { dia: 'quarta' } },
            acompanhante: { action: 'accept', content: { nome: 'Doc', cracha: true } },
          },
        },
        { taskId: primeira.id },
      ),
    );
    assert.equal(nomeDoEstado(segunda), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(segunda));
    assert.equal(mensagemDe(segunda), 'Confirma a visita?');
    assert.deepEqual(Object.keys(dadosDaPausa(segunda).inputRequests), ['confirmar']);

    const fim = await enviar(
      clienteA,
      dados({ inputResponses: { confirmar: { action: 'accept', content: { confirmado: true } } } }, { taskId: primeira.id }),
    );
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    assert.equal(mensagemDe(fim), 'Visita de Marty agendada para quarta, acompanhada por Doc, com cracha.');
    assert.deepEqual(dadosDe(artefato(fim, 'perguntas.agendar_visita').parts), [
      { visitante: 'Marty', dia: 'quarta', acompanhante: { nome: 'Doc', cracha: true }, confirmado: true },
    ]);
    assert.equal(nomeDoEstado(await clienteB.getTask({ id: primeira.id, tenant: '' })), 'TASK_STATE_COMPLETED');
  });

  it('an answer with one question refused by its schema is kept paused on the other agent, with the reason', async () => {
    const [a, b] = agentes();
    const [clienteA, clienteB] = await Promise.all([clienteOficial(a.url, 'JSONRPC'), clienteOficial(b.url, 'JSONRPC')]);
    const pausa = await enviar(clienteA, dados({ name: 'perguntas.agendar_visita', arguments: { visitante: 'Biff' } }));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const recusada = await enviar(
      clienteB,
      dados(
        {
          inputResponses: {
            dia: { action: 'accept', content: { dia: 'sabado' } },
            acompanhante: { action: 'accept', content: { nome: 'Lorraine', cracha: false } },
          },
        },
        { taskId: pausa.id },
      ),
    );
    assert.equal(nomeDoEstado(recusada), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(recusada));
    assert.deepEqual(Object.keys(dadosDaPausa(recusada).inputRequests).sort(), ['acompanhante', 'dia'], 'both questions, as before');
    assert.match(dadosDaPausa(recusada).erro ?? '', /^Resposta recusada: a resposta a "dia" nao confere com o que foi pedido: /);
    const recusa = await enviar(
      clienteA,
      dados({ inputResponses: { dia: { action: 'decline' }, acompanhante: { action: 'decline' } } }, { taskId: pausa.id }),
    );
    assert.equal(nomeDoEstado(recusa), 'TASK_STATE_FAILED');
    assert.equal(mensagemDe(recusa), 'Visita nao agendada: a pergunta "dia" foi recusada.');
  });
});

describe('a 2025-era server (server-everything) on two agents sharing PostgreSQL: its question lives in one process', () => {
  const { agentes, aoFim } = doisAgentes(async () => {
    const everything = await iniciarEverything();
    aoFim(() => everything.parar());
    return { everything: { url: everything.url } };
  });

  it("an elicitation paused on agent A and answered on agent B fails the Task, saying the question lived in A's session", async () => {
    const [a, b] = agentes();
    const [clienteA, clienteB] = await Promise.all([clienteOficial(a.url, 'JSONRPC'), clienteOficial(b.url, 'JSONRPC')]);
    const pausa = await enviar(clienteA, dados({ name: 'everything.trigger-elicitation-request', arguments: {} }));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const [chave = ''] = Object.keys(dadosDaPausa(pausa).inputRequests);
    assert.equal(
      nomeDoEstado(await clienteB.getTask({ id: pausa.id, tenant: '' })),
      'TASK_STATE_INPUT_REQUIRED',
      'B reads the stored pause',
    );

    let fim: Task | undefined;
    const emB = await linhasDurante(b, async () => {
      fim = await enviar(
        clienteB,
        dados({ inputResponses: { [chave]: { action: 'accept', content: { name: 'Marty' } } } }, { taskId: pausa.id }),
      );
    });
    assert.ok(fim);
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_FAILED', mensagemDe(fim));
    assert.match(mensagemDe(fim), /sessao MCP de outro processo do agente/);
    assert.match(mensagemDe(fim), /servidores MCP anteriores a 2026-07-28 perguntam durante a chamada/);
    assert.match(mensagemDe(fim), /Envie o pedido de novo\.$/);
    assert.equal(nomeDoEstado(await clienteA.getTask({ id: pausa.id, tenant: '' })), 'TASK_STATE_FAILED');
    assert.deepEqual(
      emB.filter((linha) => linha.includes('mcp')),
      [],
      'B has no call to answer into, and sends nothing',
    );
  });
});

/** The agent's log line of one MCP tools/call of a Task, by tool, trace and outcome (see agente/src/mcp/registro.ts). */
const linhaDaChamada = (ferramenta: string, traceId: string, resultado: string) =>
  new RegExp(
    `^mcp-> servidor=everything sessao=\\d+ metodo=tools/call id=\\d+ nome=${ferramenta} traceparent=00-${traceId}-[0-9a-f]{16}-01 resultado=${resultado} `,
  );

const sessaoDa = (linha: string) => /\bsessao=(\d+)\b/.exec(linha)?.[1];

describe('URL-mode elicitation (server-everything trigger-url-elicitation): the Task asks for authorization', () => {
  const processos = everythingComAgente();
  const URL_DE_TESTE = 'https://exemplo.test/autorizar?conta=42';

  it('elicitation/create in url mode pauses the Task AUTH_REQUIRED with the message and the URL; "pronto" on the same Task completes it', async () => {
    const { agente } = processos;
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const { traceId, opcoes } = rastro();
    const pausa = comoTarefa(
      await cliente.sendMessage(
        dados({ name: 'everything.trigger-url-elicitation', arguments: { url: URL_DE_TESTE, message: 'Autorize o acesso a conta 42' } }),
        opcoes,
      ),
    );
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_AUTH_REQUIRED', mensagemDe(pausa));
    assert.equal(mensagemDe(pausa), `Autorize o acesso a conta 42 ${URL_DE_TESTE}`);
    const { inputRequests, erro } = dadosDaPausa(pausa);
    assert.equal(erro, undefined);
    const [chave, ...outras] = Object.keys(inputRequests);
    assert.ok(chave !== undefined && outras.length === 0, 'one question');
    const pergunta = inputRequests[chave];
    assert.equal(pergunta?.method, 'elicitation/create');
    const { elicitationId, ...params } = pergunta.params;
    assert.deepEqual(params, { mode: 'url', url: URL_DE_TESTE, message: 'Autorize o acesso a conta 42' });
    assert.equal(typeof elicitationId, 'string');
    assert.equal(nomeDoEstado(await cliente.getTask({ id: pausa.id, tenant: '' })), 'TASK_STATE_AUTH_REQUIRED');

    // An answer it cannot read keeps the question, says how to answer, and reaches nobody: the call still waits.
    let ilegivel: Task | undefined;
    const durante = await linhasDurante(agente, async () => {
      ilegivel = await enviar(cliente, texto('feito', { taskId: pausa.id }));
    });
    assert.ok(ilegivel);
    assert.equal(nomeDoEstado(ilegivel), 'TASK_STATE_AUTH_REQUIRED', mensagemDe(ilegivel));
    assert.match(dadosDaPausa(ilegivel).erro ?? '', /^Resposta fora do formato\. .* ou pronto\.$/);
    assert.deepEqual(Object.keys(dadosDaPausa(ilegivel).inputRequests), [chave]);
    assert.deepEqual(
      durante.filter((linha) => linha.includes('mcp')),
      [],
      `nothing went to MCP:\n${durante.join('\n')}`,
    );

    // The A2A SDK takes a SendMessage to a Task in AUTH_REQUIRED as it takes one in INPUT_REQUIRED.
    let fim: Task | undefined;
    const aoResponder = await linhasDurante(agente, async () => {
      fim = await enviar(cliente, texto('pronto', { taskId: pausa.id }));
    });
    assert.ok(fim);
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    const concluido = `✅ User completed the URL elicitation flow.\nElicitation ID: ${String(elicitationId)}\nURL: ${URL_DE_TESTE}`;
    assert.equal(mensagemDe(fim), `${concluido}\n\nRaw result: {\n  "action": "accept"\n}`);
    assert.deepEqual(
      artefato(fim, 'everything.trigger-url-elicitation').parts.map(({ content }) => content),
      [
        { $case: 'text', value: concluido },
        { $case: 'text', value: '\nRaw result: {\n  "action": "accept"\n}' },
      ],
    );
    // On the wire: accept to the question the call was waiting on, then that same call's result (no second tools/call).
    const mcp = aoResponder.filter((linha) => linha.startsWith('mcp'));
    assert.equal(mcp.length, 2, mcp.join('\n'));
    assert.match(
      mcp[0] ?? '',
      /^mcp<- servidor=everything sessao=\d+ metodo=elicitation\/create id=\d+ nome=- traceparent=- resultado=accept /,
    );
    assert.match(mcp[1] ?? '', linhaDaChamada('trigger-url-elicitation', traceId, 'complete'));
  });

  it('-32042 (errorPath): AUTH_REQUIRED for the prerequisite URL; accepted (inputResponses), the call is made again, asks for its own URL, and "pronto" completes it', async () => {
    const { agente } = processos;
    const cliente = await clienteOficial(agente.url, 'HTTP+JSON');
    const { traceId, opcoes } = rastro();
    const argumentos = { url: 'https://exemplo.test/relatorio', message: 'Entre para liberar o relatorio', errorPath: true };
    const prerequisito = comoTarefa(
      await cliente.sendMessage(dados({ name: 'everything.trigger-url-elicitation', arguments: argumentos }), opcoes),
    );
    assert.equal(nomeDoEstado(prerequisito), 'TASK_STATE_AUTH_REQUIRED', mensagemDe(prerequisito));
    assert.equal(
      mensagemDe(prerequisito),
      'Open this link to satisfy the prerequisite, then retry the request. https://modelcontextprotocol.io',
    );
    const primeira = dadosDaPausa(prerequisito).inputRequests;
    assert.deepEqual(Object.keys(primeira), ['url-1']);
    assert.equal(primeira['url-1']?.params.mode, 'url');
    assert.equal(primeira['url-1'].params.url, 'https://modelcontextprotocol.io');

    // No call waits on a -32042: the answer makes it again, with the same arguments. server-everything knows the retry
    // (by session, URL and elicitationId: the agent's one idle session is reused) and now asks through elicitation/create.
    const segunda = await enviar(cliente, dados({ inputResponses: { 'url-1': { action: 'accept' } } }, { taskId: prerequisito.id }));
    assert.equal(nomeDoEstado(segunda), 'TASK_STATE_AUTH_REQUIRED', mensagemDe(segunda));
    assert.equal(mensagemDe(segunda), 'Entre para liberar o relatorio https://exemplo.test/relatorio');
    const propria = dadosDaPausa(segunda).inputRequests;
    assert.deepEqual(Object.keys(propria), ['pergunta-2'], 'the second round of questions');
    assert.equal(propria['pergunta-2']?.params.url, 'https://exemplo.test/relatorio');

    const fim = await enviar(cliente, texto('pronto', { taskId: prerequisito.id }));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    assert.match(
      mensagemDe(fim),
      /^✅ User completed the URL elicitation flow\.\nElicitation ID: \S+\nURL: https:\/\/exemplo\.test\/relatorio\n/,
    );
    // Two tools/call on the wire for this Task: the one refused with -32042, then the one that completed.
    await agente.esperarLinha(linhaDaChamada('trigger-url-elicitation', traceId, 'complete'));
    assert.deepEqual(
      agente.linhas
        .filter((linha) => linha.includes(`traceparent=00-${traceId}-`))
        .map((linha) => /resultado=("[^"]*"|\S+)/.exec(linha)?.[1]),
      ['"erro -32042"', 'complete'],
    );
  });

  it('recusar declines the URL: the server answers a decline with a normal result, so the Task completes with it', async () => {
    const cliente = await clienteOficial(processos.agente.url, 'JSONRPC');
    const pausa = await enviar(cliente, texto(`everything.trigger-url-elicitation url=${URL_DE_TESTE}`));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_AUTH_REQUIRED', mensagemDe(pausa));
    assert.equal(mensagemDe(pausa), `Please open the link to complete this action. ${URL_DE_TESTE}`);
    const elicitationId = String(Object.values(dadosDaPausa(pausa).inputRequests)[0]?.params.elicitationId);
    const fim = await enviar(cliente, texto('recusar', { taskId: pausa.id }));
    assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED', mensagemDe(fim));
    assert.equal(
      mensagemDe(fim),
      `❌ User declined to open the URL (Elicitation ID: ${elicitationId}).\n\nRaw result: {\n  "action": "decline"\n}`,
    );
  });
});

describe('CancelTask of a running call (server-everything trigger-long-running-operation)', () => {
  const processos = everythingComAgente();

  it('a 30 s call cancelled after its first progress ends CANCELED at once, its stream too; the server is told, and the session is free again', async () => {
    const { agente } = processos;
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const { traceId, opcoes } = rastro();
    const inicio = performance.now();
    const fluxo = leitor(
      cliente.sendMessageStream(
        dados({ name: 'everything.trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }),
        opcoes,
      ),
    );
    // The first progress proves the tools/call is running on the server: the cancel comes after it, not at a guessed time.
    const ateOProgresso = await fluxo.ate(
      ({ payload }) => payload?.$case === 'statusUpdate' && payload.value.status?.message !== undefined,
    );
    assert.deepEqual(ateOProgresso.map(resumo), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_WORKING']);
    const [primeiro] = ateOProgresso;
    assert.ok(primeiro?.payload?.$case === 'task');
    const taskId = primeiro.payload.value.id;
    const progresso = ateOProgresso.at(-1)?.payload;
    assert.ok(progresso?.$case === 'statusUpdate');
    assert.equal(textoDe(progresso.value.status?.message?.parts), 'Progresso 1/30.');

    const antesDoCancel = performance.now();
    const cancelada = await cliente.cancelTask({ id: taskId, tenant: '', metadata: {} });
    const msCancel = performance.now() - antesDoCancel;
    assert.equal(nomeDoEstado(cancelada), 'TASK_STATE_CANCELED', mensagemDe(cancelada));
    assert.equal(
      mensagemDe(cancelada),
      'Task cancelada a pedido do cliente: a chamada foi interrompida e o servidor MCP, avisado; o que a ferramenta ja tinha feito fica feito.',
    );
    assert.ok(msCancel < 5_000, `CancelTask answered in ${msCancel.toFixed(0)} ms`);

    // The stream that started the Task ends with the same CANCELED status, and no artifact.
    const resto = await fluxo.resto();
    assert.deepEqual(resto.map(resumo), ['TASK_STATE_CANCELED']);
    const ultimo = resto.at(-1)?.payload;
    assert.ok(ultimo?.$case === 'statusUpdate');
    assert.equal(textoDe(ultimo.value.status?.message?.parts), mensagemDe(cancelada));
    const total = performance.now() - inicio;
    assert.ok(total < 15_000, `the Task ended ${total.toFixed(0)} ms after it began, not after the 30 s the call takes`);
    const lida = await cliente.getTask({ id: taskId, tenant: '' });
    assert.equal(nomeDoEstado(lida), 'TASK_STATE_CANCELED');
    assert.deepEqual(lida.artifacts, []);

    // The MCP log marks the call cancelada: the SDK sent notifications/cancelled for its request id.
    const cortada = await agente.esperarLinha(linhaDaChamada('trigger-long-running-operation', traceId, 'cancelada'));

    // The call's HTTP session was given back: the next call runs on it, not on a new one.
    const eco = rastro();
    const ola = comoTarefa(await cliente.sendMessage(texto('everything.echo message=ola'), eco.opcoes));
    assert.equal(nomeDoEstado(ola), 'TASK_STATE_COMPLETED', mensagemDe(ola));
    assert.equal(mensagemDe(ola), 'Echo: ola');
    const doEco = await agente.esperarLinha(linhaDaChamada('echo', eco.traceId, 'complete'));
    assert.equal(sessaoDa(doEco), sessaoDa(cortada), `${cortada}\n${doEco}`);
  });
});

describe('CancelTask of a Task paused on a session question (server-everything trigger-elicitation-request)', () => {
  const processos = everythingComAgente();

  it('CANCELED at once; the call waiting on the question is answered cancel and ends (its result reaches nobody); the session serves the next call', async () => {
    const { agente } = processos;
    const cliente = await clienteOficial(agente.url, 'JSONRPC');
    const { traceId, opcoes } = rastro();
    const pausa = comoTarefa(await cliente.sendMessage(dados({ name: 'everything.trigger-elicitation-request', arguments: {} }), opcoes));
    assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', mensagemDe(pausa));
    const [chave = ''] = Object.keys(dadosDaPausa(pausa).inputRequests);

    const cancelada = await cliente.cancelTask({ id: pausa.id, tenant: '', metadata: {} });
    assert.equal(nomeDoEstado(cancelada), 'TASK_STATE_CANCELED', mensagemDe(cancelada));
    // No step runs, so the SDK cancels the Task itself, with its own words (the agent adds none).
    assert.equal(mensagemDe(cancelada), 'Task cancellation requested by user.');

    // The server's question was answered cancel, and the call given up: its tools/call is cancelled (the SDK tells the server).
    await agente.esperarLinha(
      /^mcp<- servidor=everything sessao=\d+ metodo=elicitation\/create id=\d+ nome=- traceparent=- resultado=cancel /,
    );
    const fim = await agente.esperarLinha(linhaDaChamada('trigger-elicitation-request', traceId, 'cancelada'));
    const lida = await cliente.getTask({ id: pausa.id, tenant: '' });
    assert.equal(nomeDoEstado(lida), 'TASK_STATE_CANCELED');
    assert.deepEqual(lida.artifacts, [], "the tool's late result is nobody's");

    // An answer now finds a finished Task: nothing is left for it to reach.
    await assert.rejects(
      cliente.sendMessage(dados({ inputResponses: { [chave]: { action: 'accept', content: { name: 'Marty' } } } }, { taskId: pausa.id })),
      (erro: Error) => erro.name === 'UnsupportedOperationError' && /is in a terminal state/.test(erro.message),
    );

    const eco = rastro();
    const ola = comoTarefa(await cliente.sendMessage(texto('everything.echo message=ola'), eco.opcoes));
    assert.equal(mensagemDe(ola), 'Echo: ola');
    assert.equal(sessaoDa(await agente.esperarLinha(linhaDaChamada('echo', eco.traceId, 'complete'))), sessaoDa(fim));
  });
});
