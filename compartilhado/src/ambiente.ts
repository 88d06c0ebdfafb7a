/** Environment variables read once at start; a bad value names its variable and stops the process. */
export class ConfiguracaoInvalida extends Error {}

export function lerInteiro(env: NodeJS.ProcessEnv, nome: string, padrao: number, minimo: number, maximo: number): number {
  const bruto = env[nome];
  if (bruto === undefined || bruto === '') return padrao;
  const valor = Number(bruto);
  if (!Number.isInteger(valor) || valor < minimo || valor > maximo) {
    throw new ConfiguracaoInvalida(`${nome}=${bruto}: esperado um inteiro entre ${minimo} e ${maximo}`);
  }
  return valor;
}

export const lerPorta = (env: NodeJS.ProcessEnv, nome: string, padrao: number) => lerInteiro(env, nome, padrao, 0, 65535);

/** A connection URL fit for a log line: the password, wherever it was, becomes ***. */
export function urlSemSenha(url: string): string {
  try {
    const limpa = new URL(url);
    if (limpa.password) limpa.password = '***';
    if (limpa.searchParams.has('password')) limpa.searchParams.set('password', '***');
    return limpa.href;
  } catch {
    return '(URL invalida)';
  }
}

/** A postgres:// URL from the environment, or undefined when unset; a bad one is refused without echoing it (it may hold a password). */
export function lerUrlDoPostgres(env: NodeJS.ProcessEnv, nome: string): string | undefined {
  const bruto = env[nome];
  if (!bruto) return undefined;
  if (!URL.canParse(bruto) || !/^postgres(ql)?:$/.test(new URL(bruto).protocol))
    throw new ConfiguracaoInvalida(`${nome}: esperado uma URL postgres://usuario:senha@host:porta/banco`);
  return bruto;
}
