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
/** A name fit for a log line as it is, and too short to be mistaken for a token. */
const NOME = /^[A-Za-z0-9._-]{1,31}$/;

/** The owner the A2A SDK gives every unauthenticated caller (resolveUserScope). */
export const DONO_SEM_IDENTIDADE = 'unknown';

/** The token of an `Authorization: Bearer <token>` value (scheme in any case), or undefined for anything else, trailing words included. */
export function tokenDoBearer(cabecalho: string): string | undefined {
  const [esquema, token, ...resto] = cabecalho.split(' ');
  return esquema?.toLowerCase() === 'bearer' && token !== undefined && resto.length === 0 && TOKEN.test(token) ? token : undefined;
}

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
    // Errors name an entry by its position only: a list written backwards (token:nome) would otherwise print a token.
    const posicaoDoNome = new Map<string, number>();
    const posicaoDoResumo = new Map<string, number>();
    const lidas = bruto.split(',').map((entrada, indice) => {
      const separador = entrada.indexOf(':');
      const nome = entrada.slice(0, Math.max(separador, 0)).trim();
      const token = entrada.slice(separador + 1).trim();
      const posicao = indice + 1;
      const esta = `a entrada ${String(posicao)}`;
      if (separador < 0 || !nome) throw recusar(`${esta} nao tem nome`);
      if (!NOME.test(nome))
        throw recusar(`${esta} tem um nome com mais de 31 caracteres ou fora de letras, digitos, ponto, hifen e sublinhado`);
      // The SDK files every unauthenticated caller's Tasks under "unknown": an identity of that name would own them.
      if (nome === DONO_SEM_IDENTIDADE) throw recusar(`${esta} usa o nome reservado "${DONO_SEM_IDENTIDADE}"`);
      const repetido = posicaoDoNome.get(nome);
      if (repetido !== undefined) throw recusar(`as entradas ${String(repetido)} e ${String(posicao)} tem o mesmo nome`);
      if (token.length < TAMANHO_MINIMO_DO_TOKEN)
        throw recusar(`o token da ${esta} tem menos de ${String(TAMANHO_MINIMO_DO_TOKEN)} caracteres`);
      if (!TOKEN.test(token)) throw recusar(`o token da ${esta} tem caracteres que um cabecalho Bearer nao leva`);
      const chave = resumo(token).toString('hex');
      const mesmoToken = posicaoDoResumo.get(chave);
      if (mesmoToken !== undefined) throw recusar(`as entradas ${String(mesmoToken)} e ${String(posicao)} tem o mesmo token`);
      posicaoDoNome.set(nome, posicao);
      posicaoDoResumo.set(chave, posicao);
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
