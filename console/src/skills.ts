/**
 * The view for any agent whose card publishes its skills' MCP tools (the
 * generic bridge, AGENTE_MCP_CONFIG): the card's skills with their names
 * and descriptions; choosing one shows a form built from its inputSchema,
 * sent with Enviar as the data part `{"name", "arguments"}`. A request the
 * agent rejects (its schema check) shows the agent's message beside the form.
 */
import type { AgentCard, AgentExtension } from '@a2a-js/sdk';
import { formularioDe, type Formulario } from './formulario.js';
import { desligarBotoes, elemento, estadoDe, focarPrimeiro, modelo, textoDe } from './pagina.js';
import type { Painel } from './tarefa.js';

/** The card's extension that publishes each skill's MCP tool (agente/src/a2a/card.ts). */
const EXTENSAO_FERRAMENTAS_MCP = 'urn:a-ponte:a2a-extension:mcp-tools:v1';

interface Ferramenta {
  readonly servidor?: string;
  readonly inputSchema?: unknown;
}

/** Each skill's tool, by skill id, when the card publishes them; undefined for an agent that does not (the rooms'). */
export function ferramentasDo(card: AgentCard): Readonly<Record<string, Ferramenta>> | undefined {
  // The SDK types the list as always there, but leaves it out when the card's JSON does (the rooms' card).
  const extensoes: readonly AgentExtension[] | undefined = card.capabilities?.extensions;
  const extensao = extensoes?.find(({ uri }) => uri === EXTENSAO_FERRAMENTAS_MCP);
  const skills: unknown = extensao?.params?.skills;
  return typeof skills === 'object' && skills !== null ? (skills as Record<string, Ferramenta>) : undefined;
}

export function montarSkills(onde: HTMLElement, card: AgentCard, ferramentas: Readonly<Record<string, Ferramenta>>, painel: Painel): void {
  onde.append(modelo('modelo-skills'));
  const lista = elemento('skills', HTMLUListElement);
  const secao = elemento('chamada', HTMLElement);
  const titulo = elemento('titulo-chamada', HTMLHeadingElement);
  const descricao = elemento('descricao-chamada', HTMLParagraphElement);
  const form = elemento('form-chamada', HTMLFormElement);
  const campos = elemento('campos-chamada', HTMLDivElement);
  const aviso = elemento('aviso-chamada', HTMLParagraphElement);
  let escolhida: { id: string; formulario: Formulario } | undefined;

  const escolher = (id: string, nome: string, texto: string, botao: HTMLButtonElement) => {
    for (const outro of lista.querySelectorAll('button')) outro.setAttribute('aria-pressed', String(outro === botao));
    const formulario = formularioDe(ferramentas[id]?.inputSchema);
    escolhida = { id, formulario };
    titulo.textContent = nome;
    descricao.textContent = texto;
    campos.replaceChildren(...formulario.campos);
    aviso.textContent = '';
    secao.hidden = false;
    focarPrimeiro(form);
  };

  for (const skill of card.skills) {
    const item = document.createElement('li');
    const botao = document.createElement('button');
    botao.type = 'button';
    botao.textContent = skill.name || skill.id;
    botao.setAttribute('aria-pressed', 'false');
    botao.addEventListener('click', () => escolher(skill.id, botao.textContent, skill.description, botao));
    const texto = document.createElement('p');
    texto.className = 'dica';
    texto.textContent = skill.description;
    item.append(botao, texto);
    lista.append(item);
  }
  lista.setAttribute('aria-busy', 'false');

  form.addEventListener('submit', (evento) => {
    evento.preventDefault();
    if (!escolhida) return;
    const lido = escolhida.formulario.ler();
    if ('erro' in lido) {
      aviso.textContent = lido.erro;
      return;
    }
    aviso.textContent = '';
    // One call at a time from this form: Enviar comes back when the step ends.
    desligarBotoes(form);
    void painel.iniciar({ name: escolhida.id, arguments: lido.valores }).then((task) => {
      desligarBotoes(form, false);
      if (estadoDe(task) === 'TASK_STATE_REJECTED') aviso.textContent = textoDe(task?.status?.message?.parts);
    });
  });
}
