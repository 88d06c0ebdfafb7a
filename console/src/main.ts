/**
 * The console page: the rooms (skill listar-salas), the booking form, the
 * Task as it happens (streamed when the card offers streaming), the pause
 * answered with a click, the outcome, and the Fio panel. Every word on the
 * screen about the booking is the agent's own.
 */
import { SendMessageRequest, taskStateToJSON, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { conectar, type Conexao } from './cliente.js';
import { Fio } from './fio.js';
import { conferirIntervalo, horaDe, paraIso } from './horario.js';

interface Sala {
  readonly id: string;
  readonly nome: string;
  readonly capacidade: number;
  readonly recursos: readonly string[];
}

function elemento<T extends HTMLElement>(id: string, tipo: new () => T): T {
  const achado = document.getElementById(id);
  if (!(achado instanceof tipo)) throw new Error(`a pagina nao tem #${id}`);
  return achado;
}

const tela = {
  acesso: elemento('acesso', HTMLElement),
  formAcesso: elemento('form-acesso', HTMLFormElement),
  token: elemento('token', HTMLInputElement),
  salas: elemento('salas', HTMLUListElement),
  form: elemento('reserva', HTMLFormElement),
  sala: elemento('sala', HTMLSelectElement),
  inicio: elemento('inicio', HTMLInputElement),
  fim: elemento('fim', HTMLInputElement),
  responsavel: elemento('responsavel', HTMLInputElement),
  aviso: elemento('aviso', HTMLParagraphElement),
  taskId: elemento('task-id', HTMLParagraphElement),
  estados: elemento('estados', HTMLOListElement),
  alternativas: elemento('alternativas', HTMLDivElement),
  resultado: elemento('resultado', HTMLDivElement),
};
const fio = new Fio(elemento('fio', HTMLOListElement));

const dadosDe = (partes: readonly Part[] = []): unknown => partes.find((parte) => parte.content?.$case === 'data')?.content?.value;
const textoDe = (partes: readonly Part[] = []) =>
  partes
    .map((parte) => (parte.content?.$case === 'text' ? parte.content.value : ''))
    .join(' ')
    .trim();

function pedido(dados: object, taskId?: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ data: dados, mediaType: 'application/json' }],
      ...(taskId ? { taskId } : {}),
    },
  });
}

/** The Task as the page last saw it, from a whole Task or from the events of a stream. */
class Acompanhamento {
  task: Task | undefined;
  /** The state last listed: a stream repeats it (the Task, then an artifact), the list does not. */
  private ultimo = '';

  aplicar(evento: StreamResponse['payload'] | { $case: 'task'; value: Task } | { $case: 'message'; value: Message }): void {
    if (!evento) return;
    if (evento.$case === 'task') this.task = evento.value;
    else if (evento.$case === 'statusUpdate' && this.task) this.task.status = evento.value.status;
    else if (evento.$case === 'artifactUpdate' && this.task && evento.value.artifact) this.task.artifacts.push(evento.value.artifact);
    else return;
    this.mostrarEstado();
  }

  private mostrarEstado(): void {
    const status = this.task?.status;
    if (!this.task || !status) return;
    tela.taskId.textContent = `Task ${this.task.id}`;
    const linha = `${horaDe(status.timestamp)} ${taskStateToJSON(status.state)}`;
    if (linha === this.ultimo || tela.estados.lastElementChild?.textContent === linha) return;
    this.ultimo = linha;
    const item = document.createElement('li');
    item.textContent = linha;
    tela.estados.append(item);
  }
}

/** The MCP exchanges of the Task already on the panel: after each step, only the new ones are added. */
const mcpMostradas = new Map<string, number>();

/** One step of the Task: the A2A request, then, once it is on the panel, the MCP requests the agent made for it meanwhile. */
async function enviar({ cliente, streaming, assentado, trocasMcp }: Conexao, dados: object, taskId?: string): Promise<Task | undefined> {
  const acompanhamento = new Acompanhamento();
  if (streaming) {
    for await (const evento of cliente.sendMessageStream(pedido(dados, taskId))) acompanhamento.aplicar(evento.payload);
  } else {
    const resposta = await cliente.sendMessage(pedido(dados, taskId));
    acompanhamento.aplicar('status' in resposta ? { $case: 'task', value: resposta } : { $case: 'message', value: resposta });
  }
  await assentado();
  const { task } = acompanhamento;
  if (task) {
    const trocas = await trocasMcp(task.id);
    for (const troca of trocas.slice(mcpMostradas.get(task.id) ?? 0)) fio.mostrar(troca);
    mcpMostradas.set(task.id, trocas.length);
  }
  return task;
}

function mostrarDesfecho(conexao: Conexao, task: Task | undefined): void {
  tela.alternativas.replaceChildren();
  tela.alternativas.hidden = true;
  tela.resultado.replaceChildren();
  if (!task?.status) return;
  const estado = taskStateToJSON(task.status.state);
  const mensagem = textoDe(task.status.message?.parts);
  if (estado === 'TASK_STATE_INPUT_REQUIRED') {
    const { alternativas } = (dadosDe(task.status.message?.parts) ?? {}) as { alternativas?: string[] };
    for (const escolha of [...(alternativas ?? []), 'recusar']) {
      const botao = document.createElement('button');
      botao.type = 'button';
      botao.textContent = escolha === 'recusar' ? 'Recusar' : escolha;
      botao.addEventListener('click', () => void responder(conexao, task.id, escolha));
      tela.alternativas.append(botao);
    }
    tela.alternativas.hidden = false;
    tela.alternativas.querySelector('button')?.focus();
    return;
  }
  const frase = document.createElement('p');
  frase.textContent = mensagem || estado;
  tela.resultado.append(frase);
  const artefato = task.artifacts.find((um) => um.name === 'reserva');
  if (estado === 'TASK_STATE_COMPLETED' && artefato) {
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify(dadosDe(artefato.parts), null, 2);
    tela.resultado.append(pre);
  }
}

/** A request the agent did not answer with a Task (network, HTTP or JSON-RPC error): said as it came. */
function mostrarFalha(erro: unknown): void {
  const frase = document.createElement('p');
  frase.textContent = `O agente nao respondeu: ${erro instanceof Error ? erro.message : String(erro)}`;
  tela.resultado.replaceChildren(frase);
}

async function responder(conexao: Conexao, taskId: string, escolha: string): Promise<void> {
  for (const botao of tela.alternativas.querySelectorAll('button')) botao.disabled = true;
  await enviar(conexao, { escolha }, taskId).then((task) => mostrarDesfecho(conexao, task), mostrarFalha);
}

async function listarSalas({ cliente }: Conexao): Promise<void> {
  const resposta = await cliente.sendMessage(pedido({ skill: 'listar-salas' }));
  const artefato = 'artifacts' in resposta ? resposta.artifacts.find((um) => um.name === 'salas') : undefined;
  const { salas = [] } = (dadosDe(artefato?.parts) ?? {}) as { salas?: Sala[] };
  tela.salas.replaceChildren();
  tela.sala.replaceChildren();
  for (const sala of salas) {
    const item = document.createElement('li');
    item.textContent = `${sala.nome} (${sala.id}): ${String(sala.capacidade)} pessoas, ${sala.recursos.join(', ') || 'sem recursos'}`;
    tela.salas.append(item);
    tela.sala.append(new Option(sala.id, sala.id));
  }
  tela.salas.setAttribute('aria-busy', 'false');
}

/** With AGENTE_TOKENS, the rooms wait for a token the agent accepts; a refused one is said, and the field stays. */
function pedirToken(conexao: Conexao): void {
  tela.acesso.hidden = false;
  tela.formAcesso.addEventListener('submit', (evento) => {
    evento.preventDefault();
    conexao.usarToken(tela.token.value.trim());
    listarSalas(conexao).then(() => {
      tela.acesso.hidden = true;
      tela.resultado.replaceChildren();
    }, mostrarFalha);
  });
  tela.token.focus();
}

async function iniciar(): Promise<void> {
  const conexao = await conectar((troca) => fio.mostrar(troca));
  if (conexao.exigeToken) pedirToken(conexao);
  else await listarSalas(conexao);
  tela.form.addEventListener('submit', (evento) => {
    evento.preventDefault();
    const problema =
      conferirIntervalo(tela.inicio.value, tela.fim.value) ?? (tela.responsavel.value.trim() ? undefined : 'Diga quem é o responsável.');
    tela.aviso.textContent = problema ?? '';
    if (problema) return;
    fio.limpar();
    tela.estados.replaceChildren();
    void enviar(conexao, {
      sala: tela.sala.value,
      inicio: paraIso(tela.inicio.value),
      fim: paraIso(tela.fim.value),
      responsavel: tela.responsavel.value.trim(),
    }).then((task) => mostrarDesfecho(conexao, task), mostrarFalha);
  });
}

void iniciar().catch(mostrarFalha);
