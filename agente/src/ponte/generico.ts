/**
 * The profile for any MCP server: every tool is a skill. A request is MCP's
 * own call params in a data part, `{"name": "<skill>", "arguments": {...}}`,
 * or, for people, the text `<skill> chave=valor chave="valor com espacos"`;
 * the arguments are checked against the tool's inputSchema before anything
 * is sent. A result becomes an artifact named after the skill's id.
 */
import type { CallToolResult, ContentBlock, Tool } from '@modelcontextprotocol/client';
import { objeto } from 'compartilhado/log';
import { idDaSkill, type ConexaoMcp, type Skill } from '../mcp/conexao.js';
import { problemaNoEsquema, propriedades, valorPeloTipo } from './esquemas.js';
import { apresentar, lerRespostas } from './perguntas.js';
import type { Efeito, Perfil } from './perfil.js';
import type { Artefato, Chamada, Desfecho, Ilegivel, Parte } from './tipos.js';

/** The skills on offer now (the servers' tool lists change). */
export interface Skills {
  skill(id: string): Skill | undefined;
  lista(): readonly Skill[];
  /** The connection of a server by name. */
  conexao(servidor: string): ConexaoMcp | undefined;
}

const PAR = /([^\s=]+)=("((?:[^"\\]|\\.)*)"|\S*)/gy;

/** `chave=valor chave="valor com espacos"`: the pairs, or undefined if anything else is in the text. */
function pares(texto: string): [string, string][] | undefined {
  const lidos: [string, string][] = [];
  let resto = texto.trim();
  while (resto !== '') {
    PAR.lastIndex = 0;
    const par = PAR.exec(resto);
    if (!par) return undefined;
    const [inteiro, chave = '', bruto = '', entreAspas] = par;
    lidos.push([chave, entreAspas === undefined ? bruto : entreAspas.replace(/\\(.)/g, '$1')]);
    resto = resto.slice(inteiro.length).trimStart();
  }
  return lidos;
}

export const mensagemForaDoFormato = (skills: readonly Skill[]) =>
  `Pedido fora do formato. Use a parte de dados {"name": "<skill>", "arguments": {...}} ou o texto "<skill> chave=valor chave=\\"valor com espacos\\"". Skills: ${skills
    .map((skill) => skill.id)
    .join(', ')}.`;

/**
 * A content block as it came: text as text, image and audio as files with
 * their bytes, a link as a file by its URI, an embedded resource as text
 * (with its media type) or as a file with its bytes, either keeping its URI.
 */
function parteDe(bloco: ContentBlock): Parte | undefined {
  switch (bloco.type) {
    case 'text':
      return { texto: bloco.text };
    case 'image':
    case 'audio':
      return { arquivo: { bytes: bloco.data, mediaType: bloco.mimeType } };
    case 'resource_link':
      return { arquivo: { uri: bloco.uri, nome: bloco.name, ...(bloco.mimeType ? { mediaType: bloco.mimeType } : {}) } };
    case 'resource': {
      const { resource } = bloco;
      const mediaType = resource.mimeType ? { mediaType: resource.mimeType } : {};
      return 'blob' in resource
        ? { arquivo: { uri: resource.uri, bytes: resource.blob, ...mediaType } }
        : { texto: resource.text, uri: resource.uri, ...mediaType };
    }
    default:
      return undefined;
  }
}

/** A result's text blocks, one per line. */
export const textoDe = (resultado: CallToolResult) =>
  resultado.content
    .map((bloco) => (bloco.type === 'text' ? bloco.text : ''))
    .filter(Boolean)
    .join('\n');

/**
 * A tool's result as the Task's outcome: it completes with an artifact of
 * its content blocks, one part each and in order, then its
 * structuredContent, if any, as one data part (an isError result is a
 * failure, falhas.ts's). The tool's text is passed on as it wrote it, never
 * rebuilt from the structured content.
 */
export function concluirGenerico(chamada: Chamada, resultado: CallToolResult): Desfecho {
  const texto = textoDe(resultado);
  const dados = objeto(resultado.structuredContent);
  const partes = [...resultado.content.flatMap((bloco) => parteDe(bloco) ?? []), ...(dados ? [{ dados }] : [])];
  const artefato: Artefato = { nome: chamada.skill, ...(partes.length > 0 ? { partes } : {}) };
  return { estado: 'concluida', mensagem: texto || `${chamada.skill} concluida.`, artefato };
}

/** What a tool may do, as its annotations say: only a read, or an idempotent change, is safe to run again. */
export function efeitoDe(ferramenta: Tool): Efeito {
  if (ferramenta.annotations?.readOnlyHint === true) return 'nenhum';
  return ferramenta.annotations?.idempotentHint === true ? 'repetivel' : 'unico';
}

/**
 * The skill a request names: the one with that id or, when none has it, the
 * one tool of that bare name among all servers (the id an agent of one
 * server gave before ids always carried the server, kept as an alias).
 * Undefined: no such skill; `erro`: several servers have a tool of that name.
 */
function achar(skills: Skills, nome: unknown): Skill | Ilegivel | undefined {
  if (typeof nome !== 'string') return undefined;
  const exata = skills.skill(nome);
  if (exata) return exata;
  const [unica, ...outras] = skills.lista().filter(({ ferramenta }) => ferramenta.name === nome);
  if (!unica || outras.length === 0) return unica;
  return {
    erro: `Skill ambigua ${JSON.stringify(nome)}: mais de um servidor tem essa ferramenta. Use o id: ${[unica, ...outras].map(({ id }) => id).join(', ')}.`,
  };
}

/** A request for a skill: its arguments checked against the tool's inputSchema, as the call of that server's tool. */
function chamadaDe(skill: Skill, argumentos: unknown): Chamada | (Ilegivel & { readonly rejeitar: true }) {
  const lidos = objeto(argumentos);
  if (!lidos) return { erro: `Pedido em dados: "arguments" deve ser um objeto JSON.`, rejeitar: true };
  const problema = problemaNoEsquema(skill.ferramenta.inputSchema, lidos);
  if (problema) return { erro: `Argumentos recusados por ${skill.id}: ${problema}`, rejeitar: true };
  const tarefa = skill.ferramenta.execution?.taskSupport === 'required' ? { tarefa: true as const } : {};
  return { skill: skill.id, servidor: skill.conexao.nome, ferramenta: skill.ferramenta.name, argumentos: lidos, ...tarefa };
}

export function perfilGenerico(skills: Skills): Perfil {
  return {
    ler(entrada) {
      const dados = objeto(entrada.dados);
      if (dados) {
        const desconhecidos = Object.keys(dados).filter((campo) => campo !== 'name' && campo !== 'arguments');
        if (desconhecidos.length > 0)
          return { erro: `Pedido em dados: campo desconhecido "${desconhecidos.join('", "')}".`, rejeitar: true };
        const { name, arguments: argumentos = {} } = dados;
        const skill = achar(skills, name);
        if (!skill)
          return {
            erro: `Skill desconhecida ${JSON.stringify(name)}. Skills: ${skills
              .lista()
              .map((s) => s.id)
              .join(', ')}.`,
            rejeitar: true,
          };
        if ('erro' in skill) return { ...skill, rejeitar: true };
        return chamadaDe(skill, argumentos);
      }
      const texto = entrada.texto.trim();
      const [primeira = ''] = texto.split(/\s+/, 1);
      const skill = achar(skills, primeira);
      if (skill && 'erro' in skill) return { ...skill, rejeitar: true };
      const lidos = pares(texto.slice(primeira.length));
      if (!skill || !lidos) return { erro: mensagemForaDoFormato(skills.lista()), rejeitar: true };
      const campos = propriedades(skill.ferramenta.inputSchema);
      return chamadaDe(skill, Object.fromEntries(lidos.map(([chave, valor]) => [chave, valorPeloTipo(valor, campos[chave])])));
    },
    conexao: (chamada) => (chamada.servidor === undefined ? undefined : skills.conexao(chamada.servidor)),
    preparar: () => Promise.resolve(undefined),
    concluir: (chamada, resultado) => concluirGenerico(chamada, resultado),
    falhaSemTexto: (chamada) => `${chamada.skill} falhou sem mensagem.`,
    apresentar,
    lerRespostas: (pausa, entrada) => lerRespostas(pausa.perguntas, entrada),
    efeito(chamada) {
      // By server and tool, not by the skill a pause kept: one stored before ids carried the server names its tool bare.
      const skill = chamada.servidor === undefined ? undefined : skills.skill(idDaSkill(chamada.servidor, chamada.ferramenta));
      return skill ? efeitoDe(skill.ferramenta) : 'unico';
    },
    // A call whose replay is safe is left to finish: cut short, its effect would be neither done nor replayed.
    cancelavel(chamada) {
      return this.efeito(chamada) !== 'repetivel';
    },
    progresso: true,
    credenciaisRecusadas: (conexao) =>
      `O servidor MCP ${conexao.nome} recusou as credenciais do agente (HTTP 401): confira os headers dele em AGENTE_MCP_CONFIG.`,
    palavras: {
      efeito: 'a chamada pode ter tido efeito',
      repeticao: 'que a ferramenta declara segura de repetir',
      nadaFeito: 'Nada foi feito',
    },
  };
}
