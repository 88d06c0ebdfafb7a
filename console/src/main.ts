/**
 * The console page, built from the agent card: for an agent that publishes
 * its skills' MCP tools (any server, AGENTE_MCP_CONFIG), the skills and a
 * form for each; for the course's agent, the rooms and the booking form.
 * Both drive the same Task panel and the same Fio diagram.
 */
import './buffer.js';
import { conectar } from './cliente.js';
import { Fio } from './fio.js';
import { elemento, mensagemDeFalha } from './pagina.js';
import { montarSalas, vistaDeSalas } from './salas.js';
import { ferramentasDo, montarSkills } from './skills.js';
import { Painel } from './tarefa.js';

const acesso = elemento('acesso', HTMLElement);
const formAcesso = elemento('form-acesso', HTMLFormElement);
const token = elemento('token', HTMLInputElement);
const perfil = elemento('perfil', HTMLDivElement);

async function iniciar(): Promise<void> {
  // The Fio's lanes come from the card: an exchange before it is drawn (the card's own GET) has no body to show.
  const desenho: { fio?: Fio } = {};
  const conexao = await conectar((troca) => desenho.fio?.mostrar(troca));
  const { card } = conexao;
  const ferramentas = ferramentasDo(card);
  const servidores = [...new Set(Object.values(ferramentas ?? {}).flatMap(({ servidor }) => (servidor ? [servidor] : [])))];
  const fio = (desenho.fio = new Fio(elemento('fio', HTMLOListElement), elemento('faixas', HTMLDivElement), servidores));
  if (ferramentas) {
    elemento('apresentacao', HTMLParagraphElement).textContent =
      `${card.name}: ${card.description} Escolha uma skill e veja a ponte A2A ↔ MCP no fio.`;
    const painel = new Painel(conexao, fio);
    montarSkills(perfil, card, ferramentas, painel);
    // The skills are in the card; a token is tried on the extended card, which asks for one.
    const conferir = () => conexao.cliente.getAgentCard().then(() => undefined);
    if (conexao.exigeToken) pedirToken(conexao.usarToken, conferir, painel);
    return;
  }
  const painel = new Painel(conexao, fio, vistaDeSalas);
  const salas = montarSalas(perfil, conexao, painel);
  if (conexao.exigeToken) pedirToken(conexao.usarToken, salas.listar, painel);
  else await salas.listar();
}

/**
 * With AGENTE_TOKENS, the page asks for a token; `conferir` tries it (the
 * rooms: listing them), a refused one is said, and the field stays.
 */
function pedirToken(usarToken: (token: string) => void, conferir: () => Promise<void>, painel: Painel): void {
  acesso.hidden = false;
  formAcesso.addEventListener('submit', (evento) => {
    evento.preventDefault();
    usarToken(token.value.trim());
    conferir().then(
      () => {
        acesso.hidden = true;
        elemento('resultado', HTMLDivElement).replaceChildren();
      },
      (erro: unknown) => painel.falha(erro),
    );
  });
  token.focus();
}

void iniciar().catch((erro: unknown) => {
  elemento('resultado', HTMLDivElement).textContent = mensagemDeFalha(erro);
});
