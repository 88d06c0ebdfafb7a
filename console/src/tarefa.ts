/**
 * The Task panel, the same for every agent: the Task's states as they
 * happen (streamed when the card offers streaming), WORKING's progress
 * messages, a running call's Cancelar tarefa, a paused Task's questions as
 * forms (or as the profile draws them: the rooms' alternative buttons), and
 * the outcome with its artifacts. Every word about the Task is the agent's.
 */
import { taskStateToJSON, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { ElicitRequestParams, ElicitResult, InputRequests, InputResponses } from '@modelcontextprotocol/client';
import type { Conexao } from './cliente.js';
import type { Fio } from './fio.js';
import { formularioDe, type Formulario } from './formulario.js';
import { horaDe } from './horario.js';
import { botao, dadosDe, desligarBotoes, elemento, estadoDe, focarPrimeiro, frase, mensagemDeFalha, pedido, textoDe } from './pagina.js';
import { desenharParte, link } from './partes.js';

/** What a profile draws its own way; what it leaves undefined, the panel draws for any server. */
export interface Vista {
  /** A paused Task's question (the rooms: a button per alternative). */
  pergunta?(task: Task, responder: (dados: object) => void): HTMLElement | undefined;
  /** A finished Task's outcome (the rooms: the sentence and the booking). */
  resultado?(task: Task): HTMLElement[] | undefined;
}

const TERMINAIS = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

/** The questions of a pause's data part (MCP's inputRequests: the agent relays only elicitations), and why the last answer was refused. */
function questoesDe(task: Task): { questoes: [string, Partial<ElicitRequestParams>][]; erro?: string } {
  const dados = (dadosDe(task.status?.message?.parts) ?? {}) as { inputRequests?: InputRequests; erro?: unknown };
  const questoes = Object.entries(dados.inputRequests ?? {}).map(([chave, pedido]): [string, Partial<ElicitRequestParams>] => [
    chave,
    pedido.method === 'elicitation/create' ? pedido.params : {},
  ]);
  return { questoes, ...(typeof dados.erro === 'string' ? { erro: dados.erro } : {}) };
}

export class Painel {
  private readonly taskId = elemento('task-id', HTMLParagraphElement);
  private readonly estados = elemento('estados', HTMLOListElement);
  private readonly progresso = elemento('progresso', HTMLOListElement);
  private readonly cancelar = elemento('cancelar-tarefa', HTMLButtonElement);
  private readonly pergunta = elemento('pergunta', HTMLDivElement);
  private readonly resultado = elemento('resultado', HTMLDivElement);
  private task: Task | undefined;
  /** A step on its way: a second one would share the Task and the Fio with it. */
  private ocupado = false;
  /** The state last listed: a stream repeats it (the Task, then an artifact), the list does not. */
  private ultimo = '';
  /** The questions on screen: the same ones asked again (an answer refused) keep what the person typed. */
  private aberta: { readonly chave: string; readonly aviso: HTMLElement; readonly form: HTMLFormElement } | undefined;

  constructor(
    private readonly conexao: Conexao,
    private readonly fio: Fio,
    private readonly vista: Vista = {},
  ) {
    this.cancelar.addEventListener('click', () => {
      const id = this.task?.id;
      if (!id) return;
      this.cancelar.disabled = true;
      this.conexao.cliente.cancelTask({ id, tenant: '', metadata: {} }).catch((erro: unknown) => this.falha(erro));
    });
  }

  /** A new Task: the panel and the Fio start over. Undefined, without sending, while another step is on its way. */
  async iniciar(dados: object): Promise<Task | undefined> {
    if (this.ocupado) return undefined;
    this.fio.limpar();
    this.estados.replaceChildren();
    this.taskId.textContent = '';
    this.ultimo = '';
    this.pergunta.replaceChildren();
    this.aberta = undefined;
    return this.passo(dados);
  }

  /** One step: the A2A request, the Task as it comes, then the MCP requests the agent made for it, then the outcome. */
  private async passo(dados: object, taskId?: string): Promise<Task | undefined> {
    if (this.ocupado) return undefined;
    this.ocupado = true;
    try {
      return await this.darPasso(dados, taskId);
    } finally {
      this.ocupado = false;
    }
  }

  private async darPasso(dados: object, taskId?: string): Promise<Task | undefined> {
    this.resultado.replaceChildren();
    this.progresso.replaceChildren();
    this.progresso.hidden = true;
    this.task = undefined;
    const { cliente, streaming, assentado, trocasMcp } = this.conexao;
    try {
      if (streaming) {
        for await (const evento of cliente.sendMessageStream(pedido(dados, taskId))) this.aplicar(evento.payload);
      } else {
        const resposta = await cliente.sendMessage(pedido(dados, taskId));
        this.aplicar('status' in resposta ? { $case: 'task', value: resposta } : { $case: 'message', value: resposta });
      }
    } catch (erro) {
      this.falha(erro);
      // The answer never arrived: the question stays, answerable again.
      desligarBotoes(this.pergunta, false);
      return undefined;
    } finally {
      this.cancelar.hidden = true;
    }
    await assentado();
    // Set by the events above (TypeScript keeps the undefined it was set to before them).
    const task = this.task as Task | undefined;
    if (task) {
      this.fio.mostrarDoPasso(task.id, await trocasMcp(task.id));
    }
    this.mostrarDesfecho(task);
    return task;
  }

  /** The same questions as those on screen, refused with `erro`: the form stays as the person left it, with the reason. */
  private mesmaPergunta(task: Task): boolean {
    const { questoes, erro } = questoesDe(task);
    const aberta = this.aberta;
    if (!aberta || aberta.chave !== `${task.id} ${JSON.stringify(questoes)}`) return false;
    aberta.aviso.textContent = erro ?? '';
    desligarBotoes(aberta.form, false);
    return true;
  }

  private aplicar(evento: StreamResponse['payload'] | { $case: 'task'; value: Task } | { $case: 'message'; value: Message }): void {
    if (!evento) return;
    if (evento.$case === 'task') this.task = evento.value;
    else if (evento.$case === 'statusUpdate' && this.task) {
      this.task.status = evento.value.status;
      this.progredir();
    } else if (evento.$case === 'artifactUpdate' && this.task && evento.value.artifact)
      this.juntar(evento.value.artifact, evento.value.append);
    else return;
    this.mostrarEstado();
  }

  /** An artifact that streams in chunks (`append`) grows the one of the same id; any other is added. */
  private juntar(artefato: Task['artifacts'][number], append: boolean): void {
    const anterior = append ? this.task?.artifacts.find(({ artifactId }) => artifactId === artefato.artifactId) : undefined;
    if (anterior) anterior.parts.push(...artefato.parts);
    else this.task?.artifacts.push(artefato);
  }

  /** A WORKING update with words: the call's progress, listed as it streams. */
  private progredir(): void {
    const status = this.task?.status;
    const texto = textoDe(status?.message?.parts);
    if (!texto || estadoDe(this.task) !== 'TASK_STATE_WORKING') return;
    const item = document.createElement('li');
    item.textContent = texto;
    this.progresso.append(item);
    this.progresso.hidden = false;
  }

  private mostrarEstado(): void {
    const { task } = this;
    const status = task?.status;
    if (!task || !status) return;
    // A running call can be cancelled: the button shows from the first event of a stream to its end, and is pressed once.
    if (this.taskId.textContent !== `Task ${task.id}`) this.cancelar.disabled = false;
    this.taskId.textContent = `Task ${task.id}`;
    this.cancelar.hidden = TERMINAIS.has(estadoDe(task)) || !this.conexao.streaming;
    const linha = `${horaDe(status.timestamp)} ${taskStateToJSON(status.state)}`;
    if (linha === this.ultimo || this.estados.lastElementChild?.textContent === linha) return;
    this.ultimo = linha;
    const item = document.createElement('li');
    item.textContent = linha;
    this.estados.append(item);
  }

  private mostrarDesfecho(task: Task | undefined): void {
    if (!task?.status) return;
    const estado = estadoDe(task);
    if (estado === 'TASK_STATE_INPUT_REQUIRED' || estado === 'TASK_STATE_AUTH_REQUIRED') {
      this.fio.pausou();
      // Refused: the reason is announced (role alert) and the focus goes back to the form's first field.
      if (this.mesmaPergunta(task)) {
        if (this.aberta) focarPrimeiro(this.aberta.form, false);
        return;
      }
      const responder = (dados: object) => void this.passo(dados, task.id);
      this.aberta = undefined;
      const propria = this.vista.pergunta?.(task, responder);
      this.pergunta.replaceChildren(propria ?? this.perguntas(task, responder));
      focarPrimeiro(this.pergunta);
      return;
    }
    this.pergunta.replaceChildren();
    this.aberta = undefined;
    const propria = this.vista.resultado?.(task);
    if (propria) {
      this.resultado.replaceChildren(...propria);
      return;
    }
    // The outcome region is live: what it says is announced without taking the focus from where the person is.
    this.resultado.replaceChildren(frase(task));
    for (const artefato of task.artifacts) {
      const bloco = document.createElement('figure');
      bloco.className = 'artefato';
      const legenda = document.createElement('figcaption');
      legenda.textContent = artefato.name || artefato.artifactId;
      bloco.append(legenda, ...artefato.parts.map((parte) => desenharParte(parte, artefato.name || 'artefato')));
      this.resultado.append(bloco);
    }
  }

  /**
   * A paused Task's questions as MCP asked them: a form per question (its
   * message as heading), answered together with Responder (accept, with
   * each form's content), Recusar (decline) or Cancelar (cancel); a URL to
   * visit (AUTH_REQUIRED) is a link and Pronto. Why the last answer was
   * refused is said above the buttons.
   */
  private perguntas(task: Task, responder: (dados: object) => void): HTMLElement {
    const { questoes, erro } = questoesDe(task);
    const form = document.createElement('form');
    form.className = 'perguntas';
    form.noValidate = true;
    const formularios: [string, Formulario | undefined][] = [];
    for (const [chave, questao] of questoes) {
      const grupo = document.createElement('fieldset');
      const titulo = document.createElement('legend');
      titulo.textContent = questao.message ?? chave;
      grupo.append(titulo);
      if (questao.mode === 'url' && questao.url) {
        grupo.append(link(questao.url, questao.url));
        formularios.push([chave, undefined]);
      } else {
        const formulario = formularioDe('requestedSchema' in questao ? questao.requestedSchema : undefined);
        grupo.append(...formulario.campos);
        formularios.push([chave, formulario]);
      }
      form.append(grupo);
    }
    const aviso = document.createElement('p');
    aviso.className = 'aviso';
    aviso.setAttribute('role', 'alert');
    aviso.textContent = erro ?? '';
    this.aberta = { chave: `${task.id} ${JSON.stringify(questoes)}`, aviso, form };
    const todas = (action: ElicitResult['action']): InputResponses => Object.fromEntries(questoes.map(([chave]) => [chave, { action }]));
    const enviar = (inputResponses: InputResponses) => {
      desligarBotoes(form);
      responder({ inputResponses });
    };
    const soUrl = formularios.every(([, formulario]) => formulario === undefined);
    form.addEventListener('submit', (evento) => {
      evento.preventDefault();
      const respostas: InputResponses = {};
      for (const [chave, formulario] of formularios) {
        const lido = formulario?.ler() ?? { valores: undefined };
        if ('erro' in lido) {
          aviso.textContent = lido.erro;
          return;
        }
        respostas[chave] = { action: 'accept', ...(lido.valores ? { content: lido.valores as ElicitResult['content'] } : {}) };
      }
      enviar(respostas);
    });
    const aceitar = document.createElement('button');
    aceitar.type = 'submit';
    aceitar.textContent = soUrl ? 'Pronto' : 'Responder';
    const botoes = document.createElement('div');
    botoes.className = 'botoes';
    botoes.append(
      aceitar,
      botao('Recusar', () => enviar(todas('decline'))),
      botao('Cancelar', () => enviar(todas('cancel'))),
    );
    form.append(aviso, botoes);
    return form;
  }

  /** A request the agent did not answer with a Task (network, HTTP or JSON-RPC error): said as it came. */
  falha(erro: unknown): void {
    const p = document.createElement('p');
    p.textContent = mensagemDeFalha(erro);
    this.resultado.replaceChildren(p);
  }
}
