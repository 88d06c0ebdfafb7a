/**
 * Steps 3 and 5 for any server: how a paused Task shows the server's
 * questions, and how the client's answer is read and checked. Both use
 * MCP's own names, so a client that knows MCP knows the shapes: the pause's
 * data part is `{"inputRequests": {<chave>: {"method": "elicitation/create",
 * "params": ...}}}`, the answer `{"inputResponses": {<chave>: {"action":
 * ..., "content": ...}}}`. For one question, text shortcuts: `escolha=<valor>`
 * (a question of one field), `recusar`, and `pronto` (a URL visited).
 */
import type { ElicitResult } from '@modelcontextprotocol/client';
import { objeto } from 'compartilhado/log';
import { opcoesDe, problemaNoEsquema, propriedades, valorPeloTipo, type Propriedade } from './esquemas.js';
import type { Entrada, Ilegivel, Pausa, Questao, Respostas } from './tipos.js';

/** The pause text is compared byte for byte by clients: no prefix, no greeting. */
export const linhaDeAlternativas = (alternativas: readonly string[]) => `alternativas: ${alternativas.join(', ')}`;

export const MENSAGEM_RESPOSTA_FORA_DO_FORMATO =
  'Resposta fora do formato. Use a parte de dados {"inputResponses": {"<chave>": {"action": "accept" | "decline" | "cancel", "content": {...}}}}, ou, para uma so pergunta, escolha=<valor> (pergunta de um campo), recusar ou pronto.';

const ehUrl = (questao: Questao): questao is Questao & { mode: 'url'; url: string } => questao.mode === 'url';

/** Whether any question sends the user to a URL: the Task then asks for authorization, not input. */
export const pedeUrl = (perguntas: Pausa['perguntas']) => Object.values(perguntas).some(ehUrl);

/** The one field of a single form question: its name and its schema (what `escolha=<valor>` answers). */
function campoUnico(perguntas: Pausa['perguntas']): { campo: string; propriedade: Propriedade } | undefined {
  const questoes = Object.values(perguntas);
  const [questao] = questoes;
  if (questoes.length !== 1 || !questao || ehUrl(questao)) return undefined;
  const campos = Object.entries(propriedades(questao.requestedSchema));
  const [primeiro] = campos;
  return campos.length === 1 && primeiro ? { campo: primeiro[0], propriedade: primeiro[1] } : undefined;
}

/** The one field of a single form question, when it lists its options: its name and the options. */
export function campoDeEscolha(perguntas: Pausa['perguntas']): { campo: string; opcoes: string[] } | undefined {
  const unico = campoUnico(perguntas);
  const opcoes = opcoesDe(unico?.propriedade);
  return unico && opcoes && { campo: unico.campo, opcoes };
}

/** The questions as MCP's inputRequests, for the pause's data part. */
export const inputRequests = (perguntas: Pausa['perguntas']) =>
  Object.fromEntries(Object.entries(perguntas).map(([chave, params]) => [chave, { method: 'elicitation/create', params }]));

/**
 * A paused Task's status: each question's message (a URL's with the URL),
 * the options of a single choice, and why the last answer was not taken.
 */
export function apresentar(perguntas: Pausa['perguntas'], erro?: string): { mensagem: string; dados: Record<string, unknown> } {
  const linhas = Object.values(perguntas).map((questao) => (ehUrl(questao) ? `${questao.message} ${questao.url}` : questao.message));
  const escolha = campoDeEscolha(perguntas);
  if (escolha) linhas.push(linhaDeAlternativas(escolha.opcoes));
  if (erro) linhas.push(erro);
  return { mensagem: linhas.join('\n'), dados: { inputRequests: inputRequests(perguntas), ...(erro ? { erro } : {}) } };
}

const ACOES = new Set(['accept', 'decline', 'cancel']);

/** One answer, checked against its question: an action, and for an accepted form the content its schema requires. */
function problemaNaResposta(chave: string, questao: Questao, resposta: unknown): string | undefined {
  const lida = objeto(resposta);
  if (!lida || typeof lida.action !== 'string' || !ACOES.has(lida.action))
    return `a resposta a "${chave}" precisa de "action": "accept", "decline" ou "cancel".`;
  if (lida.action !== 'accept' || ehUrl(questao)) return undefined;
  const problema = problemaNoEsquema(questao.requestedSchema, lida.content ?? {});
  return problema && `a resposta a "${chave}" nao confere com o que foi pedido: ${problema}`;
}

/** Every pending question answered, and nothing else: each answer checked before anything is sent. */
function conferir(perguntas: Pausa['perguntas'], respostas: Record<string, unknown>): { respostas: Respostas } | Ilegivel {
  const problemas: string[] = [];
  // Own keys only: "constructor" or "toString" are no question of the server's.
  for (const chave of Object.keys(respostas)) if (!Object.hasOwn(perguntas, chave)) problemas.push(`nao ha pergunta "${chave}" pendente.`);
  for (const [chave, questao] of Object.entries(perguntas)) {
    if (!Object.hasOwn(respostas, chave)) problemas.push(`falta a resposta a "${chave}".`);
    else {
      const problema = problemaNaResposta(chave, questao, respostas[chave]);
      if (problema) problemas.push(problema);
    }
  }
  if (problemas.length > 0) return { erro: `Resposta recusada: ${problemas.join(' ')}` };
  // Rebuilt from what was checked: nothing else the client wrote reaches the server.
  const relayadas = Object.entries(respostas).map(([chave, resposta]) => {
    const { action, content } = objeto(resposta) ?? {};
    return [chave, { action, ...(action === 'accept' && content !== undefined ? { content } : {}) }];
  });
  return { respostas: Object.fromEntries(relayadas) as Respostas };
}

/** The client's answer to a paused Task, as MCP's inputResponses, or why it cannot be sent. */
export function lerRespostas(perguntas: Pausa['perguntas'], entrada: Entrada): { respostas: Respostas } | Ilegivel {
  const dados = objeto(entrada.dados);
  if (dados) {
    const respostas = objeto(dados.inputResponses);
    return respostas ? conferir(perguntas, respostas) : { erro: MENSAGEM_RESPOSTA_FORA_DO_FORMATO };
  }
  const chaves = Object.keys(perguntas);
  const [chave] = chaves;
  const texto = entrada.texto.trim();
  if (chaves.length !== 1 || chave === undefined) return { erro: MENSAGEM_RESPOSTA_FORA_DO_FORMATO };
  const so = (resposta: ElicitResult) => conferir(perguntas, { [chave]: resposta });
  if (texto === 'recusar') return so({ action: 'decline' });
  if (texto === 'pronto' && pedeUrl(perguntas)) return so({ action: 'accept' });
  const escolha = /^escolha=(.+)$/s.exec(texto)?.[1];
  const unico = campoUnico(perguntas);
  if (escolha === undefined || !unico) return { erro: MENSAGEM_RESPOSTA_FORA_DO_FORMATO };
  // Typed by the field's schema (escolha=true for a boolean); the schema check then names a value that does not fit.
  return so({ action: 'accept', content: { [unico.campo]: valorPeloTipo(escolha, unico.propriedade) as string } });
}
