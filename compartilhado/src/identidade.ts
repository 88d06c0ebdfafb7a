/**
 * Static bearer tokens from the environment, `nome:token,nome:token`: who
 * is calling, by name. Both processes read them the same way. A token is
 * never written anywhere: a bad list is refused naming the entry by its
 * position and the caller by name, and tokens are compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfiguracaoInvalida } from './ambiente.js';

export const TAMANHO_MINIMO_DO_TOKEN = 32;

/** RFC 6750's b64token: what a Bearer credential may hold. */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** A name fit for a log line as it is. */
const NOME = /^[A-Za-z0-9._-]{1,64}$/;

/** A token MCP_TOKENS or AGENTE_TOKENS would take: long enough, and only what a Bearer header carries. */
export const ehTokenAceitavel = (token: string): boolean => token.length >= TAMANHO_MINIMO_DO_TOKEN && TOKEN.test(token);

const resumo = (token: string) => createHash('sha256').update(token).digest();

export class Identidades {
  private constructor(private readonly resumos: readonly { readonly nome: string; readonly resumo: Buffer }[]) {}

  /** The identities in `variavel`, or undefined when it is unset or empty (no authentication). */
  static ler(env: NodeJS.ProcessEnv, variavel: string): Identidades | undefined {
    const bruto = env[variavel]?.trim();
    if (!bruto) return undefined;
    const recusar = (motivo: string) => new ConfiguracaoInvalida(`${variavel}: ${motivo}; esperado nome:token,nome:token`);
    const nomes = new Set<string>();
    const porResumo = new Map<string, string>();
    const lidas = bruto.split(',').map((entrada, indice) => {
      const separador = entrada.indexOf(':');
      const nome = entrada.slice(0, Math.max(separador, 0)).trim();
      const token = entrada.slice(separador + 1).trim();
      const posicao = `a entrada ${String(indice + 1)}`;
      if (separador < 0 || !nome) throw recusar(`${posicao} nao tem nome`);
      if (!NOME.test(nome)) throw recusar(`${posicao} tem um nome com caracteres fora de letras, digitos, ponto, hifen e sublinhado`);
      if (nomes.has(nome)) throw recusar(`o nome "${nome}" aparece mais de uma vez`);
      if (token.length < TAMANHO_MINIMO_DO_TOKEN)
        throw recusar(`o token de "${nome}" tem menos de ${String(TAMANHO_MINIMO_DO_TOKEN)} caracteres`);
      if (!TOKEN.test(token)) throw recusar(`o token de "${nome}" tem caracteres que um cabecalho Bearer nao leva`);
      const chave = resumo(token).toString('hex');
      const outro = porResumo.get(chave);
      if (outro !== undefined) throw recusar(`"${outro}" e "${nome}" tem o mesmo token`);
      nomes.add(nome);
      porResumo.set(chave, nome);
      return { nome, resumo: resumo(token) };
    });
    return new Identidades(lidas);
  }

  get nomes(): readonly string[] {
    return this.resumos.map(({ nome }) => nome);
  }

  /** Whose token this is, or undefined. Every token is compared, whichever matches, so the time says nothing. */
  quem(token: string): string | undefined {
    const apresentado = resumo(token);
    let achado: string | undefined;
    for (const { nome, resumo: guardado } of this.resumos) if (timingSafeEqual(apresentado, guardado)) achado ??= nome;
    return achado;
  }
}
