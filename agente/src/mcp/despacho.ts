/**
 * Requests the SDK Client cannot make: on a 2026-07-28 server with MCP
 * tasks (`io.modelcontextprotocol/tasks`), a tools/call may answer
 * `resultType: "task"`, which Client 2.4 refuses (UNSUPPORTED_RESULT_TYPE)
 * before anyone sees it, and ext-tasks sends its tasks/* requests the same
 * raw way (its `rawDispatch` option). Each goes out on the Client's own
 * transport with an id of its own (a string: the Client numbers its
 * requests, so the two never meet), and its response is taken off the
 * transport before the Client would read it; everything else still
 * reaches the Client. The `_meta` envelope the Client writes on its own
 * requests is written here (`enquadrar`), with the tasks extension declared.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { DispatchError, type DispatchOptions, type JsonRpcResponse } from '@modelcontextprotocol/ext-tasks/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import type { OpcoesDaChamada } from './conexao.js';

export const EXTENSAO_DE_TASKS = 'io.modelcontextprotocol/tasks';

/** What the Client declares of itself, as a raw request's envelope must repeat it. */
export interface Enquadramento {
  readonly protocolVersion: string;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: ClientCapabilities;
}

/** A raw request's `_meta`: the Client's envelope, the tasks extension among its capabilities, and the caller's entries. */
export function enquadrar(
  { protocolVersion, clientInfo, clientCapabilities }: Enquadramento,
  meta: Readonly<Record<string, unknown>> = {},
) {
  return {
    ...meta,
    [PROTOCOL_VERSION_META_KEY]: protocolVersion,
    [CLIENT_INFO_META_KEY]: clientInfo,
    [CLIENT_CAPABILITIES_META_KEY]: { ...clientCapabilities, extensions: { ...clientCapabilities.extensions, [EXTENSAO_DE_TASKS]: {} } },
  };
}

/** Why a signal aborted, as the Error its caller throws (a timeout's, a cancel's). */
const motivo = (sinal: AbortSignal): Error => (sinal.reason instanceof Error ? sinal.reason : new Error(String(sinal.reason)));

/** notifications/progress of a raw request, as a call's progress is told (OpcoesDaChamada). */
type Progresso = NonNullable<OpcoesDaChamada['aoProgredir']>;

interface Pendente {
  readonly resolver: (resposta: JsonRpcResponse) => void;
  readonly rejeitar: (erro: Error) => void;
  readonly aoProgredir?: Progresso;
}

/** A notifications/progress message's params, if that is what the message is. */
function progressoDe(
  mensagem: JSONRPCMessage,
): { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined {
  if (!('method' in mensagem) || 'id' in mensagem || mensagem.method !== 'notifications/progress') return undefined;
  const params: Readonly<Record<string, unknown>> | undefined = mensagem.params;
  return params;
}

/** The raw request path of one connected Client's transport. */
export class Despacho {
  private seq = 0;
  private readonly pendentes = new Map<string, Pendente>();

  /** Call after the Client connected: connect() sets the transport's onmessage, which this wraps. */
  constructor(
    private readonly transporte: Transport,
    /** AGENTE_MCP_TIMEOUT_SECONDS: a request's wait when its caller gives none. */
    private readonly prazoMs: number,
    /** Told of each response taken here, as the request log hears the Client's (registro.ts). */
    aoResponder: (mensagem: JSONRPCMessage) => void = () => undefined,
  ) {
    const doCliente = transporte.onmessage;
    transporte.onmessage = (mensagem, extra) => {
      const id = 'id' in mensagem && !('method' in mensagem) ? mensagem.id : undefined;
      const pendente = typeof id === 'string' ? this.pendentes.get(id) : undefined;
      if (typeof id === 'string' && pendente) {
        this.pendentes.delete(id);
        aoResponder(mensagem);
        pendente.resolver(
          'error' in mensagem
            ? { kind: 'error', error: mensagem.error as { code: number; message: string; data?: JsonValue } }
            : { kind: 'result', result: (mensagem as { result: JsonValue }).result },
        );
        return;
      }
      const progresso = progressoDe(mensagem);
      const deQuem = typeof progresso?.progressToken === 'string' ? this.pendentes.get(progresso.progressToken) : undefined;
      if (progresso && deQuem?.aoProgredir && typeof progresso.progress === 'number') {
        aoResponder(mensagem);
        deQuem.aoProgredir({
          progress: progresso.progress,
          ...(typeof progresso.total === 'number' ? { total: progresso.total } : {}),
          ...(typeof progresso.message === 'string' ? { message: progresso.message } : {}),
        });
        return;
      }
      doCliente?.call(transporte, mensagem, extra);
    };
    // A closed connection answers nothing more: what still waits fails now, not at its deadline.
    const fechou = transporte.onclose;
    transporte.onclose = () => {
      for (const { rejeitar } of this.pendentes.values()) rejeitar(new DispatchError('a conexao com o servidor MCP fechou', false));
      fechou?.call(transporte);
    };
  }

  /**
   * One request (`{method, params}`), its JSON-RPC error answered as such; a
   * transport failure throws DispatchError. With `aoProgredir`, the request
   * asks for progress (its own id as the progressToken) and hears it.
   */
  readonly enviar = (pedido: JsonValue, opcoes: DispatchOptions = {}, aoProgredir?: Progresso): Promise<JsonRpcResponse> => {
    const id = `ponte-${String(++this.seq)}`;
    const { signal, context } = opcoes;
    return new Promise<JsonRpcResponse>((resolver, rejeitar) => {
      if (signal?.aborted) {
        rejeitar(motivo(signal));
        return;
      }
      const limpar = () => {
        clearTimeout(relogio);
        signal?.removeEventListener('abort', abortar);
        this.pendentes.delete(id);
      };
      const abortar = () => {
        limpar();
        void this.transporte.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }).catch(() => undefined);
        if (signal) rejeitar(motivo(signal));
      };
      const relogio = setTimeout(() => {
        limpar();
        rejeitar(new DispatchError(`sem resposta em ${String(context?.requestTimeoutMs ?? this.prazoMs)} ms`, true));
      }, context?.requestTimeoutMs ?? this.prazoMs);
      signal?.addEventListener('abort', abortar, { once: true });
      this.pendentes.set(id, {
        resolver: (resposta) => {
          limpar();
          resolver(resposta);
        },
        rejeitar: (erro) => {
          limpar();
          rejeitar(erro);
        },
        ...(aoProgredir ? { aoProgredir } : {}),
      });
      const { params } = pedido as { readonly params?: { readonly _meta?: object } };
      const comProgresso = aoProgredir ? { params: { ...params, _meta: { ...params?._meta, progressToken: id } } } : {};
      const mensagem = { jsonrpc: '2.0', id, ...(pedido as object), ...comProgresso } as JSONRPCMessage;
      this.transporte
        .send(mensagem, { ...(context?.headers ? { headers: { ...context.headers } } : {}), ...(signal ? { requestSignal: signal } : {}) })
        .catch((erro: unknown) => {
          limpar();
          rejeitar(
            new DispatchError(`o pedido nao foi enviado: ${erro instanceof Error ? erro.message : String(erro)}`, false, { cause: erro }),
          );
        });
    });
  };
}
