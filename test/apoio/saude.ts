/** A process's /healthz and /readyz as a test reads them (compartilhado/saude), and a wait for a state it reaches by itself. */

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
