/**
 * What differs between the servers the bridge fronts: how a request reads
 * into a call, what is checked before it, how a result reads as the
 * Task's outcome, and how a pause is shown and answered. The room profile
 * (salas/) keeps the course's grammar, skills and artifacts; the generic
 * one (generico.ts) serves any server's tools. The steps are the same
 * (ponte.ts).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ConexaoMcp } from '../mcp/conexao.js';
import type { Chamada, Desfecho, Entrada, Ilegivel, Pausa, Respostas } from './tipos.js';

export type Efeito = 'nenhum' | 'repetivel' | 'unico';

export interface Perfil {
  /** A new Task's request as a call; `rejeitar`: refused as a request the agent will not take (REJECTED), not one it failed at. */
  ler(entrada: Entrada, taskId: string): Chamada | (Ilegivel & { readonly rejeitar?: true });
  /** The call's server; undefined for one no longer configured. */
  conexao(chamada: Pick<Chamada, 'servidor'>): ConexaoMcp | undefined;
  /** A question this profile will not relay, with what to tell the client; absent or undefined relays it. */
  perguntaRecusada?(chamada: Chamada, perguntas: Pausa['perguntas']): string | undefined;
  /**
   * Before each call: what `concluir` will need (its preparo: the room
   * policy's version), or a RecusaAntesDaChamada.
   */
  preparar(chamada: Chamada, traceparent: string): Promise<unknown>;
  /** Steps 4 and 6: a final result the tool did not mark isError, as the Task's outcome. */
  concluir(chamada: Chamada, resultado: CallToolResult, preparo: unknown): Desfecho;
  /** What a result the tool marked isError, with no text of its own, tells the client. */
  falhaSemTexto(chamada: Chamada): string;
  /** A paused Task's text line(s) and data part; `erro`: why the last answer was not taken. */
  apresentar(perguntas: Pausa['perguntas'], erro?: string): { mensagem: string; dados: Record<string, unknown> };
  /** Step 5: the client's answer as inputResponses, or why it cannot be sent. */
  lerRespostas(pausa: Pausa, entrada: Entrada): { respostas: Respostas } | Ilegivel;
  /**
   * What a call may do: `nenhum` (it only reads: a failure is just a
   * failure), `repetivel` (it may change something, and running it again
   * has the effect once: replayed while its outcome is unknown), `unico`
   * (it may change something and says nothing of a second run: an unknown
   * outcome is told, never replayed).
   */
  efeito(chamada: Chamada): Efeito;
  /** Whether a client's cancel may cut the call short while it runs (the server is told). */
  cancelavel(chamada: Chamada): boolean;
  /** Whether the call's progress is asked for (a progressToken) and streamed to the client. */
  readonly progresso: boolean;
  /** What to tell the client when the server refused the agent's credentials. */
  credenciaisRecusadas(conexao: ConexaoMcp): string;
  /**
   * Said to the client: what a call whose outcome was never heard may have
   * done, why replaying it is safe, and what a call that never ran did not do.
   */
  readonly palavras: { readonly efeito: string; readonly repeticao: string; readonly nadaFeito: string };
}

/** An expected failure whose message is meant for the client as it is. */
export class Recusa extends Error {}

/**
 * A refusal found before the call was sent (the tool not listed, the
 * policy without its version): on a replay it says nothing of the earlier
 * attempt, which may have had its effect before the server changed.
 */
export class RecusaAntesDaChamada extends Recusa {}
