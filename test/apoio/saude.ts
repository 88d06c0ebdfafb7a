/**
 * A process's /healthz and /readyz as a test reads them (compartilhado/saude), a wait for a state it reaches by
 * itself, and the agent's standard gRPC health service asked as a gRPC probe asks it.
 */
import { credentials, loadPackageDefinition, type ChannelCredentials, type ServiceError } from '@grpc/grpc-js';
import { loadSync as carregarProto } from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';

export interface Saude {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly corpo: { status: string; motivo?: string };
}

export async function saude(base: string, caminho: '/healthz' | '/readyz'): Promise<Saude> {
  const resposta = await fetch(new URL(caminho, base), { signal: AbortSignal.timeout(5_000) });
  return { status: resposta.status, retryAfter: resposta.headers.get('retry-after'), corpo: (await resposta.json()) as Saude['corpo'] };
}

/** Asks until `aceitar` takes the answer (a refused connection is asked again), within `ms`. */
export async function ate(base: string, caminho: '/healthz' | '/readyz', aceitar: (lida: Saude) => boolean, ms = 20_000): Promise<Saude> {
  const limite = Date.now() + ms;
  for (;;) {
    const lida = await saude(base, caminho).catch(() => undefined);
    if (lida && aceitar(lida)) return lida;
    if (Date.now() > limite) throw new Error(`${caminho} nao chegou ao esperado: ${JSON.stringify(lida)}`);
    await new Promise((resolver) => setImmediate(resolver));
  }
}

/** The client grpc-js builds from grpc-health-check's own health.proto. */
interface SaudeGrpc {
  grpc: {
    health: {
      v1: {
        Health: new (
          alvo: string,
          credenciais: ChannelCredentials,
        ) => {
          Check(pedido: { service: string }, feito: (erro: ServiceError | null, resposta: { status: string }) => void): void;
          close(): void;
        };
      };
    };
  };
}

/** grpc.health.v1 Check at `endereco` (host:port), without a token: the status of each service named ('' is the server). */
export async function saudeGrpc(endereco: string, servicos: readonly string[]): Promise<string[]> {
  const { Health } = (loadPackageDefinition(carregarProto(protoPath, { keepCase: true, enums: String })) as unknown as SaudeGrpc).grpc
    .health.v1;
  const cliente = new Health(endereco, credentials.createInsecure());
  try {
    const lidos: string[] = [];
    for (const service of servicos) {
      const resposta = await new Promise<{ status: string }>((resolver, rejeitar) => {
        cliente.Check({ service }, (erro, lida) => (erro ? rejeitar(erro) : resolver(lida)));
      });
      lidos.push(resposta.status);
    }
    return lidos;
  } finally {
    cliente.close();
  }
}

/** The gRPC address the agent's start line names. */
export const enderecoGrpc = (linhas: readonly string[]): string =>
  /gRPC em (\S+?),/.exec(linhas.find((linha) => linha.includes('ouvindo em')) ?? '')?.[1] ?? '';
