import { A2AError } from '@a2a-js/sdk/errors';

/**
 * A database that cannot answer (down, connection lost) is reported with
 * one clear message on the wire; the driver's own text, which names hosts
 * and ports, stays in the log as the cause.
 */
export class BancoIndisponivel extends Error {
  constructor(cause: unknown) {
    super('Banco de Tasks indisponivel: tente de novo em instantes', { cause });
    this.name = 'BancoIndisponivel';
  }
}

/**
 * The same promise, with any failure reported as BancoIndisponivel, but an
 * A2AError: that is the store refusing the request (a pageToken it did not
 * write), which the caller must hear as it is, not as a database to retry.
 */
export function noBanco<T>(operacao: Promise<T>): Promise<T> {
  return operacao.catch((erro: unknown) => {
    throw erro instanceof BancoIndisponivel || erro instanceof A2AError ? erro : new BancoIndisponivel(erro);
  });
}
