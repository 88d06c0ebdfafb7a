/**
 * JSON Schema checks with the MCP SDK's own validator (Ajv), for a tool's
 * arguments and for an answer's content: what the client sends is checked
 * against what the server declared before anything reaches the server.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

/**
 * Compiled once per schema text: a tool's schema is read from the same
 * object for every call. Schemas come from servers, and one that changes
 * them for ever must not grow this for ever: past the limit the Map starts
 * over, and so does the validator, as its Ajv engines keep every schema
 * they compiled (clearing the Map alone freed nothing: 20,000 distinct
 * schemas kept over 100 MiB; now under 3 MiB).
 */
export const MAXIMO_DE_COMPILADOS = 512;
const compilados = new Map<string, (valor: unknown) => string | undefined>();
let validador = new AjvJsonSchemaValidator();

/**
 * The schema without its top-level `$id`. The SDK's validator looks a
 * schema up by `$id` before compiling it, and Ajv registers that `$id` for
 * every schema compiled after, so two tools (of one server or two)
 * declaring the same `$id` would both be checked by the first one's schema,
 * and one tool's `$ref` could reach another's. Without it, each schema is
 * compiled as it is, alone. A nested `$id` is kept: Ajv resolves it only
 * within the schema that declares it (two schemas with the same nested
 * `$id` are checked apart, see generico.test.ts), and the `$ref`s inside
 * the schema may name it. A `$ref` that names the schema's own top-level
 * `$id` no longer resolves: the schema is then refused as unreadable.
 */
function semId(esquema: object): object {
  const copia: Record<string, unknown> = { ...esquema };
  delete copia.$id;
  return copia;
}

/** Undefined when `valor` conforms, else the validator's message (every problem, one line). */
export function problemaNoEsquema(esquema: object, valor: unknown): string | undefined {
  const chave = JSON.stringify(esquema);
  let validar = compilados.get(chave);
  if (!validar) {
    if (compilados.size >= MAXIMO_DE_COMPILADOS) {
      compilados.clear();
      validador = new AjvJsonSchemaValidator();
    }
    validar = compilar(esquema);
    compilados.set(chave, validar);
  }
  return validar(valor);
}

function compilar(esquema: object): (valor: unknown) => string | undefined {
  let compilado: ReturnType<typeof validador.getValidator>;
  try {
    compilado = validador.getValidator(semId(esquema));
  } catch (erro) {
    // The schema is the server's: one the validator cannot read refuses what it should check, with the
    // reason. Kept like any compiled schema, so it is tried once, not on every call.
    const motivo = `o esquema do servidor nao e um JSON Schema valido (${erro instanceof Error ? erro.message : String(erro)})`;
    return () => motivo;
  }
  return (entrada) => {
    const lido = compilado(entrada);
    return lido.valid ? undefined : lido.errorMessage;
  };
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
