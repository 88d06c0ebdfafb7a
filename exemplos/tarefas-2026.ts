/**
 * An example MCP server (revision 2026-07-28, stateless Streamable HTTP)
 * whose one tool runs as a task of the official extension
 * `io.modelcontextprotocol/tasks`: the 2026 generation of MCP tasks, for
 * trying the bridge's MCP tasks against a server that is not a test fixture.
 *
 *   pesquisar { tema, ambigua?, etapaMs? }
 *     to a client that declares the extension: a task (resultType "task"),
 *       working "Reunindo fontes..." -> "Analisando o tema..."
 *       -> with ambigua: input_required, one form question `interpretacao-1`
 *          { interpretacao: historica | atual }, answered by tasks/update
 *       -> "Escrevendo o relatorio..." -> completed "# Relatorio: <tema> (<interpretacao>)"
 *       a question declined or cancelled: failed, saying so
 *     to any other client: the report at once, with no stages and no question.
 *
 * The task's wire shapes are ext-tasks' V2 types (the MCP project's package
 * for the extension): the 2.x server SDK has no tasks of its own, and hosts
 * the extension with what it has: the capability in `extensions`, a tool
 * result of resultType "task" (the SDK adds an empty `content`), and
 * request handlers for `tasks/get`, `tasks/update` and `tasks/cancel` with
 * their own params schema (the SDK hands a tasks/update's `inputResponses`
 * to the handler as `ctx.mcpReq.inputResponses`, as for any retried request).
 * Tasks live in this process's memory for `ttlMs` (every request gets a new
 * McpServer): a restart forgets them, as a client must expect.
 *
 *   PORT=7302 node --import tsx exemplos/tarefas-2026.ts      (npm run exemplo:tarefas)
 *
 * PORT absent: 7302; 0: any free port. When ready it prints `ouvindo <url>`
 * on stdout and `tarefas-2026: ouvindo em <url>` on stderr.
 */
import { randomUUID } from 'node:crypto';
import {
  hasTaskClientCapabilityV2,
  type CreateTaskResultV2,
  type DetailedTaskV2,
  type InputRequestsV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { McpServer, ProtocolError, ProtocolErrorCode, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { servirMcp } from './servir.js';

const EXTENSAO = 'io.modelcontextprotocol/tasks';
const TTL_MS = 300_000;
const INTERPRETACOES = ['historica', 'atual'] as const;
const PERGUNTA = 'interpretacao-1';

/** A task as this server keeps it: what tasks/get shows, and how its work is told of an answer or a cancel. */
interface Registro {
  visao: DetailedTaskV2;
  responder?: (resposta: ElicitResult) => void;
  readonly cancelar: AbortController;
}

const tarefas = new Map<string, Registro>();

/** The task's new state: the fields of the state it leaves (a question, a result, an error) never linger. */
function mudar(
  registro: Registro,
  proxima: DistributiveOmit<DetailedTaskV2, 'taskId' | 'createdAt' | 'lastUpdatedAt' | 'ttlMs' | 'pollIntervalMs'>,
): void {
  const { taskId, createdAt, ttlMs, pollIntervalMs } = registro.visao;
  registro.visao = {
    taskId,
    createdAt,
    ttlMs,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
    lastUpdatedAt: new Date().toISOString(),
    ...proxima,
  };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const terminou = ({ visao }: Registro) => visao.status === 'completed' || visao.status === 'failed' || visao.status === 'cancelled';

function esperar(ms: number, sinal: AbortSignal): Promise<void> {
  return new Promise((resolver, rejeitar) => {
    const relogio = setTimeout(resolver, ms);
    sinal.addEventListener('abort', () => {
      clearTimeout(relogio);
      rejeitar(new Error('tarefa cancelada'));
    });
  });
}

const relatorio = (tema: string, interpretacao?: string) => ({
  content: [{ type: 'text' as const, text: `# Relatorio: ${tema}${interpretacao ? ` (${interpretacao})` : ''}\n\nPesquisa concluida.` }],
});

/** The task's work, apart from the request that created it. */
async function pesquisar(registro: Registro, tema: string, ambigua: boolean, etapaMs: number): Promise<void> {
  const sinal = registro.cancelar.signal;
  try {
    await esperar(etapaMs, sinal);
    mudar(registro, { status: 'working', statusMessage: 'Analisando o tema...' });
    await esperar(etapaMs, sinal);
    let interpretacao: string | undefined;
    if (ambigua) {
      const inputRequests: InputRequestsV2 = {
        [PERGUNTA]: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: `O tema "${tema}" tem mais de uma leitura: qual pesquisar?`,
            requestedSchema: {
              type: 'object',
              properties: { interpretacao: { type: 'string', enum: [...INTERPRETACOES] } },
              required: ['interpretacao'],
            },
          },
        },
      };
      const resposta = new Promise<ElicitResult>((responder) => (registro.responder = responder));
      mudar(registro, { status: 'input_required', statusMessage: 'Tema ambiguo: esperando a interpretacao.', inputRequests });
      const { action, content } = await Promise.race([
        resposta,
        esperar(TTL_MS, sinal).then(() => ({ action: 'cancel' as const, content: undefined })),
      ]);
      registro.responder = undefined;
      const escolhida = content?.interpretacao;
      if (action !== 'accept' || typeof escolhida !== 'string' || !INTERPRETACOES.some((valor) => valor === escolhida)) {
        mudar(registro, {
          status: 'failed',
          statusMessage: 'Sem interpretacao.',
          error: {
            code: ProtocolErrorCode.InvalidParams,
            message: `A pergunta ${PERGUNTA} ficou sem uma interpretacao valida (${action}): nada foi pesquisado.`,
          },
        });
        return;
      }
      interpretacao = escolhida;
      mudar(registro, { status: 'working', statusMessage: `Seguindo com a interpretacao ${interpretacao}...` });
      await esperar(etapaMs, sinal);
    }
    mudar(registro, { status: 'working', statusMessage: 'Escrevendo o relatorio...' });
    await esperar(etapaMs, sinal);
    mudar(registro, {
      status: 'completed',
      statusMessage: 'Pronto.',
      result: { resultType: 'complete', ...relatorio(tema, interpretacao) },
    });
  } catch (erro) {
    // A cancel already wrote the task's state.
    if (!sinal.aborted) mudar(registro, { status: 'failed', error: { code: ProtocolErrorCode.InternalError, message: String(erro) } });
  }
}

function registroDe(taskId: string): Registro {
  const registro = tarefas.get(taskId);
  if (!registro)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tarefa desconhecida: ${taskId} (expirou ou o servidor reiniciou).`);
  return registro;
}

const ParamsDaTarefa = { params: z.object({ taskId: z.string() }) };

function criarServidor(): McpServer {
  const servidor = new McpServer(
    { name: 'tarefas-2026', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false }, extensions: { [EXTENSAO]: {} } } },
  );
  servidor.registerTool(
    'pesquisar',
    {
      title: 'Pesquisar um tema',
      description:
        'Pesquisa um tema em etapas e escreve um relatorio; um tema ambiguo pergunta qual interpretacao seguir. Roda como task MCP.',
      inputSchema: z.object({
        tema: z.string().min(1).max(200),
        ambigua: z.boolean().optional(),
        etapaMs: z.number().int().min(0).max(60_000).optional(),
      }),
    },
    ({ tema, ambigua = false, etapaMs = 1000 }, ctx): CallToolResult => {
      // The client's capabilities, as this request's envelope declared them (a 2026 request carries its own).
      if (!hasTaskClientCapabilityV2({ _meta: ctx.mcpReq.envelope })) return relatorio(tema);
      const agora = new Date().toISOString();
      const taskId = randomUUID();
      const registro: Registro = {
        visao: {
          taskId,
          status: 'working',
          statusMessage: 'Reunindo fontes...',
          createdAt: agora,
          lastUpdatedAt: agora,
          ttlMs: TTL_MS,
          pollIntervalMs: 500,
        },
        cancelar: new AbortController(),
      };
      tarefas.set(taskId, registro);
      setTimeout(() => {
        registro.cancelar.abort();
        tarefas.delete(taskId);
      }, TTL_MS).unref();
      void pesquisar(registro, tema, ambigua, etapaMs);
      const criada: CreateTaskResultV2 = { resultType: 'task', ...registro.visao };
      // The SDK's tool result type asks for `content`; it writes an empty one beside a task's fields anyway.
      return { content: [], ...criada };
    },
  );
  const { server } = servidor;
  server.setRequestHandler('tasks/get', ParamsDaTarefa, ({ taskId }) => ({ ...registroDe(taskId).visao }));
  server.setRequestHandler('tasks/update', ParamsDaTarefa, ({ taskId }, ctx) => {
    const registro = registroDe(taskId);
    const resposta = ctx.mcpReq.inputResponses?.[PERGUNTA];
    if (registro.visao.status === 'input_required' && resposta) registro.responder?.(resposta as ElicitResult);
    return {};
  });
  server.setRequestHandler('tasks/cancel', ParamsDaTarefa, ({ taskId }) => {
    const registro = registroDe(taskId);
    if (!terminou(registro)) {
      mudar(registro, { status: 'cancelled', statusMessage: 'Cancelada a pedido do cliente.' });
      registro.cancelar.abort();
    }
    return {};
  });
  return servidor;
}

servirMcp('tarefas-2026', criarServidor, 7302);
