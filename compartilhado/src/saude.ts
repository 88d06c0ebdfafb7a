/**
 * Liveness and readiness, as load balancers and orchestrators ask them, on
 * both processes: `GET /healthz` answers 200 while the process runs;
 * `GET /readyz` answers 200 only when it can serve (its store answers a
 * query now; the agent's catalog of MCP servers is loaded), else 503 with
 * Retry-After. No token, and nothing in the body but a status and a
 * reason in general words (never an address, a query or an error's text).
 */

export const CAMINHOS_DE_SAUDE = { vivo: '/healthz', pronto: '/readyz' } as const;

/** A readiness check that takes longer is not ready: an orchestrator's probe must get an answer before its own timeout. */
export const PRAZO_DA_PRONTIDAO_MS = 2_000;

/** Seconds a prober waits before asking again. */
const ESPERA_S = 1;

/** Why the process cannot serve now, in general words; undefined when it can. */
export type Prontidao = () => Promise<string | undefined>;

export interface RespostaDeSaude {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly corpo: string;
}

const resposta = (status: number, corpo: object, extra: Record<string, string> = {}): RespostaDeSaude => ({
  status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra },
  corpo: JSON.stringify(corpo),
});

/** Asks `pronto` now, within the deadline: a check that fails or takes longer is a reason not to be ready. */
export async function motivoAgora(pronto: Prontidao): Promise<string | undefined> {
  let relogio: NodeJS.Timeout | undefined;
  const prazo = new Promise<string>((resolver) => {
    relogio = setTimeout(() => resolver(`sem resposta em ${String(PRAZO_DA_PRONTIDAO_MS / 1000)} s`), PRAZO_DA_PRONTIDAO_MS);
  });
  return Promise.race([pronto().catch(() => 'verificacao falhou'), prazo]).finally(() => clearTimeout(relogio));
}

/** The answer to a GET or HEAD of a health path; undefined for any other request. */
export async function responderSaude(metodo: string | undefined, caminho: string, pronto: Prontidao): Promise<RespostaDeSaude | undefined> {
  if (metodo !== 'GET' && metodo !== 'HEAD') return undefined;
  if (caminho === CAMINHOS_DE_SAUDE.vivo) return resposta(200, { status: 'vivo' });
  if (caminho !== CAMINHOS_DE_SAUDE.pronto) return undefined;
  const motivo = await motivoAgora(pronto);
  return motivo === undefined
    ? resposta(200, { status: 'pronto' })
    : resposta(503, { status: 'indisponivel', motivo }, { 'retry-after': String(ESPERA_S) });
}
