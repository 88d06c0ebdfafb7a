/**
 * What the docs name, checked against the tree, so a rename that forgets
 * the prose fails a test instead of misleading a reader. What counts, in a
 * markdown file outside fenced code blocks:
 *
 *  - a relative link, `[texto](caminho#ancora)` or an image: the file or
 *    folder exists; an anchor into a markdown file (or `#ancora` alone, into
 *    the same file) is one of its headings' ids as GitHub makes them
 *    (lower case; punctuation but `-` and `_` dropped; each space a `-`;
 *    a repeated heading's id ends in `-1`, `-2`...). URLs with a scheme
 *    (https:, mailto:) are not followed.
 *  - inline code that is a repository path, `agente/src/ciclo/ciclo.ts` or
 *    `servidor-mcp/test/` (its first segment is an entry at the root, so
 *    `@a2a-js/sdk/server` is not one): it exists, `node_modules/...`
 *    included (the SDK evidence names installed files). A trailing `:123`
 *    is a line, not checked. Build and test outputs (GERADOS) are not
 *    checked: they exist only after `npm run build` or a test run.
 *  - inline code that is a bare TypeScript file name, `ciclo.ts`: some file
 *    of that name exists outside node_modules.
 *  - `Classe.membro` (`Ponte.escolher`, also `Classe.membro(...)`): when
 *    Classe is declared in our sources (FONTES) as a class, interface,
 *    type, namespace, enum, function or constant, membro appears in a
 *    file that declares it; otherwise Classe must be a name our sources
 *    import (`AgentCard`, from the SDK: its member is the package's word)
 *    or a global of the platform (GLOBAIS), or our code writes
 *    `Classe.membro` as it is (an inspector method in a string).
 *  - `objeto.membro` and `objeto.membro(...)` whose Objeto (capitalized) is
 *    declared in our sources (`ciclo.receber` is Ciclo's, `pausas.abrir`
 *    would be Pausas'): the same as `Classe.membro`. Any other lower-case
 *    receiver (`res.json`, `a2a.method.name`) is not ours to check.
 *  - `funcao()` and `x.funcao(...)` otherwise: funcao is declared or
 *    imported in our sources, or called there (a method of an SDK object,
 *    an SQL function in a query).
 *
 * Names outside inline code, and bare words in it (`Ponte`, `WORKING`), are
 * not checked: too many are protocol words rather than code.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where our code lives: what `Classe.membro` and `funcao()` are looked up in. */
const FONTES = ['agente/src', 'servidor-mcp/src', 'compartilhado/src', 'scripts', 'console/src'];

/** Outputs of `npm run build` and of test runs, outside git: named by the docs, absent from a clean clone. */
const GERADOS = [
  'agente/dist',
  'servidor-mcp/dist',
  'console/dist',
  'compartilhado/dist',
  'conformidade/node_modules',
  'test/capturas',
  'bench/resultados',
];

/** The platform's own names a doc may write as `Nome.membro` without our code importing them. */
const GLOBAIS = new Set(['Array', 'Buffer', 'Date', 'JSON', 'Math', 'Number', 'Object', 'Promise', 'Response', 'String', 'URL']);

/** Folders never walked: dependencies, git, and the GERADOS. */
const FORA = new Set(['node_modules', '.git', 'dist', 'capturas', 'resultados']);

export interface Problema {
  /** `arquivo:linha` */
  readonly onde: string;
  /** The name as the doc writes it. */
  readonly nome: string;
  readonly motivo: string;
}

interface Fonte {
  readonly arquivo: string;
  /** The text without comments: a name only a comment mentions is not in the code. */
  readonly codigo: string;
}

/** What the checks look names up in, read once. */
export interface Arvore {
  readonly raiz: string;
  /** Entries at the root: what makes a token a repository path. */
  readonly naRaiz: ReadonlySet<string>;
  /** Every file's base name outside node_modules, for `ciclo.ts`. */
  readonly nomesDeArquivo: ReadonlySet<string>;
  readonly fontes: readonly Fonte[];
  /** A declared name and the files that declare it. */
  readonly declarados: ReadonlyMap<string, readonly Fonte[]>;
  /** Names our sources import from packages or other files. */
  readonly importados: ReadonlySet<string>;
}

/** Block comments, and line comments not inside a URL (`http://`). */
const semComentarios = (texto: string) => texto.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

function* caminhar(raiz: string, pasta: string): Generator<string> {
  for (const entrada of readdirSync(path.join(raiz, pasta), { withFileTypes: true })) {
    if (FORA.has(entrada.name)) continue;
    const relativo = pasta ? `${pasta}/${entrada.name}` : entrada.name;
    if (entrada.isDirectory()) yield* caminhar(raiz, relativo);
    else yield relativo;
  }
}

export function lerArvore(raiz: string): Arvore {
  const arquivos = [...caminhar(raiz, '')];
  const fontes = arquivos
    .filter((arquivo) => /\.(ts|tsx|js)$/.test(arquivo) && FONTES.some((pasta) => arquivo.startsWith(`${pasta}/`)))
    .map((arquivo) => ({ arquivo, codigo: semComentarios(readFileSync(path.join(raiz, arquivo), 'utf8')) }));
  const declarados = new Map<string, Fonte[]>();
  const importados = new Set<string>();
  for (const fonte of fontes) {
    // An import's `type X` declares nothing.
    const semImports = fonte.codigo.replace(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"][^'"]+['"];?/gm, '');
    for (const [, nome = ''] of semImports.matchAll(
      /\b(?:class|interface|namespace|enum|type|function\*?|const|let|var)\s+([A-Za-z_$][\w$]*)/g,
    ))
      declarados.set(nome, [...(declarados.get(nome) ?? []), fonte]);
    for (const [, nomes = ''] of fonte.codigo.matchAll(/\bimport\s+(?:type\s+)?([^;]*?)\s+from\s/g))
      for (const [nome] of nomes.replace(/\btype\s+|\*\s+as\s+|[\w$]+\s+as\s+/g, '').matchAll(/[A-Za-z_$][\w$]*/g)) importados.add(nome);
  }
  return {
    raiz,
    naRaiz: new Set(readdirSync(raiz)),
    nomesDeArquivo: new Set(arquivos.map((arquivo) => path.posix.basename(arquivo))),
    fontes,
    declarados,
    importados,
  };
}

/** The id GitHub gives a heading's text. */
export function slug(titulo: string): string {
  return (
    titulo
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      // An HTML tag is markup, but `<x>` inside a code span is text.
      .split(/(`[^`]*`)/)
      .map((parte, i) => (i % 2 === 1 ? parte : parte.replace(/<[^>]+>/g, '')))
      .join('')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
  );
}

/** The text with fenced code blocks blanked, line for line: what the checks read. */
function semBlocos(texto: string): string {
  let cerca: string | undefined;
  return texto
    .split('\n')
    .map((linha) => {
      const marca = /^ {0,3}(`{3,}|~{3,})/.exec(linha)?.[1];
      if (cerca === undefined) {
        if (marca === undefined) return linha;
        cerca = marca;
        return '';
      }
      if (marca !== undefined && marca[0] === cerca[0] && marca.length >= cerca.length && linha.trim() === marca) cerca = undefined;
      return '';
    })
    .join('\n');
}

/** The ids of a markdown text's headings, repeated ones numbered as GitHub numbers them. */
export function ancoras(texto: string): Set<string> {
  const vistos = new Map<string, number>();
  const ids = new Set<string>();
  for (const [, titulo = ''] of semBlocos(texto).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const base = slug(titulo);
    const vezes = vistos.get(base) ?? 0;
    vistos.set(base, vezes + 1);
    ids.add(vezes === 0 ? base : `${base}-${String(vezes)}`);
  }
  return ids;
}

/** Inline code spans (never across a blank line), with their offset; the rest of the text with them blanked. */
function spans(texto: string): { codigos: { valor: string; posicao: number }[]; resto: string } {
  const codigos: { valor: string; posicao: number }[] = [];
  const resto = texto.replace(
    /(`+)((?:(?!\n[ \t]*\n)[^`]|(?!\1)`+)+?)\1(?!`)/g,
    (inteiro, _marca: string, dentro: string, posicao: number) => {
      // CommonMark: a line ending inside is a space; one space each side is padding.
      const valor = dentro.replace(/\n[ \t]*/g, ' ').replace(/^ (.*) $/s, '$1');
      codigos.push({ valor, posicao });
      return inteiro.replace(/[^\n]/g, ' ');
    },
  );
  return { codigos, resto };
}

const CAMINHO = /^[\w.@-]+(?:\/[\w.@-]*)+$/;
/** A bare file name: only a TypeScript one is looked up (`index.js` and `SKILL.md` name files of packages or of many folders). */
const ARQUIVO = /^[\w.-]+\.(?:tsx?|js|mjs|cjs|json|jsonl|md|ya?ml|sql|html|css|png|pem|proto|txt)$/;
const CHAMADA = /^((?:[A-Za-z_$][\w$]*\.)*)([A-Za-z_$][\w$]*)\(.*\)$/s;
const MEMBRO = /^([A-Za-z_$][\w$]*)\.([a-z_$][\w$]*)$/;

const escapado = (nome: string) => nome.replace(/\$/g, '\\$');
const palavra = (nome: string) => new RegExp(`(?<![\\w$])${escapado(nome)}(?![\\w$])`);
const chamado = (nome: string) => new RegExp(`(?<![\\w$])${escapado(nome)}\\s*\\(`);
/** A link's percent-encoding undone; a malformed one is kept as written, and reported as missing. */
function decodificado(texto: string): string {
  try {
    return decodeURIComponent(texto);
  } catch {
    return texto;
  }
}
const baseDe = (arquivo: string) => path.posix.basename(arquivo).replace(/\.[^.]*$/, '');

function problemaNoCaminho(valor: string, arvore: Arvore): string | undefined {
  const caminho = valor.replace(/:\d+(?:-\d+)?$/, '');
  if (!arvore.naRaiz.has(caminho.split('/')[0] ?? '')) return undefined;
  if (GERADOS.some((gerado) => caminho === gerado || caminho.startsWith(`${gerado}/`))) return undefined;
  return existsSync(path.join(arvore.raiz, caminho)) ? undefined : 'caminho que nao existe no repositorio';
}

/** `Classe.membro`: membro in a file that declares Classe, or Classe a name from a package, the platform, or our code's own text. */
function problemaNaClasse(classe: string, membro: string, arvore: Arvore): string | undefined {
  const donos = arvore.declarados.get(classe);
  if (donos)
    return donos.some(({ codigo }) => palavra(membro).test(codigo))
      ? undefined
      : `${classe} nao tem ${membro} (${donos.map(({ arquivo }) => arquivo).join(', ')})`;
  if (arvore.importados.has(classe) || GLOBAIS.has(classe)) return undefined;
  // A name our code writes as it is, such as an inspector method: 'HeapProfiler.collectGarbage'.
  if (arvore.fontes.some(({ codigo }) => codigo.includes(`${classe}.${membro}`))) return undefined;
  return `${classe} nao e declarado nem importado em ${FONTES.join(', ')}`;
}

/** What is wrong with one inline code token, if anything. */
function problemaNoCodigo(valor: string, arvore: Arvore): string | undefined {
  if (CAMINHO.test(valor.replace(/:\d+(?:-\d+)?$/, ''))) return problemaNoCaminho(valor, arvore);
  if (ARQUIVO.test(valor))
    return /\.tsx?$/.test(valor) && !arvore.nomesDeArquivo.has(valor) ? 'nenhum arquivo com esse nome no repositorio' : undefined;
  const chamada = CHAMADA.exec(valor);
  const membro = chamada ? undefined : MEMBRO.exec(valor);
  if (!chamada && !membro) return undefined;
  const receptores = chamada ? (chamada[1] ?? '').split('.').filter(Boolean) : [membro?.[1] ?? ''];
  const nome = (chamada ? chamada[2] : membro?.[2]) ?? '';
  const [receptor] = receptores;
  if (receptores.length === 1 && receptor !== undefined) {
    if (/^[A-Z]/.test(receptor)) return problemaNaClasse(receptor, nome, arvore);
    // `ciclo.receber`: a variable named after our type, declared in the file of its name.
    const classe = receptor.charAt(0).toUpperCase() + receptor.slice(1);
    if (arvore.declarados.get(classe)?.some(({ arquivo }) => baseDe(arquivo) === receptor)) return problemaNaClasse(classe, nome, arvore);
  }
  if (!chamada) return undefined;
  if (arvore.declarados.has(nome) || arvore.importados.has(nome) || arvore.fontes.some(({ codigo }) => chamado(nome).test(codigo)))
    return undefined;
  return `${nome} nao e declarado, importado nem chamado em ${FONTES.join(', ')}`;
}

/** Every stale name in one markdown file; `arquivo` is its path from the root (for relative links and messages). */
export function conferir(arquivo: string, texto: string, arvore: Arvore): Problema[] {
  const problemas: (Problema & { readonly posicao: number })[] = [];
  const corpo = semBlocos(texto);
  const linhaDe = (posicao: number) => corpo.slice(0, posicao).split('\n').length;
  const anotar = (posicao: number, nome: string, motivo: string) =>
    problemas.push({ onde: `${arquivo}:${String(linhaDe(posicao))}`, nome, motivo, posicao });
  const { codigos, resto } = spans(corpo);
  for (const { valor, posicao } of codigos) {
    const motivo = problemaNoCodigo(valor, arvore);
    if (motivo) anotar(posicao, valor, motivo);
  }
  const pasta = path.posix.dirname(arquivo);
  for (const encontrado of resto.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const [, alvo = ''] = encontrado;
    if (/^[a-z][a-z0-9+.-]*:/i.test(alvo)) continue;
    const [destino = '', ancora] = alvo.split('#', 2);
    const caminho = destino ? path.posix.normalize(path.posix.join(pasta, decodificado(destino))) : arquivo;
    const absoluto = path.join(arvore.raiz, caminho);
    if (!existsSync(absoluto)) {
      anotar(encontrado.index, alvo, `link para ${caminho}, que nao existe`);
      continue;
    }
    if (ancora === undefined || !caminho.endsWith('.md') || statSync(absoluto).isDirectory()) continue;
    const ids = caminho === arquivo ? ancoras(texto) : ancoras(readFileSync(absoluto, 'utf8'));
    if (!ids.has(decodificado(ancora))) anotar(encontrado.index, alvo, `${caminho} nao tem o titulo #${ancora}`);
  }
  // In the file's order, whichever check found them.
  return problemas.sort((a, b) => a.posicao - b.posicao).map(({ onde, nome, motivo }) => ({ onde, nome, motivo }));
}
