/**
 * JSON Schema checks with the MCP SDK's own validator (Ajv), for a tool's
 * arguments and for an answer's content: what the client sends is checked
 * against what the server declared before anything reaches the server.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

const validador = new AjvJsonSchemaValidator();

/** Compiled once per schema text: a tool's schema is read from the same object for every call. */
const compilados = new Map<string, (valor: unknown) => string | undefined>();
const MAXIMO_DE_COMPILADOS = 512;

/** Undefined when `valor` conforms, else the validator's message (every problem, one line). */
export function problemaNoEsquema(esquema: object, valor: unknown): string | undefined {
  const chave = JSON.stringify(esquema);
  let validar = compilados.get(chave);
  if (!validar) {
    let compilado: ReturnType<typeof validador.getValidator>;
    try {
      compilado = validador.getValidator(esquema);
    } catch (erro) {
      // The schema is the server's: one the validator cannot read refuses what it should check, with the reason.
      return `o esquema do servidor nao e um JSON Schema valido (${erro instanceof Error ? erro.message : String(erro)})`;
    }
    validar = (entrada) => {
      const lido = compilado(entrada);
      return lido.valid ? undefined : lido.errorMessage;
    };
    // Schemas come from servers: a server that changes them forever must not grow this forever.
    if (compilados.size >= MAXIMO_DE_COMPILADOS) compilados.clear();
    compilados.set(chave, validar);
  }
  return validar(valor);
}

/** A property's JSON Schema, as far as reading a text value needs it. */
export interface Propriedade {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly { readonly const?: unknown }[];
  readonly const?: unknown;
}

const ehObjeto = (valor: unknown): valor is Record<string, unknown> => typeof valor === 'object' && valor !== null && !Array.isArray(valor);

/** The properties an object schema declares (empty for anything else). */
export function propriedades(esquema: unknown): Readonly<Record<string, Propriedade>> {
  const lidas = ehObjeto(esquema) ? esquema.properties : undefined;
  return ehObjeto(lidas) ? (lidas as Record<string, Propriedade>) : {};
}

/** The values a property allows, when it lists them (enum, oneOf of consts, or a single const), as the schema writes them. */
function valoresDe(propriedade: Propriedade | undefined): readonly unknown[] | undefined {
  if (!propriedade) return undefined;
  const valores =
    propriedade.enum ?? propriedade.oneOf?.map((opcao) => opcao.const) ?? ('const' in propriedade ? [propriedade.const] : undefined);
  return valores && valores.length > 0 ? valores : undefined;
}

const comoTexto = (valor: unknown) => (typeof valor === 'string' ? valor : JSON.stringify(valor));

/** The values a property allows, as text (the line of alternatives shows them). */
export const opcoesDe = (propriedade: Propriedade | undefined): string[] | undefined => valoresDe(propriedade)?.map(comoTexto);

/**
 * A text value read by the property: one of its listed values when the
 * text is that value's text (1 for enum [1, 2]); else by its type: numbers,
 * integers and booleans as JSON reads them, objects and arrays as JSON,
 * anything else as the text itself. A value that does not read stays
 * text, for the schema check to name.
 */
export function valorPeloTipo(texto: string, propriedade: Propriedade | undefined): unknown {
  const listado = valoresDe(propriedade)?.find((valor) => comoTexto(valor) === texto);
  if (listado !== undefined) return listado;
  const tipos = propriedade?.type === undefined ? [] : typeof propriedade.type === 'string' ? [propriedade.type] : propriedade.type;
  if (tipos.length === 0 || tipos.includes('string')) return texto;
  try {
    return JSON.parse(texto) as unknown;
  } catch {
    return texto;
  }
}
