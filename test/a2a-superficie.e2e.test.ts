/**
 * The agent's whole A2A surface, driven by the official @a2a-js/sdk client
 * over both bindings the card offers (JSON-RPC and HTTP+JSON) against the
 * real processes: the three skills in text and in data parts, pauses and
 * answers, refusal, cancel, streaming, ListTasks and push notifications.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { StreamResponse, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { Disponibilidade, ListaDeSalas } from 'compartilhado/contrato';
import { listaDeSalas } from '../scripts/dados.js';
import { ambosOsProcessos } from './apoio/processos.js';
import {
  BINDINGS,
  clienteOficial,
  comoTarefa,
  dados,
  dadosDe,
  configDePush,
  listagem,
  nomeDoEstado,
  resumo,
  texto,
  textoDe,
  todos,
  webhook,
  type Webhook,
} from './apoio/cliente-a2a.js';

/** A day of its own for each binding, so bookings of one never meet the other's. */
const DIAS = { JSONRPC: '2027-03', 'HTTP+JSON': '2027-04' } as const;

const pedidoDeReserva = (sala: string, dia: string, de: string, ate: string, responsavel: string) => ({
  sala,
  inicio: `${dia}T${de}:00-03:00`,
  fim: `${dia}T${ate}:00-03:00`,
  responsavel,
});
const emTexto = (p: ReturnType<typeof pedidoDeReserva>) =>
  `reservar sala=${p.sala} inicio=${p.inicio} fim=${p.fim} responsavel=${p.responsavel}`;

/** The Task's only artifact: its name, the JSON of its text part and its data part. */
function artefatoDe(task: Task): { nome: string; texto: unknown; dados: unknown[] } {
  assert.equal(task.artifacts.length, 1, 'one artifact');
  const [artefato] = task.artifacts;
  assert.ok(artefato);
  const [primeira] = artefato.parts;
  assert.ok(primeira?.content?.$case === 'text', 'the text part comes first');
  return { nome: artefato.name, texto: JSON.parse(primeira.content.value), dados: dadosDe(artefato.parts) };
}

describe('the A2A surface, official client', () => {
  const processos = ambosOsProcessos();

  for (const binding of BINDINGS) {
    describe(`over ${binding}`, () => {
      let cliente: Client;
      const dia = (n: number) => `${DIAS[binding]}-${String(n).padStart(2, '0')}`;
      before(async () => {
        cliente = await clienteOficial(processos.agente.url, binding);
      });

      /** Books garagem 14-15 on the day, then asks for it again: a Task paused offering fusca and mirante. */
      const pausar = async (d: string, pedir = (p: ReturnType<typeof pedidoDeReserva>) => texto(emTexto(p))) => {
        const livre = comoTarefa(await cliente.sendMessage(texto(emTexto(pedidoDeReserva('sala-garagem', d, '14:00', '15:00', 'Marty')))));
        assert.equal(nomeDoEstado(livre), 'TASK_STATE_COMPLETED');
        const pausa = comoTarefa(await cliente.sendMessage(pedir(pedidoDeReserva('sala-garagem', d, '14:00', '15:00', 'Biff'))));
        assert.equal(nomeDoEstado(pausa), 'TASK_STATE_INPUT_REQUIRED', textoDe(pausa.status?.message?.parts));
        return pausa;
      };

      it('a free room, asked in text: COMPLETED, the artifact reserva as JSON text and as the same object in data', async () => {
        const pedido = pedidoDeReserva('sala-porao', dia(1), '09:00', '10:00', 'Doc Brown');
        const task = comoTarefa(await cliente.sendMessage(texto(emTexto(pedido))));
        assert.equal(nomeDoEstado(task), 'TASK_STATE_COMPLETED');
        const artefato = artefatoDe(task);
        assert.equal(artefato.nome, 'reserva');
        assert.deepEqual(artefato.dados, [artefato.texto]);
        assert.deepEqual({ ...(artefato.texto as object), reserva: undefined }, { ...pedido, reserva: undefined, politica: '2026-11-01' });
        assert.equal(nomeDoEstado(await cliente.getTask({ id: task.id, tenant: '' })), 'TASK_STATE_COMPLETED');
      });

      it('a pause answered in text: the alternatives line, its data part with the question, never the requestState', async () => {
        const pausa = await pausar(dia(2));
        const partes = pausa.status?.message?.parts;
        assert.equal(textoDe(partes), 'alternativas: sala-fusca, sala-mirante');
        const [extra] = dadosDe(partes);
        const pergunta = {
          type: 'object',
          properties: {
            sala: { type: 'string', title: 'Sala', description: 'Sala alternativa escolhida', enum: ['sala-fusca', 'sala-mirante'] },
          },
          required: ['sala'],
        };
        // The room's fields, and beside them the question as MCP asked it (the generic bridge's shape).
        assert.deepEqual(extra, {
          alternativas: ['sala-fusca', 'sala-mirante'],
          pergunta,
          inputRequests: {
            escolha_de_sala: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: 'A sala pedida esta ocupada nesse intervalo. Escolha uma alternativa.',
                requestedSchema: pergunta,
              },
            },
          },
        });
        assert.doesNotMatch(JSON.stringify(pausa), /requestState/);
        const fim = comoTarefa(await cliente.sendMessage(texto('escolha=sala-mirante', { taskId: pausa.id })));
        assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED');
        assert.equal((artefatoDe(fim).texto as { sala: string }).sala, 'sala-mirante');
      });

      it('a booking and its answer as data parts; a wrong answer keeps the pause and says why', async () => {
        const pausa = await pausar(dia(3), (p) => dados(p));
        const errada = comoTarefa(await cliente.sendMessage(dados({ escolha: 'sala-aquario' }, { taskId: pausa.id })));
        assert.equal(nomeDoEstado(errada), 'TASK_STATE_INPUT_REQUIRED');
        assert.equal(textoDe(errada.status?.message?.parts), 'alternativas: sala-fusca, sala-mirante');
        const [reperguntada] = dadosDe(errada.status?.message?.parts) as { erro: string; pergunta: unknown }[];
        assert.equal(reperguntada?.erro, '"sala-aquario" nao esta entre as alternativas.');
        // The same question again, schema included (read from the Task: the pause keeps no copy).
        const [original] = dadosDe(pausa.status?.message?.parts) as { pergunta: unknown }[];
        assert.ok(original?.pergunta);
        assert.deepEqual(reperguntada.pergunta, original.pergunta);
        const fim = comoTarefa(await cliente.sendMessage(dados({ escolha: 'sala-fusca' }, { taskId: pausa.id })));
        assert.equal(nomeDoEstado(fim), 'TASK_STATE_COMPLETED');
        const artefato = artefatoDe(fim);
        assert.deepEqual(artefato.dados, [artefato.texto]);
        assert.equal((artefato.texto as { sala: string; responsavel: string }).sala, 'sala-fusca');
      });

      it('a data part of the wrong shape ends FAILED naming the field', async () => {
        const task = comoTarefa(await cliente.sendMessage(dados({ sala: 'sala-porao', inicio: 'x', fim: 'y' })));
        assert.equal(nomeDoEstado(task), 'TASK_STATE_FAILED');
        assert.equal(textoDe(task.status?.message?.parts), 'Pedido em dados: falta o campo "responsavel".');
      });

      it('escolha=recusar cancels without booking; CancelTask cancels a paused Task', async () => {
        const recusada = comoTarefa(await cliente.sendMessage(texto('escolha=recusar', { taskId: (await pausar(dia(4))).id })));
        assert.equal(nomeDoEstado(recusada), 'TASK_STATE_CANCELED');
        assert.equal(recusada.artifacts.length, 0);
        const pausa = await pausar(dia(5));
        assert.equal(nomeDoEstado(await cliente.cancelTask({ id: pausa.id, tenant: '', metadata: {} })), 'TASK_STATE_CANCELED');
        await assert.rejects(cliente.sendMessage(texto('escolha=sala-fusca', { taskId: pausa.id })), /terminal state/);
      });

      it('listar salas, in text and in data: COMPLETED with the artifact salas as listar_salas returned it', async () => {
        for (const pedido of [texto('listar salas'), dados({ skill: 'listar-salas' })]) {
          const task = comoTarefa(await cliente.sendMessage(pedido));
          assert.equal(nomeDoEstado(task), 'TASK_STATE_COMPLETED');
          const artefato = artefatoDe(task);
          assert.equal(artefato.nome, 'salas');
          assert.deepEqual(ListaDeSalas.parse(artefato.texto).salas, listaDeSalas);
          assert.deepEqual(artefato.dados, [artefato.texto]);
          assert.equal(textoDe(task.status?.message?.parts), `5 salas: ${listaDeSalas.map((sala) => sala.id).join(', ')}.`);
        }
      });

      it('consultar, in text and in data: the artifact disponibilidade; a tool error ends FAILED with its exact text', async () => {
        const ocupada = pedidoDeReserva('sala-aquario', dia(6), '10:00', '11:00', 'Lorraine');
        assert.equal(nomeDoEstado(comoTarefa(await cliente.sendMessage(texto(emTexto(ocupada))))), 'TASK_STATE_COMPLETED');
        const { sala, inicio, fim } = ocupada;
        for (const pedido of [
          texto(`consultar sala=${sala} inicio=${inicio} fim=${fim}`),
          dados({ skill: 'consultar-disponibilidade', sala, inicio, fim }),
        ]) {
          const task = comoTarefa(await cliente.sendMessage(pedido));
          assert.equal(nomeDoEstado(task), 'TASK_STATE_COMPLETED');
          const artefato = artefatoDe(task);
          assert.equal(artefato.nome, 'disponibilidade');
          const disponibilidade = Disponibilidade.parse(artefato.texto);
          assert.equal(disponibilidade.livre, false);
          assert.deepEqual(
            disponibilidade.conflitos.map((c) => c.responsavel),
            ['Lorraine'],
          );
          assert.deepEqual(artefato.dados, [artefato.texto]);
        }
        const livre = comoTarefa(await cliente.sendMessage(texto(`consultar sala=sala-porao inicio=${inicio} fim=${fim}`)));
        assert.deepEqual(artefatoDe(livre).texto, { sala: 'sala-porao', livre: true, conflitos: [] });
        const erro = comoTarefa(await cliente.sendMessage(texto(`consultar sala=sala-x inicio=${inicio} fim=${fim}`)));
        assert.equal(nomeDoEstado(erro), 'TASK_STATE_FAILED');
        assert.equal(textoDe(erro.status?.message?.parts), 'Sala inexistente: sala-x');
      });

      it('a text in no format ends FAILED showing the three formats', async () => {
        const task = comoTarefa(await cliente.sendMessage(texto('quero uma sala')));
        assert.equal(nomeDoEstado(task), 'TASK_STATE_FAILED');
        assert.equal(
          textoDe(task.status?.message?.parts),
          'Pedido fora do formato. Use: reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome> | listar salas | ' +
            'consultar sala=<id> inicio=<iso8601> fim=<iso8601>',
        );
      });

      it('streaming: the Task, WORKING, the artifact and COMPLETED, in order, as they happen', async () => {
        const eventos = await todos(
          cliente.sendMessageStream(texto(emTexto(pedidoDeReserva('sala-mirante', dia(7), '08:00', '09:00', 'Doc')))),
        );
        assert.deepEqual(eventos.map(resumo), [
          'task:TASK_STATE_SUBMITTED',
          'TASK_STATE_WORKING',
          'artifact:reserva',
          'TASK_STATE_COMPLETED',
        ]);
      });

      it('streaming: a conflict ends its stream at INPUT_REQUIRED, and the answer can be streamed too', async () => {
        await cliente.sendMessage(texto(emTexto(pedidoDeReserva('sala-garagem', dia(8), '14:00', '15:00', 'Marty'))));
        const pausa = await todos(
          cliente.sendMessageStream(texto(emTexto(pedidoDeReserva('sala-garagem', dia(8), '14:00', '15:00', 'Biff')))),
        );
        assert.deepEqual(pausa.map(resumo), ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
        const [primeiro] = pausa;
        assert.ok(primeiro?.payload?.$case === 'task');
        const resposta = await todos(cliente.sendMessageStream(texto('escolha=sala-fusca', { taskId: primeiro.payload.value.id })));
        assert.deepEqual(resposta.map(resumo), [
          'task:TASK_STATE_INPUT_REQUIRED',
          'TASK_STATE_WORKING',
          'artifact:reserva',
          'TASK_STATE_COMPLETED',
        ]);
      });

      it('ListTasks: newest first, in pages chained by nextPageToken, filtered by contextId and by state', async () => {
        const contextId = randomUUID();
        const criadas: string[] = [];
        for (const pedido of ['listar salas', 'oi', 'listar salas', 'oi', 'listar salas']) {
          criadas.push(comoTarefa(await cliente.sendMessage(texto(pedido, { contextId }))).id);
        }
        const vistas: string[] = [];
        let pageToken = '';
        let paginas = 0;
        do {
          const pagina = await cliente.listTasks(listagem(contextId, { pageSize: 2, pageToken }));
          assert.equal(pagina.totalSize, 5);
          assert.ok(pagina.tasks.length <= 2);
          vistas.push(...pagina.tasks.map((task) => task.id));
          pageToken = pagina.nextPageToken;
          paginas += 1;
        } while (pageToken !== '');
        assert.equal(paginas, 3);
        assert.deepEqual(vistas, [...criadas].reverse(), 'each Task once, newest first');
        const falhas = await cliente.listTasks(listagem(contextId, { pageSize: 10, status: TaskState.TASK_STATE_FAILED }));
        assert.deepEqual(
          falhas.tasks.map((task) => task.id),
          [criadas[3], criadas[1]],
        );
        assert.ok(falhas.tasks.every((task) => task.artifacts.length === 0));
        await assert.rejects(cliente.listTasks(listagem(contextId, { pageSize: 101 })), /pageSize must be between 1 and 100/);
      });

      describe('push notifications', () => {
        let gancho: Webhook;
        before(async () => {
          gancho = await webhook();
        });
        after(() => gancho.fechar());

        it('Create/Get/List/Delete a config; every change of the Task is POSTed with its token, in order', async () => {
          const pausa = await pausar(dia(9));
          const token = `token-${randomUUID()}`;
          const criada = await cliente.createTaskPushNotificationConfig(configDePush(pausa.id, gancho.url, token));
          assert.ok(criada.id, 'the agent names the config');
          assert.equal(criada.url, gancho.url);
          // Read back, the token is hidden: it is the client's secret, used only on deliveries.
          const lida = await cliente.getTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, id: criada.id });
          assert.deepEqual(lida, { ...criada, token: '********' });
          const lista = await cliente.listTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, pageSize: 0, pageToken: '' });
          assert.deepEqual(lista.configs, [lida]);

          const antes = gancho.recebidas.length;
          await cliente.sendMessage(texto('escolha=sala-mirante', { taskId: pausa.id }));
          const chegadas = (await gancho.ate(antes + 4)).slice(antes);
          assert.deepEqual(
            chegadas.map((chegada) => resumo(StreamResponse.fromJSON(chegada.corpo))),
            ['task:TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'artifact:reserva', 'TASK_STATE_COMPLETED'],
          );
          for (const chegada of chegadas) {
            assert.equal(chegada.headers['x-a2a-notification-token'], token);
            assert.equal(chegada.headers['content-type'], 'application/a2a+json');
          }

          await cliente.deleteTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, id: criada.id });
          const vazia = await cliente.listTaskPushNotificationConfig({ tenant: '', taskId: pausa.id, pageSize: 0, pageToken: '' });
          assert.deepEqual(vazia.configs, []);
        });

        it('a config sent with the message is told from the start; a canceled pause is told too', async () => {
          const antes = gancho.recebidas.length;
          const task = comoTarefa(
            await cliente.sendMessage(texto('listar salas', { webhook: { url: gancho.url, token: 'desde-o-inicio' } })),
          );
          const chegadas = (await gancho.ate(antes + 4)).slice(antes);
          assert.deepEqual(
            chegadas.map((chegada) => resumo(StreamResponse.fromJSON(chegada.corpo))),
            ['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'artifact:salas', 'TASK_STATE_COMPLETED'],
          );
          assert.ok(chegadas.every((chegada) => JSON.stringify(chegada.corpo).includes(task.id)));

          const pausa = await pausar(dia(10));
          await cliente.createTaskPushNotificationConfig(configDePush(pausa.id, gancho.url, 'cancelada'));
          const depois = gancho.recebidas.length;
          await cliente.cancelTask({ id: pausa.id, tenant: '', metadata: {} });
          const [cancelada] = (await gancho.ate(depois + 1)).slice(depois);
          assert.ok(cancelada);
          assert.equal(resumo(StreamResponse.fromJSON(cancelada.corpo)), 'TASK_STATE_CANCELED');
        });

        it('a webhook on a host outside AGENTE_PUSH_HOSTS is refused with InvalidParams naming the host', async () => {
          const pausa = await pausar(dia(11));
          await assert.rejects(
            cliente.createTaskPushNotificationConfig(configDePush(pausa.id, 'http://10.0.0.7:8080/hook')),
            (erro: Error) =>
              erro.name === 'RequestMalformedError' && /o host "10\.0\.0\.7" na porta \d+ nao esta em AGENTE_PUSH_HOSTS/.test(erro.message),
          );
          const comPush = texto('listar salas', { webhook: { url: 'https://intranet.example/hook', token: '' } });
          await assert.rejects(cliente.sendMessage(comPush), /o host "intranet\.example" na porta 443 nao esta em AGENTE_PUSH_HOSTS/);
        });
      });
    });
  }
});
