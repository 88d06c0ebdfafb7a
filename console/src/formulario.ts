/**
 * A form from a JSON Schema: the fields of a tool's `inputSchema` (a skill)
 * or of an elicitation's `requestedSchema` (a question), and the JSON object
 * they hold. What the form can express gets its own input (text with its
 * format, number with its range, checkbox, select, multi-select); what it
 * cannot (other arrays and objects) is a JSON field. The form checks only
 * what it must to build the object (a number is a number, JSON parses):
 * the schema's verdict is the agent's, shown beside the form.
 */

type Esquema = Readonly<Record<string, unknown>>;

const objeto = (valor: unknown): Esquema | undefined =>
  typeof valor === 'object' && valor !== null && !Array.isArray(valor) ? (valor as Esquema) : undefined;

/** An option of a choice: the value sent, as the schema wrote it (a number stays a number), and the words shown. */
interface Opcao {
  readonly valor: unknown;
  readonly rotulo: string;
}

/** A choice's options: `enum` (with the legacy `enumNames` as words), or `oneOf`/`anyOf` of `const` with `title`. */
function opcoes(esquema: Esquema | undefined): Opcao[] | undefined {
  if (!esquema) return undefined;
  if (Array.isArray(esquema.enum)) {
    const nomes = Array.isArray(esquema.enumNames) ? esquema.enumNames : [];
    return esquema.enum.map((valor: unknown, i) => ({ valor, rotulo: String(nomes[i] ?? valor) }));
  }
  const variantes = Array.isArray(esquema.oneOf) ? esquema.oneOf : Array.isArray(esquema.anyOf) ? esquema.anyOf : undefined;
  const constantes = variantes?.map(objeto);
  if (!constantes?.every((variante) => variante !== undefined && 'const' in variante)) return undefined;
  return constantes.map((variante) => ({
    valor: variante?.const,
    rotulo: typeof variante?.title === 'string' ? variante.title : String(variante?.const),
  }));
}

/** The input type of a string, by its `format`. */
const TIPO_DO_FORMATO: Readonly<Record<string, string>> = { 'date-time': 'datetime-local', date: 'date', email: 'email', uri: 'url' };

/** How a field reads its value: `undefined` leaves it out of the object; a thrown Error names what is wrong. */
type Leitor = () => unknown;

interface Campo {
  readonly elemento: HTMLElement;
  readonly ler: Leitor;
}

let contador = 0;
const novoId = (base: string) => `${base}-${String(++contador)}`;

/** The field's label (its title, or its name) and, for a required one, a mark beside it. */
function rotuloDe(nome: string, esquema: Esquema, obrigatorio: boolean, para: string): HTMLElement {
  const linha = document.createElement('div');
  const rotulo = document.createElement('label');
  rotulo.htmlFor = para;
  rotulo.textContent = typeof esquema.title === 'string' && esquema.title.trim() ? esquema.title : nome;
  linha.append(rotulo);
  if (obrigatorio) {
    // The mark is for the eye, outside the label; the control's `required` (aria-required on a checkbox) says it to a screen reader.
    const marca = document.createElement('span');
    marca.className = 'obrigatorio';
    marca.setAttribute('aria-hidden', 'true');
    marca.textContent = ' *';
    linha.append(marca);
  }
  return linha;
}

function ajuda(esquema: Esquema, controle: HTMLElement): HTMLElement | undefined {
  if (typeof esquema.description !== 'string' || !esquema.description.trim()) return undefined;
  const dica = document.createElement('p');
  dica.className = 'dica';
  dica.id = novoId('ajuda');
  dica.textContent = esquema.description;
  controle.setAttribute('aria-describedby', dica.id);
  return dica;
}

/** A `datetime-local` value as RFC 3339 (the browser's offset); the JSON Schema `date-time` format asks for one. */
function instante(local: string): string {
  const data = new Date(local);
  if (Number.isNaN(data.getTime())) throw new Error('data e hora invalidas');
  const minutos = -data.getTimezoneOffset();
  const sinal = minutos >= 0 ? '+' : '-';
  const abs = Math.abs(minutos);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local.length === 16 ? `${local}:00` : local}${sinal}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A `date-time` default as the `datetime-local` input shows it: the same instant, on the browser's clock. */
function paraLocal(valor: unknown): string {
  const data = typeof valor === 'string' ? new Date(valor) : undefined;
  if (!data || Number.isNaN(data.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String(data.getFullYear())}-${pad(data.getMonth() + 1)}-${pad(data.getDate())}T${pad(data.getHours())}:${pad(data.getMinutes())}`;
}

function campoDeEscolha(nome: string, esquema: Esquema, obrigatorio: boolean, lista: Opcao[], multipla: boolean): Campo {
  const select = document.createElement('select');
  select.id = novoId('campo');
  select.name = nome;
  select.multiple = multipla;
  select.required = obrigatorio;
  const padrao = esquema.default;
  const escolhidos = new Set((Array.isArray(padrao) ? padrao : padrao === undefined ? [] : [padrao]).map((valor) => JSON.stringify(valor)));
  // No choice is made for the person: without a default, a single choice starts on an empty option (one that cannot be sent when required).
  if (!multipla && (!obrigatorio || escolhidos.size === 0)) {
    const vazia = new Option('—', '', true, true);
    vazia.disabled = obrigatorio;
    select.append(vazia);
  }
  // Each option's value is its place in the list, read back as the schema's own value (a number stays a number).
  lista.forEach(({ valor, rotulo }, i) => select.append(new Option(rotulo, String(i), false, escolhidos.has(JSON.stringify(valor)))));
  if (multipla) select.size = Math.min(lista.length, 6);
  const elemento = embrulhar(nome, multipla ? { ...esquema, description: dicaDeMultipla(esquema) } : esquema, obrigatorio, select);
  const valorDa = (opcao: HTMLOptionElement) => (opcao.value === '' ? undefined : lista[Number(opcao.value)]?.valor);
  return {
    elemento,
    ler: () => {
      if (multipla) {
        const valores = [...select.selectedOptions].map(valorDa);
        return valores.length === 0 && !obrigatorio ? undefined : valores;
      }
      const [escolhida] = select.selectedOptions;
      return escolhida ? valorDa(escolhida) : undefined;
    },
  };
}

/** A multiple choice's help says how to pick more than one. */
const dicaDeMultipla = (esquema: Esquema) =>
  `${typeof esquema.description === 'string' ? `${esquema.description} ` : ''}(Ctrl ou Shift para escolher mais de uma opção)`;

function embrulhar(nome: string, esquema: Esquema, obrigatorio: boolean, controle: HTMLElement): HTMLElement {
  const caixa = document.createElement('div');
  caixa.className = 'campo';
  caixa.append(rotuloDe(nome, esquema, obrigatorio, controle.id), controle);
  const dica = ajuda(esquema, controle);
  if (dica) caixa.append(dica);
  return caixa;
}

function campoDeJson(nome: string, esquema: Esquema, obrigatorio: boolean, tipo: 'array' | 'object' | undefined): Campo {
  const area = document.createElement('textarea');
  area.id = novoId('campo');
  area.name = nome;
  area.rows = 3;
  area.required = obrigatorio;
  area.spellcheck = false;
  area.placeholder = tipo === 'array' ? '[ ]' : '{ }';
  if (esquema.default !== undefined) area.value = JSON.stringify(esquema.default);
  return {
    elemento: embrulhar(
      nome,
      { ...esquema, description: `${typeof esquema.description === 'string' ? esquema.description : ''} (JSON)`.trim() },
      obrigatorio,
      area,
    ),
    ler: () => {
      if (!area.value.trim()) return undefined;
      let valor: unknown;
      try {
        valor = JSON.parse(area.value);
      } catch {
        throw new Error(`${nome}: JSON invalido`);
      }
      if (tipo === 'array' && !Array.isArray(valor)) throw new Error(`${nome}: esperado uma lista JSON ([...])`);
      if (tipo === 'object' && objeto(valor) === undefined) throw new Error(`${nome}: esperado um objeto JSON ({...})`);
      return valor;
    },
  };
}

/** One property of the schema as a field. */
function campo(nome: string, esquema: Esquema, obrigatorio: boolean): Campo {
  const tipo = typeof esquema.type === 'string' ? esquema.type : undefined;
  const escolha = opcoes(esquema);
  if (escolha && (tipo === undefined || tipo === 'string' || tipo === 'number' || tipo === 'integer')) {
    return campoDeEscolha(nome, esquema, obrigatorio, escolha, false);
  }
  if (tipo === 'array') {
    const dosItens = opcoes(objeto(esquema.items));
    return dosItens ? campoDeEscolha(nome, esquema, obrigatorio, dosItens, true) : campoDeJson(nome, esquema, obrigatorio, 'array');
  }
  if (tipo === 'boolean') {
    const caixa = document.createElement('input');
    caixa.type = 'checkbox';
    caixa.id = novoId('campo');
    caixa.name = nome;
    caixa.checked = esquema.default === true;
    if (obrigatorio) caixa.setAttribute('aria-required', 'true');
    // An optional boolean the person never touched (and with no default) is left out, not sent as false.
    let tocada = esquema.default !== undefined;
    caixa.addEventListener('change', () => (tocada = true));
    const elemento = embrulhar(nome, esquema, obrigatorio, caixa);
    elemento.classList.add('marcavel');
    return { elemento, ler: () => (obrigatorio || tocada ? caixa.checked : undefined) };
  }
  if (tipo === 'string' || tipo === 'number' || tipo === 'integer') {
    const entrada = document.createElement('input');
    entrada.id = novoId('campo');
    entrada.name = nome;
    entrada.required = obrigatorio;
    const formato = typeof esquema.format === 'string' ? esquema.format : '';
    if (tipo === 'string') {
      entrada.type = TIPO_DO_FORMATO[formato] ?? 'text';
      if (typeof esquema.maxLength === 'number') entrada.maxLength = esquema.maxLength;
      if (typeof esquema.pattern === 'string') entrada.pattern = esquema.pattern;
      const padrao = esquema.default;
      entrada.value = formato === 'date-time' ? paraLocal(padrao) : typeof padrao === 'string' ? padrao : '';
    } else {
      entrada.type = 'number';
      entrada.step = tipo === 'integer' ? '1' : 'any';
      if (typeof esquema.minimum === 'number') entrada.min = String(esquema.minimum);
      if (typeof esquema.maximum === 'number') entrada.max = String(esquema.maximum);
      if (typeof esquema.default === 'number') entrada.value = String(esquema.default);
    }
    const elemento = embrulhar(nome, esquema, obrigatorio, entrada);
    return {
      elemento,
      ler: () => {
        // A number the browser cannot read (`1e`, `--1`) shows as an empty value: said, never dropped.
        if (entrada.validity.badInput) throw new Error(`${nome}: esperado um numero`);
        if (entrada.value === '') return undefined;
        if (tipo !== 'string') return numero(entrada.value, nome);
        return formato === 'date-time' ? instante(entrada.value) : entrada.value;
      },
    };
  }
  return campoDeJson(nome, esquema, obrigatorio, tipo === 'object' ? 'object' : undefined);
}

function numero(valor: string, nome: string): number {
  const lido = Number(valor);
  if (!Number.isFinite(lido)) throw new Error(`${nome}: esperado um numero`);
  return lido;
}

export interface Formulario {
  /** The fields, in the schema's order, to place in a form. */
  readonly campos: HTMLElement[];
  /** The object the fields hold, or what keeps it from being built. */
  ler(): { valores: Record<string, unknown> } | { erro: string };
}

/** The fields of an object schema's properties (none: an empty object). */
export function formularioDe(esquema: unknown): Formulario {
  const raiz = objeto(esquema) ?? {};
  const propriedades = objeto(raiz.properties) ?? {};
  const obrigatorios = new Set(Array.isArray(raiz.required) ? raiz.required.map(String) : []);
  const campos = Object.entries(propriedades).map(([nome, propriedade]) => ({
    nome,
    ...campo(nome, objeto(propriedade) ?? {}, obrigatorios.has(nome)),
  }));
  return {
    campos: campos.map(({ elemento }) => elemento),
    ler() {
      const valores: Record<string, unknown> = {};
      try {
        for (const { nome, ler } of campos) {
          const valor = ler();
          if (valor !== undefined) valores[nome] = valor;
        }
      } catch (erro) {
        return { erro: erro instanceof Error ? erro.message : String(erro) };
      }
      return { valores };
    },
  };
}
