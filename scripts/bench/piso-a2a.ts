/**
 * A2A floors, built from the project's installed packages: @a2a-js/sdk and
 * express serving JSON-RPC as the agent does (version 1.0 when the client
 * names none, the SDK's memory store), with an executor that publishes the
 * events of a booking (the Task, WORKING, an artifact, COMPLETED) and does
 * no work. With MCP_URL it is the bridge floor: the executor first makes one
 * tools/call through the official MCP client with the agent's options
 * (pinned 2026-07-28, form elicitation, no auto-fulfil) to that server.
 */
import { createServer } from 'node:http';
import { AgentCard, TaskState } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  type AgentExecutor,
  type ServerCallContextBuilder,
} from '@a2a-js/sdk/server';
import { UserBuilder, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { Client, StreamableHTTPClientTransport, specTypeSchemas, withInputRequired } from '@modelcontextprotocol/client';
import express from 'express';
import { agentCard } from '../../agente/src/a2a/card.js';
import { Eventos } from '../../agente/src/a2a/eventos.js';
import { REVISAO_MCP } from 'compartilhado/contrato';

const mcpUrl = process.env.MCP_URL;
const cliente = mcpUrl
  ? new Client(
      { name: 'piso-ponte', version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: REVISAO_MCP } },
        inputRequired: { autoFulfill: false },
      },
    )
  : undefined;
if (cliente && mcpUrl) await cliente.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
const chamada = withInputRequired(specTypeSchemas.CallToolResult);

const executor: AgentExecutor = {
  async execute(contexto, bus) {
    const eventos = new Eventos(contexto.taskId, contexto.contextId);
    bus.publish(eventos.tarefaNova(contexto.userMessage));
    bus.publish(eventos.estado(TaskState.TASK_STATE_WORKING));
    if (cliente)
      await cliente.request({ method: 'tools/call', params: { name: 'eco', arguments: { texto: 'oi' } } }, chamada, {
        allowInputRequired: true,
      });
    bus.publish(eventos.artefato({ nome: 'reserva', dados: { reserva: 'res-0001' } }));
    bus.publish(eventos.estado(TaskState.TASK_STATE_COMPLETED, 'pronto'));
    bus.finished();
  },
  cancelTask: () => Promise.resolve(),
};

const contexto: ServerCallContextBuilder = (opcoes) =>
  defaultServerCallContextBuilder({ ...opcoes, requestedVersion: opcoes.requestedVersion ?? '1.0' });
const card = AgentCard.fromJSON(agentCard(new URL('http://127.0.0.1/')));
const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/a2a', express.json(), jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, contextBuilder: contexto }));
const servidor = createServer(app);
servidor.listen(0, '127.0.0.1', () => {
  const { port } = servidor.address() as { port: number };
  process.stderr.write(`${cliente ? 'piso-ponte' : 'piso-a2a'} ouvindo em http://127.0.0.1:${String(port)}\n`);
});
