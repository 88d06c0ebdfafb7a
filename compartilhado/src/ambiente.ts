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
