/**
 * The course's room profile over the generic bridge: the skills
 * reservar-sala, listar-salas and consultar-disponibilidade read from the
 * course's grammar, the artifacts reserva, salas and disponibilidade, and
 * the pause line `alternativas: ...`, exactly as the course checks them.
 * Everything else (the call, the pause, the continuation, failures) is the
 * generic core's. It decides no room rule: what it checks of a result is
 * the contract the MCP server publishes.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import {
  Disponibilidade,
  FERRAMENTAS,
  ListaDeSalas,
  META_IDEMPOTENCIA,
  ResultadoDaReserva,
  URI_DA_POLITICA,
  versaoDaPolitica,
  type PedidoDeReserva,
} from 'compartilhado/contrato';
import { objeto } from 'compartilhado/log';
import * as z from 'zod';
import { mensagemDeCredenciais, type ClienteMcp } from '../mcp/cliente.js';
import { apresentar, campoDeEscolha, inputRequests, linhaDeAlternativas, lerRespostas } from '../ponte/perguntas.js';
import { Recusa, RecusaAntesDaChamada, type Perfil } from '../ponte/perfil.js';
import type { Chamada, Desfecho, Pausa } from '../ponte/tipos.js';
import { lerEscolha, lerIntencao, SKILLS, type Consulta } from './intencao.js';

/** The artifact `reserva`: the booking as the MCP server made it, plus the policy version read from the resource. */
export type ReservaFeita = PedidoDeReserva & { readonly reserva: string; readonly politica: string };

const FERRAMENTA_DA_SKILL = {
  [SKILLS.reservar]: FERRAMENTAS.reservar,
  [SKILLS.listar]: FERRAMENTAS.listar,
  [SKILLS.consultar]: FERRAMENTAS.consultar,
} as const;

/** reservar_sala's structuredContent, checked against the contract: the booking made, or why none was. */
function lerReserva(conteudo: unknown, politica: string): ReservaFeita | { motivo: string } {
  const lido = ResultadoDaReserva.safeParse(conteudo);
  if (!lido.success) throw new Recusa(`O servidor MCP respondeu ${FERRAMENTAS.reservar} fora do contrato: ${z.prettifyError(lido.error)}`);
  const { reservado, reserva, sala, inicio, fim, responsavel, motivo } = lido.data;
  if (!reservado) return { motivo: motivo ?? 'recusado' };
  if (reserva === null || sala === null || inicio === null || fim === null || responsavel === null) {
    throw new Recusa(`O servidor MCP respondeu ${FERRAMENTAS.reservar} com uma reserva incompleta.`);
  }
  return { reserva, sala, inicio, fim, responsavel, politica };
}

/** Step 6 of a booking: booked (COMPLETED), or no room booked (CANCELED). */
function reservada(resultado: CallToolResult, politica: string): Desfecho {
  const reserva = lerReserva(resultado.structuredContent, politica);
  if ('motivo' in reserva) return { estado: 'cancelada', mensagem: `Nenhuma sala reservada (${reserva.motivo}).` };
  return {
    estado: 'concluida',
    mensagem: `Reserva ${reserva.reserva} confirmada na ${reserva.sala}.`,
    artefato: { nome: 'reserva', dados: reserva },
  };
}

/**
 * A read-only tool's answer: its structuredContent checked against the
 * contract and kept exactly as the server wrote it (key order included:
 * the artifact's text is that JSON).
 */
function lerConteudo<T>(ferramenta: string, esquema: z.ZodType<T>, resultado: CallToolResult): { dados: Record<string, unknown>; lido: T } {
  const dados = objeto(resultado.structuredContent);
  const lido = esquema.safeParse(dados);
  if (!lido.success || dados === undefined) {
    const porque = lido.success ? 'sem structuredContent' : z.prettifyError(lido.error);
    throw new Recusa(`O servidor MCP respondeu ${ferramenta} fora do contrato: ${porque}`);
  }
  return { dados, lido: lido.data };
}

function listadas(resultado: CallToolResult): Desfecho {
  const conteudo = lerConteudo(FERRAMENTAS.listar, ListaDeSalas, resultado);
  const { salas } = conteudo.lido;
  const mensagem = `${String(salas.length)} salas: ${salas.map((sala) => sala.id).join(', ')}.`;
  return { estado: 'concluida', mensagem, artefato: { nome: 'salas', dados: conteudo.dados } };
}

function consultada(consulta: Consulta, resultado: CallToolResult): Desfecho {
  const conteudo = lerConteudo(FERRAMENTAS.consultar, Disponibilidade, resultado);
  const { livre, conflitos } = conteudo.lido;
  const intervalo = `de ${consulta.inicio} a ${consulta.fim}`;
  const mensagem = livre
    ? `${consulta.sala} livre ${intervalo}.`
    : `${consulta.sala} ocupada ${intervalo}: ${conflitos.map((conflito) => conflito.id).join(', ')}.`;
  return { estado: 'concluida', mensagem, artefato: { nome: 'disponibilidade', dados: conteudo.dados } };
}

const PERGUNTA_DESCONHECIDA = 'O servidor MCP fez uma pergunta que este agente nao sabe repassar.';

/** The room question: one form question with the single field `sala` and its options. */
const escolhaDeSala = (perguntas: Pausa['perguntas']) => {
  const escolha = campoDeEscolha(perguntas);
  return escolha?.campo === 'sala' ? escolha.opcoes : undefined;
};

export function perfilDeSalas(mcp: ClienteMcp): Perfil {
  return {
    ler(entrada, taskId) {
      const intencao = lerIntencao(entrada);
      if ('erro' in intencao) return intencao;
      const ferramenta = FERRAMENTA_DA_SKILL[intencao.skill];
      switch (intencao.skill) {
        case SKILLS.listar:
          return { skill: intencao.skill, ferramenta, argumentos: {} };
        case SKILLS.consultar:
          return { skill: intencao.skill, ferramenta, argumentos: { ...intencao.consulta } };
        case SKILLS.reservar:
          // The Task id is the booking's idempotency key: a replay of this call returns the booking the first run made.
          return { skill: intencao.skill, ferramenta, argumentos: { ...intencao.reserva }, meta: { [META_IDEMPOTENCIA]: taskId } };
      }
    },
    conexao: () => mcp,
    // The course relays one question, the choice of another room for a booking; anything else fails rather than guess.
    perguntaRecusada: (chamada, perguntas) =>
      chamada.ferramenta === FERRAMENTAS.reservar && escolhaDeSala(perguntas) ? undefined : PERGUNTA_DESCONHECIDA,
    /** Discovery (the tool list is the server's, not ours), and for a booking the policy version, both cached while ttlMs allows. */
    async preparar(chamada, traceparent) {
      const politica =
        chamada.ferramenta === FERRAMENTAS.reservar ? versaoDaPolitica(await mcp.lerTexto(URI_DA_POLITICA, traceparent)) : '';
      if (politica === undefined) throw new RecusaAntesDaChamada(`${URI_DA_POLITICA} nao declara a versao na primeira linha.`);
      const ferramentas = await mcp.ferramentas(traceparent);
      if (!ferramentas.some((oferecida) => oferecida.name === chamada.ferramenta))
        throw new RecusaAntesDaChamada(`O servidor MCP nao oferece a ferramenta ${chamada.ferramenta}.`);
      return politica;
    },
    concluir(chamada: Chamada, resultado, politica) {
      if (chamada.ferramenta === FERRAMENTAS.listar) return listadas(resultado);
      if (chamada.ferramenta === FERRAMENTAS.consultar) return consultada(chamada.argumentos as Consulta, resultado);
      return reservada(resultado, String(politica));
    },
    falhaSemTexto: () => 'A ferramenta falhou sem mensagem.',
    /** The room question as the course shows it: the line of options alone; the question as the server wrote it in the data part. */
    apresentar(perguntas, erro) {
      const alternativas = escolhaDeSala(perguntas);
      if (!alternativas) return apresentar(perguntas, erro);
      const [questao] = Object.values(perguntas);
      const pergunta = questao?.mode === 'url' ? undefined : objeto(questao?.requestedSchema);
      return {
        mensagem: linhaDeAlternativas(alternativas),
        dados: { alternativas, ...(pergunta ? { pergunta } : {}), ...(erro ? { erro } : {}), inputRequests: inputRequests(perguntas) },
      };
    },
    /** escolha=<sala>, {"escolha": "<sala>"} or escolha=recusar; MCP's own inputResponses too. */
    lerRespostas(pausa, entrada) {
      const alternativas = escolhaDeSala(pausa.perguntas);
      const [chave] = Object.keys(pausa.perguntas);
      if (!alternativas || chave === undefined || objeto(entrada.dados)?.inputResponses !== undefined)
        return lerRespostas(pausa.perguntas, entrada);
      const escolha = lerEscolha(entrada);
      if ('erro' in escolha) return escolha;
      if ('recusar' in escolha) return { respostas: { [chave]: { action: 'decline' } } };
      if (!alternativas.includes(escolha.sala)) return { erro: `"${escolha.sala}" nao esta entre as alternativas.` };
      return { respostas: { [chave]: { action: 'accept', content: { sala: escolha.sala } } } };
    },
    // A booking carries its key, and a continuation is keyed by its state: replaying either books once. The rest only read.
    efeito: (chamada) => (chamada.ferramenta === FERRAMENTAS.reservar ? 'repetivel' : 'nenhum'),
    // As in the course: a running call is never cut short (a booking would outlive a CANCELED Task), and no progress is asked.
    cancelavel: () => false,
    progresso: false,
    credenciaisRecusadas: () => mensagemDeCredenciais(mcp.url),
    palavras: {
      efeito: 'a reserva pode ter sido feita',
      repeticao: 'que o servidor nao executa duas vezes',
      nadaFeito: 'Nada foi reservado',
    },
  };
}
