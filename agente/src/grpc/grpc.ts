/**
 * The third A2A v1.0 binding, with AGENTE_GRPC_PORTA: the SDK's own gRPC
 * service (A2AService and grpcService of @a2a-js/sdk/server/grpc) over the
 * same request handler as JSON-RPC and HTTP+JSON, so Tasks, owners,
 * pauses, limits on Tasks and push behave alike, and with the same context
 * builder (no `a2a-version` metadata is 1.0, as on HTTP). Around it, one
 * grpc-js server interceptor does what the HTTP front does for the other two:
 *  - identity and the per-identity limit, by acesso.ts's Portaria, from the
 *    `authorization` metadata: UNAUTHENTICATED, RESOURCE_EXHAUSTED;
 *  - the request checked as http.ts checks a body (NUL, historyLength...),
 *    and a message that is not the method's protobuf refused as the
 *    client's mistake, INVALID_ARGUMENT (grpc-js would say INTERNAL);
 *  - one log line per call, written by http.ts's linhaDoPedido from what
 *    the request handler recorded (desfecho.ts) and the call's status, and
 *    error messages cut by mensagemContida.
 * No Origin rule: a browser cannot call this listener (gRPC over HTTP/2
 * without TLS, which no browser speaks), so no page can be rebound to it.
 */
import { isIPv6 } from 'node:net';
import type { A2ARequestHandler, ServerCallContextBuilder } from '@a2a-js/sdk/server';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { buildGrpcErrorMetadata } from '@a2a-js/sdk/errors/grpc';
import { HealthImplementation } from 'grpc-health-check';
import { motivoAgora, type Prontidao } from 'compartilhado/saude';
import {
  ResponderBuilder,
  Server,
  ServerCredentials,
  ServerInterceptingCall,
  ServerListenerBuilder,
  Metadata,
  status as Status,
  type ServerInterceptor,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { mensagemContida } from 'compartilhado/entrada';
import { objeto } from 'compartilhado/log';
import type { Portaria } from '../http/acesso.js';
import { linhaDoPedido, noRegistro, problemaNoPedido, type Registro } from '../http/http.js';
import { noFluxo } from '../http/sse.js';
import { abrirVaoA2A } from '../http/vaos.js';

export interface ServidorGrpc {
  /** The port bound: AGENTE_GRPC_PORTA, or the free one 0 took. */
  readonly porta: number;
  /** Where it listens, as a gRPC target (host:port). */
  readonly endereco: string;
  /**
   * Serves A2A with this handler from now on (before it, a call is UNIMPLEMENTED): called before the agent says it is up.
   * From then on each health Check asks `pronto`, as /readyz does.
   */
  servir(requestHandler: A2ARequestHandler, contextBuilder: ServerCallContextBuilder, pronto: Prontidao): void;
  /** Takes no new call and waits for the running ones. */
  fechar(): Promise<void>;
}

interface Opcoes {
  readonly portaria: Portaria;
  readonly log: (linha: string) => void;
  /** The largest request message, the HTTP bindings' body limit (grpc-js answers RESOURCE_EXHAUSTED past it). */
  readonly limiteBytes: number;
}

/** What a request that is not its method's protobuf decodes to, for the interceptor to refuse. */
const ILEGIVEL = Symbol('ilegivel');

/** The SDK's service definition, each request decoder answering ILEGIVEL where it would throw (grpc-js answers a throw with INTERNAL). */
const SERVICO: ServiceDefinition = Object.fromEntries(
  Object.entries(A2AService).map(([nome, metodo]) => [
    nome,
    {
      ...metodo,
      requestDeserialize: (bytes: Buffer): unknown => {
        try {
          return metodo.requestDeserialize(bytes);
        } catch {
          return ILEGIVEL;
        }
      },
    },
  ]),
);

/** A metadata key's text values (only `-bin` keys carry bytes). */
const valores = (metadados: Metadata | undefined, chave: string): string[] =>
  (metadados?.get(chave) ?? []).map((valor) => valor.toString());

/** The standard gRPC health service (grpc.health.v1), as orchestrators' gRPC probes ask it: no token, as /healthz and /readyz. */
const SAUDE = '/grpc.health.v1.Health/';
/** The A2A service's name, as a health check names it. */
const SERVICO_A2A = 'lf.a2a.v1.A2AService';

/** A health Check goes on once `conferir` has set the status from what the process can do now. */
function conferindoAntes(chamada: Parameters<ServerInterceptor>[1], conferir: () => Promise<void>): ServerInterceptingCall {
  const ouvinte = new ServerListenerBuilder()
    .withOnReceiveMessage((mensagem: unknown, seguir) => {
      void conferir().then(() => {
        seguir(mensagem);
      });
    })
    .build();
  return new ServerInterceptingCall(chamada, new ResponderBuilder().withStart((seguir) => seguir(ouvinte)).build());
}

function interceptar({ portaria, log }: Opcoes, conferirSaude: () => Promise<void>): ServerInterceptor {
  return (metodo, chamada) => {
    if (metodo.path === `${SAUDE}Check`) return conferindoAntes(chamada, conferirSaude);
    if (metodo.path.startsWith(SAUDE)) return new ServerInterceptingCall(chamada);
    const comeco = performance.now();
    const registro: Registro = {};
    // A client's cancel ends what its call follows (a subscribed Task), as a closed HTTP response does.
    const cancelada = new AbortController();
    const nome = metodo.path.slice(metodo.path.lastIndexOf('/') + 1);
    // With telemetry on, the call's work runs under its span, as an HTTP request's does.
    const naChamada = (seguir: () => void) =>
      noFluxo(cancelada.signal, () => noRegistro(registro, () => (registro.vao ? registro.vao.dentro(seguir) : seguir())));
    let metadados: Metadata | undefined;
    let pedido: unknown;
    let escrita = false;
    const escrever = (codigo: Status, inteiro: boolean) => {
      if (escrita) return;
      escrita = true;
      log(
        linhaDoPedido({
          alvo: `POST ${metodo.path}`,
          metodo: nome,
          id: '-',
          pedido,
          // A client gone mid-stream is told by its last event, as on HTTP.
          erro: codigo === Status.OK || !inteiro ? undefined : Status[codigo],
          traceparent: valores(metadados, 'traceparent')[0],
          registro,
          desfecho: { grpc: Status[codigo] },
          inteiro,
          comeco,
        }),
      );
    };
    const recusar = (codigo: Status, mensagem: string, metadata: Metadata | null = null) => {
      interceptada.sendStatus({ code: codigo, details: mensagem, metadata });
    };
    // Refused before the SDK as the SDK refuses invalid params: with its error details, so an SDK client reads a RequestMalformedError.
    const invalido = (problema: string) => {
      const erro = new RequestMalformedError(`Invalid params: ${problema}`);
      recusar(Status.INVALID_ARGUMENT, erro.message, buildGrpcErrorMetadata(Metadata, erro) ?? null);
    };
    const ouvinte = new ServerListenerBuilder()
      .withOnReceiveMetadata((recebidos, seguir) => {
        metadados = recebidos;
        registro.vao = abrirVaoA2A(nome, valores(recebidos, 'traceparent')[0], valores(recebidos, 'a2a-version')[0]);
        const admissao = portaria.admitir(valores(recebidos, 'authorization'));
        if (admissao.recusa === 'identidade') registro.recusa = admissao.falta;
        else if (admissao.quem !== undefined) registro.quem = admissao.quem;
        if (admissao.recusa === undefined) seguir(recebidos);
        else recusar(admissao.recusa === 'identidade' ? Status.UNAUTHENTICATED : Status.RESOURCE_EXHAUSTED, admissao.mensagem);
      })
      .withOnReceiveMessage((mensagem: unknown, seguir) => {
        if (mensagem === ILEGIVEL) {
          invalido(`a mensagem nao e o protobuf de ${metodo.path}`);
          return;
        }
        pedido = mensagem;
        const problema = problemaNoPedido(mensagem, objeto(mensagem) ?? {});
        if (problema === undefined) naChamada(() => seguir(mensagem));
        else invalido(problema);
      })
      .withOnReceiveHalfClose((seguir) => naChamada(seguir))
      .withOnCancel(() => {
        cancelada.abort();
        escrever(Status.CANCELLED, false);
      })
      .build();
    const interceptada = new ServerInterceptingCall(
      chamada,
      new ResponderBuilder()
        .withStart((seguir) => seguir(ouvinte))
        .withSendStatus((status, seguir) => {
          escrever(status.code, true);
          seguir({ ...status, details: mensagemContida(status.details) });
        })
        .build(),
    );
    return interceptada;
  };
}

/** The gRPC listener on the agent's host, bound now so the card can name its port; A2A is served once `servir` is called. */
export async function escutarGrpc(host: string, porta: number, opcoes: Opcoes): Promise<ServidorGrpc> {
  // Not serving until the agent has started (servir), nor once it drains (fechar); '' is the whole server. In between,
  // each Check asks the store, as /readyz does, and a Watch hears what the Checks found.
  let pronto: Prontidao | undefined;
  const saude = new HealthImplementation({ '': 'NOT_SERVING', [SERVICO_A2A]: 'NOT_SERVING' });
  const servindo = (status: 'SERVING' | 'NOT_SERVING') => {
    for (const nome of ['', SERVICO_A2A]) saude.setStatus(nome, status);
  };
  const conferir = async () => {
    const perguntado = pronto;
    if (!perguntado) return;
    const motivo = await motivoAgora(perguntado);
    // A drain that began meanwhile keeps its NOT_SERVING.
    if (pronto === perguntado) servindo(motivo === undefined ? 'SERVING' : 'NOT_SERVING');
  };
  const servidor = new Server({
    interceptors: [interceptar(opcoes, conferir)],
    'grpc.max_receive_message_length': opcoes.limiteBytes,
  });
  saude.addToServer(servidor);
  const emUrl = isIPv6(host) ? `[${host}]` : host;
  const ligada = await new Promise<number>((resolver, rejeitar) => {
    servidor.bindAsync(`${emUrl}:${String(porta)}`, ServerCredentials.createInsecure(), (erro, escolhida) => {
      if (erro) rejeitar(new Error(`AGENTE_GRPC_PORTA: o gRPC nao pode ouvir em ${emUrl}:${String(porta)} (${erro.message})`));
      else resolver(escolhida);
    });
  });
  return {
    porta: ligada,
    endereco: `${emUrl}:${String(ligada)}`,
    servir(requestHandler, contextBuilder, prontidao) {
      const userBuilder = (chamada: { readonly metadata: Metadata }) =>
        opcoes.portaria.usuarioDe(valores(chamada.metadata, 'authorization'));
      servidor.addService(SERVICO, grpcService({ requestHandler, userBuilder, contextBuilder }));
      pronto = prontidao;
      servindo('SERVING');
    },
    fechar: () =>
      new Promise((resolver) => {
        pronto = undefined;
        servindo('NOT_SERVING');
        servidor.tryShutdown(() => resolver());
      }),
  };
}
