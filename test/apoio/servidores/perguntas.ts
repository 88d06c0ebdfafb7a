/**
 * Test fixture: a small MCP server (revision 2026-07-28 only, stateless) with
 * one tool, agendar_visita, that asks its questions in two input_required
 * rounds, so end-to-end tests can drive a multi-question, multi-round pause
 * against something other than our own servidor-mcp.
 *
 *   1st call                -> input_required with TWO form elicitations at once:
 *                              `dia` { dia: enum } and `acompanhante` { nome: string, cracha: boolean }
 *   retry with both answers -> input_required with ONE more: `confirmar` { confirmado: boolean }
 *   retry with that answer  -> the result: structuredContent + the same summary as text
 *
 * A declined or cancelled question ends the call with isError and a text that
 * names the question. A missing or invalid answer is asked again (only the
 * questions still unanswered), in the same round.
 *
 * A second tool, nota_em_markdown, answers an embedded text/markdown
 * resource with a heading, a list, emphasis, a `javascript:` link and raw
 * HTML: what a client must draw as Markdown without running any of it.
 *
 * Run as its own process: `PORT=0 node --import tsx test/apoio/servidores/perguntas.ts`
 * (PORT absent or 0: any free port). When ready it prints exactly one line to
 * stdout, `ouvindo http://127.0.0.1:<port>/mcp`, and the same URL on stderr as
 * `perguntas: ouvindo em <url>`, the shape scripts/processos.ts iniciar() reads.
 * Legacy (2025-era) requests are refused, as by our own server.
 */
import {
  acceptedContent,
  inputRequired,
  inputResponse,
  McpServer,
  type CallToolResult,
  type InputRequests,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { servirMcp } from '../../../exemplos/servir.js';

export const FERRAMENTA = 'agendar_visita';

/** The Markdown nota_em_markdown answers: every construct a client draws, and two it must not run. */
export const NOTA_EM_MARKDOWN = [
  '# Visitas da semana',
  '- **segunda**: Doc Brown',
  '- *terca*: `ninguem`',
  '[agenda](https://exemplo.test/agenda) e [isca](javascript:alert(1))',
  '<img src=x onerror="document.title=\'invadido\'">',
].join('\n');
export const DIAS = ['segunda', 'terca', 'quarta', 'quinta', 'sexta'] as const;

/** The inputRequests keys, and the fields each form asks for. */
const Respostas = {
  dia: z.object({ dia: z.enum(DIAS) }),
  acompanhante: z.object({ nome: z.string().min(1), cracha: z.boolean() }),
  confirmar: z.object({ confirmado: z.boolean() }),
};
type Chave = keyof typeof Respostas;

const PERGUNTAS: Readonly<Record<Chave, () => InputRequests[string]>> = {
  dia: () =>
    inputRequired.elicit({
      message: 'Em que dia da semana e a visita?',
      requestedSchema: {
        type: 'object',
        properties: { dia: { type: 'string', title: 'Dia', description: 'Dia util da visita', enum: [...DIAS] } },
        required: ['dia'],
      },
    }),
  acompanhante: () =>
    inputRequired.elicit({
      message: 'Quem acompanha o visitante?',
      requestedSchema: {
        type: 'object',
        properties: {
          nome: { type: 'string', title: 'Nome', description: 'Nome de quem recebe o visitante', minLength: 1 },
          cracha: { type: 'boolean', title: 'Cracha', description: 'O visitante precisa de cracha?' },
        },
        required: ['nome', 'cracha'],
      },
    }),
  confirmar: () =>
    inputRequired.elicit({
      message: 'Confirma a visita?',
      requestedSchema: {
        type: 'object',
        properties: { confirmado: { type: 'boolean', title: 'Confirmado', description: 'Marque para confirmar a visita' } },
        required: ['confirmado'],
      },
    }),
};

/**
 * Everything the server needs between rounds travels in requestState: the
 * server keeps nothing. Here it is plain base64url JSON, NOT sealed (no HMAC):
 * this is a test fixture, and a client could edit it. Our real server signs
 * its state (servidor-mcp/src/estado.ts); do not copy this part.
 */
const Estado = z.object({
  rodada: z.enum(['escolha', 'confirmacao']),
  visitante: z.string(),
  dia: Respostas.dia.shape.dia.optional(),
  acompanhante: Respostas.acompanhante.optional(),
});
type Estado = z.infer<typeof Estado>;

const selar = (estado: Estado): string => Buffer.from(JSON.stringify(estado), 'utf8').toString('base64url');

/** The SDK's requestState.verify hook: a throw becomes -32602 "Invalid or expired requestState". */
function abrir(estado: string): Estado {
  return Estado.parse(JSON.parse(Buffer.from(estado, 'base64url').toString('utf8')));
}

const Visita = z.object({
  visitante: z.string(),
  dia: z.enum(DIAS),
  acompanhante: Respostas.acompanhante,
  confirmado: z.boolean(),
});
type Visita = z.infer<typeof Visita>;

function falha(texto: string): CallToolResult {
  return { content: [{ type: 'text', text: texto }], isError: true };
}

function resumo({ visitante, dia, acompanhante, confirmado }: Visita): string {
  const cracha = acompanhante.cracha ? 'com cracha' : 'sem cracha';
  return confirmado
    ? `Visita de ${visitante} agendada para ${dia}, acompanhada por ${acompanhante.nome}, ${cracha}.`
    : `Visita de ${visitante} nao confirmada (${dia}, acompanhada por ${acompanhante.nome}, ${cracha}): nada foi agendado.`;
}

/** A declined or cancelled question ends the call; undefined when no answer refused. */
function recusada(ctx: ServerContext, chaves: readonly Chave[]): CallToolResult | undefined {
  for (const chave of chaves) {
    const resposta = inputResponse(ctx.mcpReq.inputResponses, chave);
    if (resposta.kind === 'elicit' && resposta.action !== 'accept') {
      const como = resposta.action === 'decline' ? 'recusada' : 'cancelada';
      return falha(`Visita nao agendada: a pergunta "${chave}" foi ${como}.`);
    }
  }
  return undefined;
}

function perguntar(chaves: readonly Chave[], estado: Estado) {
  return inputRequired({
    inputRequests: Object.fromEntries(chaves.map((chave) => [chave, PERGUNTAS[chave]()])),
    requestState: selar(estado),
  });
}

const aoFalhar = (erro: Error) => process.stderr.write(`perguntas: ${erro.message}\n`);

function criarServidor(): McpServer {
  const servidor = new McpServer(
    { name: 'perguntas-de-teste', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, requestState: { verify: abrir } },
  );
  // Why a requestState was refused reaches only this callback (the wire says "Invalid or expired requestState").
  servidor.server.onerror = aoFalhar;
  servidor.registerTool(
    FERRAMENTA,
    {
      title: 'Agendar visita',
      description:
        'Agenda a visita de alguem. Pergunta em duas rodadas: primeiro o dia e o acompanhante (duas perguntas de uma vez), ' +
        'depois a confirmacao. Recusar qualquer pergunta encerra sem agendar.',
      inputSchema: z.object({ visitante: z.string().min(1).describe('Nome de quem vem visitar') }),
      outputSchema: Visita,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ visitante }, ctx) => {
      const estado = ctx.mcpReq.requestState<Estado>();
      // First call: both questions of the first round at once. The arguments count only here.
      if (estado === undefined) return perguntar(['dia', 'acompanhante'], { rodada: 'escolha', visitante });
      const { inputResponses } = ctx.mcpReq;
      if (estado.rodada === 'escolha') {
        const refusal = recusada(ctx, ['dia', 'acompanhante']);
        if (refusal) return refusal;
        const dia = estado.dia ?? acceptedContent(inputResponses, 'dia', Respostas.dia)?.dia;
        const acompanhante = estado.acompanhante ?? acceptedContent(inputResponses, 'acompanhante', Respostas.acompanhante);
        const faltam = [...(dia ? [] : ['dia' as const]), ...(acompanhante ? [] : ['acompanhante' as const])];
        // An answer already valid is kept in the state; only what is still missing is asked again.
        if (!dia || !acompanhante) return perguntar(faltam, { ...estado, dia, acompanhante });
        return perguntar(['confirmar'], { rodada: 'confirmacao', visitante: estado.visitante, dia, acompanhante });
      }
      const refusal = recusada(ctx, ['confirmar']);
      if (refusal) return refusal;
      const confirmacao = acceptedContent(inputResponses, 'confirmar', Respostas.confirmar);
      if (!confirmacao || !estado.dia || !estado.acompanhante) return perguntar(['confirmar'], estado);
      const visita: Visita = {
        visitante: estado.visitante,
        dia: estado.dia,
        acompanhante: estado.acompanhante,
        confirmado: confirmacao.confirmado,
      };
      return { content: [{ type: 'text', text: resumo(visita) }], structuredContent: visita };
    },
  );
  servidor.registerTool(
    'nota_em_markdown',
    {
      title: 'Nota em Markdown',
      description: 'Devolve uma nota da semana como recurso text/markdown.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => ({ content: [{ type: 'resource', resource: { uri: 'nota://semana', mimeType: 'text/markdown', text: NOTA_EM_MARKDOWN } }] }),
  );
  return servidor;
}

servirMcp('perguntas', criarServidor, 0);
