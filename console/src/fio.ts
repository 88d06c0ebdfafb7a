/**
 * The Fio panel as a sequence diagram: a lane for the page, the agent and
 * each MCP server; each exchange one arrow for its request and one for its
 * answer, in order, the MCP requests the agent made for a step drawn
 * between that step's request and its answer, a pause drawn as a gap.
 * Each arrow names the JSON-RPC method and id, its answer the duration
 * (and, with the agent's telemetry on, the trace id to look up); clicking
 * an arrow opens its JSON, with every requestState sealed. Drawn with
 * HTML and CSS: each exchange is a list item, so the panel reads as a list
 * too, each with a one-line title.
 */
import { selarTexto, type Troca } from 'compartilhado/fio';
import { lerJson } from 'compartilhado/json';
import { desfechoDoResultado, objeto } from 'compartilhado/log';

/** An exchange as the page saw it: an A2A one also carries when it started, on the page's clock. */
export type TrocaDaPagina = Troca & { readonly inicio?: number };

/** A body's JSON texts: a stream's, one per event (its `data:` line); any other body, itself. */
function jsonsDe(texto: string): string[] {
  const eventos = texto
    .split(/\n\n+/)
    .map((bloco) => /^data: (.*)$/m.exec(bloco)?.[1])
    .filter((dados) => dados !== undefined);
  return eventos.length > 0 ? eventos : [texto];
}

/** A body as the panel shows it: JSON indented with its states sealed; a stream, one event per block. */
export function corpoParaOFio(texto: string): string {
  return jsonsDe(texto)
    .map((json) => selarTexto(json, 2))
    .join('\n\n');
}

/** The one-line title of an exchange, as the panel's list reads it. */
function titulo(troca: Troca): string {
  const detalhes = [
    `id=${troca.id}`,
    ...(troca.traceparent ? [`traceparent=${troca.traceparent}`] : []),
    ...(troca.http ? [`http=${String(troca.http)}`] : []),
    `${troca.ms.toFixed(1)} ms`,
    ...(troca.traceId ? [`trace_id=${troca.traceId}`] : []),
  ];
  return `${troca.protocolo} ${troca.metodo} ${detalhes.join(' ')}`;
}

/** What a tools/call asks: its tool, and whether it is the retry of an answer (inputResponses). */
function doPedido(troca: Troca): string {
  if (troca.metodo !== 'tools/call') return '';
  try {
    const params = (JSON.parse(troca.pedido) as { params?: { name?: unknown; inputResponses?: unknown } }).params;
    const nome = typeof params?.name === 'string' ? ` ${params.name}` : '';
    return params?.inputResponses === undefined ? nome : `${nome} + inputResponses`;
  } catch {
    return '';
  }
}

/** What an MCP answer says in a word, as the agent's log line says it: its error code, or the result's outcome. */
function daResposta(troca: Troca): string {
  if (troca.protocolo !== 'MCP' || troca.pendente) return '';
  const resposta = objeto(lerJson(jsonsDe(troca.resposta).at(-1) ?? ''));
  if (!resposta) return '';
  const erro = objeto(resposta.error);
  return erro ? `erro ${String(erro.code)}` : desfechoDoResultado(resposta.result);
}

/** The A2A methods that make a step of a Task (the MCP requests the agent makes are drawn inside them). */
const PASSOS = new Set(['SendMessage', 'SendStreamingMessage']);

/** A request or an answer of an MCP exchange, at its place in the agent's order. */
interface Evento {
  /** The exchange's place: its request's number. */
  readonly chave: number;
  readonly em: number;
  readonly tipo: 'pedido' | 'resposta';
  readonly troca: Troca;
}

export class Fio {
  private readonly faixas: string[];
  /** Each Task's MCP exchanges already drawn, by the place of their request: the request alone, or the answer too. */
  private readonly desenhadas = new Map<string, Map<number, 'pedido' | 'resposta'>>();
  /** The last A2A step drawn: where the MCP requests it made go, and whether it ended paused. */
  private passo: { readonly dentro: HTMLOListElement; fim: number; pausou: boolean } | undefined;

  /** `servidores`: the MCP servers' names, a lane each (the room agent's single one has none in the card). */
  constructor(
    private readonly lista: HTMLOListElement,
    cabecalho: HTMLElement,
    servidores: readonly string[],
  ) {
    this.faixas = ['Página', 'Agente', ...(servidores.length > 0 ? servidores.map((nome) => `MCP ${nome}`) : ['Servidor MCP'])];
    cabecalho.replaceChildren(
      ...this.faixas.map((nome) => {
        const faixa = document.createElement('span');
        faixa.textContent = nome;
        return faixa;
      }),
    );
    const n = this.faixas.length;
    for (const alvo of [cabecalho, lista]) alvo.style.setProperty('--faixas', String(n));
    // The lifelines: one thin vertical line at the middle of each lane.
    lista.style.backgroundImage = this.faixas.map(() => 'linear-gradient(#c8c8c8, #c8c8c8)').join(', ');
    lista.style.backgroundPosition = this.faixas.map((_, i) => `${String(((i + 0.5) / n) * 100)}% 0`).join(', ');
  }

  limpar(): void {
    this.lista.replaceChildren();
    this.passo = undefined;
    this.desenhadas.clear();
  }

  /** An A2A exchange of the page with the agent. */
  mostrar(troca: TrocaDaPagina): void {
    if (this.passo?.pausou && troca.inicio !== undefined) this.lista.append(this.vao((troca.inicio - this.passo.fim) / 1000));
    const { item, dentro } = this.item(troca, 0, 1);
    // Drawn when it ends, placed where it began: a stream that ends after the CancelTask sent during it goes above it.
    const inicio = troca.inicio ?? performance.now();
    item.dataset.inicio = String(inicio);
    const depois = [...this.lista.querySelectorAll<HTMLLIElement>(':scope > li.troca.a2a')].find(
      (outro) => Number(outro.dataset.inicio) > inicio,
    );
    this.lista.insertBefore(item, depois ?? null);
    // Only a message is a step of the Task: a CancelTask answered after the stream it cut short holds none of its MCP calls.
    if (PASSOS.has(troca.metodo)) this.passo = { dentro, fim: inicio + troca.ms, pausou: false };
  }

  /**
   * The Task's MCP exchanges not yet drawn, inside the last step, in the
   * order they happened: a request and its answer side by side when nothing
   * came between them; apart when something did, or when the answer came in
   * a later step (a session's call waiting on the person's answer).
   */
  mostrarDoPasso(taskId: string, trocas: readonly Troca[]): void {
    const desenhadas = this.desenhadas.get(taskId) ?? new Map<number, 'pedido' | 'resposta'>();
    this.desenhadas.set(taskId, desenhadas);
    const eventos: Evento[] = [];
    // The agent numbers every request and answer it notes, in one count (pedidoEm, respostaEm): the order they happened.
    for (const troca of trocas) {
      const { pedidoEm: chave = 0, respostaEm = chave } = troca;
      const ja = desenhadas.get(chave);
      if (ja === undefined) eventos.push({ chave, em: chave, tipo: 'pedido', troca });
      if (ja !== 'resposta' && !troca.pendente) eventos.push({ chave, em: respostaEm, tipo: 'resposta', troca });
    }
    eventos.sort((a, b) => a.em - b.em);
    const dentro = this.passo?.dentro ?? this.lista;
    for (let i = 0; i < eventos.length; i++) {
      const evento = eventos[i];
      if (!evento) continue;
      const seguida = evento.tipo === 'pedido' && eventos[i + 1]?.chave === evento.chave;
      dentro.append(this.itemMcp(evento.troca, seguida ? 'inteira' : evento.tipo));
      if (seguida) i++;
      desenhadas.set(evento.chave, seguida || evento.tipo === 'resposta' ? 'resposta' : 'pedido');
    }
  }

  /** An MCP exchange's item: whole, or only its request (its answer not yet come, or not next), or only its answer. */
  private itemMcp(troca: Troca, parte: 'inteira' | 'pedido' | 'resposta'): HTMLLIElement {
    const servidor = this.faixaDoServidor(troca.servidor);
    const [de, ate] = troca.sentido === 'recebida' ? [servidor, 1] : [1, servidor];
    const { item, pedido, resposta } = this.item(troca, de, ate);
    if (parte === 'pedido') {
      resposta.remove();
      this.titulo(item).textContent = `${troca.protocolo} ${troca.metodo} id=${troca.id} aguardando resposta`;
    } else if (parte === 'resposta') {
      pedido.remove();
      item.classList.add('resposta-tardia');
      this.titulo(item).textContent = `${troca.protocolo} resposta de ${troca.metodo} id=${troca.id} ${troca.ms.toFixed(1)} ms`;
    }
    return item;
  }

  private titulo(item: HTMLLIElement): HTMLElement {
    return item.querySelector('.titulo') ?? item;
  }

  /** The last step left the Task waiting for the person: the next one is drawn after a gap. */
  pausou(): void {
    if (this.passo) this.passo.pausou = true;
  }

  private faixaDoServidor(nome: string | undefined): number {
    const achada = nome === undefined ? -1 : this.faixas.indexOf(`MCP ${nome}`);
    return achada === -1 ? 2 : achada;
  }

  private item(
    troca: Troca,
    de: number,
    ate: number,
  ): { item: HTMLLIElement; dentro: HTMLOListElement; pedido: HTMLElement; resposta: HTMLElement } {
    const item = document.createElement('li');
    item.className = `troca ${troca.protocolo.toLowerCase()}`;
    const linha = document.createElement('p');
    linha.className = 'titulo';
    linha.textContent = titulo(troca);
    const rotulo = `${troca.metodo}${doPedido(troca)} id=${troca.id}`;
    const resposta = [
      `resposta ${troca.metodo} id=${troca.id}`,
      ...(daResposta(troca) ? [daResposta(troca)] : []),
      `${troca.ms.toFixed(1)} ms`,
      ...(troca.http ? [`HTTP ${String(troca.http)}`] : []),
      ...(troca.traceId ? [`trace_id=${troca.traceId}`] : []),
    ].join(' · ');
    const dentro = document.createElement('ol');
    dentro.className = 'dentro';
    const ida = this.seta('pedido', rotulo, de, ate, troca.pedido);
    const volta = this.seta('resposta', resposta, ate, de, troca.resposta);
    item.append(linha, ida, dentro, volta);
    return { item, dentro, pedido: ida, resposta: volta };
  }

  /** One arrow from lane `de` to lane `ate` (a request's solid, an answer's dashed); its summary is the arrow, its body the JSON. */
  private seta(tipo: 'pedido' | 'resposta', rotulo: string, de: number, ate: number, corpo: string): HTMLDetailsElement {
    const n = this.faixas.length;
    const detalhes = document.createElement('details');
    detalhes.className = `seta ${tipo} ${ate > de ? 'direita' : 'esquerda'}`;
    detalhes.style.setProperty('--esq', `${String(((Math.min(de, ate) + 0.5) / n) * 100)}%`);
    detalhes.style.setProperty('--larg', `${String((Math.abs(ate - de) / n) * 100)}%`);
    const resumo = document.createElement('summary');
    const texto = document.createElement('span');
    texto.className = 'rotulo';
    texto.textContent = rotulo;
    const traco = document.createElement('span');
    traco.className = 'traco';
    traco.setAttribute('aria-hidden', 'true');
    resumo.append(texto, traco);
    const pre = document.createElement('pre');
    pre.textContent = corpoParaOFio(corpo);
    detalhes.append(resumo, pre);
    return detalhes;
  }

  private vao(segundos: number): HTMLLIElement {
    const item = document.createElement('li');
    item.className = 'vao';
    item.textContent = `pausa: a Task esperou a resposta por ${segundos.toFixed(1)} s`;
    return item;
  }
}
