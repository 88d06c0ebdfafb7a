/**
 * Test fixture: a 2025-11-25 MCP server over stdio, on the 1.x SDK (as
 * server-everything is: the 2.x server SDK has no MCP tasks; a dev
 * dependency only), whose tools run only as MCP tasks and end the ways
 * simulate-research-query never does, or take long in silence:
 *   quebrar   -> working "Preparando...", then failed, in the server's words: "disco cheio no servidor"
 *   desistir  -> working "Preparando...", then the server cancels its own task
 *   morrer    -> working "Preparando...", then the whole process exits (the task's end never comes)
 *   demorar   -> working "Esperando N s..." and nothing more for `segundos`, then completed "pronto depois de N s"
 * so the agent's mapping of those endings to A2A can be tested end to end.
 *
 *   node --import tsx test/apoio/servidores/tarefas-2025.ts
 */
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

export const MOTIVO_DA_FALHA = 'disco cheio no servidor';

const taskStore = new InMemoryTaskStore();
const servidor = new McpServer(
  { name: 'tarefas-2025', version: '1.0.0' },
  {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);

/** A task tool that reports one stage, then ends as `fim` says, a moment later (never inside tools/call). */
function ferramenta(nome: string, descricao: string, fim: (taskId: string) => Promise<void>): void {
  servidor.experimental.tasks.registerToolTask(
    nome,
    { description: descricao, inputSchema: { motivo: z.string().optional() }, execution: { taskSupport: 'required' } },
    {
      createTask: async (_args, extra) => {
        const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 100 });
        void (async () => {
          await extra.taskStore.updateTaskStatus(task.taskId, 'working', 'Preparando...');
          await new Promise((resolver) => setTimeout(resolver, 300));
          await fim(task.taskId);
        })();
        return { task };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      // What the store kept is what the tool stored: a tools/call result.
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );
}

ferramenta('quebrar', 'Uma tarefa que falha.', (taskId) => taskStore.updateTaskStatus(taskId, 'failed', MOTIVO_DA_FALHA));
ferramenta('desistir', 'Uma tarefa que o servidor cancela.', (taskId) =>
  taskStore.updateTaskStatus(taskId, 'cancelled', 'O servidor desistiu.'),
);
ferramenta('morrer', 'Uma tarefa cujo servidor morre no meio.', () => process.exit(1));
servidor.experimental.tasks.registerToolTask(
  'demorar',
  {
    description: 'Uma tarefa que trabalha calada por tantos segundos, depois conclui.',
    inputSchema: { segundos: z.number().min(0).max(120) },
    execution: { taskSupport: 'required' },
  },
  {
    createTask: async ({ segundos }, extra) => {
      const task = await extra.taskStore.createTask({ ttl: 300_000, pollInterval: 200 });
      void (async () => {
        await extra.taskStore.updateTaskStatus(task.taskId, 'working', `Esperando ${String(segundos)} s...`);
        await new Promise((resolver) => setTimeout(resolver, segundos * 1000));
        await extra.taskStore.storeTaskResult(task.taskId, 'completed', {
          content: [{ type: 'text', text: `pronto depois de ${String(segundos)} s` }],
        });
      })();
      return { task };
    },
    getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
  },
);

// Served only when run as a process: a test imports MOTIVO_DA_FALHA from here, and must not serve on its own stdin.
if (process.argv[1] === fileURLToPath(import.meta.url)) await servidor.connect(new StdioServerTransport());
