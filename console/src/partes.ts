/**
 * An artifact's parts as a person sees them: text as text (Markdown drawn
 * when its media type says so, built as DOM nodes, never as HTML), images
 * and audio inline from their bytes, a file as a download, a link as a
 * link, data as a JSON tree that opens level by level.
 */
import type { Part } from '@a2a-js/sdk';

function base64(bytes: Uint8Array): string {
  let binario = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binario += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binario);
}

/** Only http(s) links are made clickable, in a new tab: a `javascript:` or `data:` URL stays text. */
export function link(texto: string, endereco: string): HTMLElement {
  if (!/^https?:\/\//i.test(endereco)) {
    const simples = document.createElement('span');
    simples.textContent = `${texto} (${endereco})`;
    return simples;
  }
  const a = document.createElement('a');
  a.href = endereco;
  a.textContent = texto;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  return a;
}

/** Inline Markdown: `code`, **bold**, *italic* and [links](https://...), as text nodes and elements. */
function emLinha(texto: string): Node[] {
  const nos: Node[] = [];
  const padrao = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let ultimo = 0;
  for (const achado of texto.matchAll(padrao)) {
    nos.push(document.createTextNode(texto.slice(ultimo, achado.index)));
    const [, codigo, forte, enfase, rotulo, endereco] = achado;
    const elemento =
      codigo !== undefined
        ? Object.assign(document.createElement('code'), { textContent: codigo })
        : forte !== undefined
          ? Object.assign(document.createElement('strong'), { textContent: forte })
          : enfase !== undefined
            ? Object.assign(document.createElement('em'), { textContent: enfase })
            : link(rotulo ?? '', endereco ?? '');
    nos.push(elemento);
    ultimo = achado.index + achado[0].length;
  }
  nos.push(document.createTextNode(texto.slice(ultimo)));
  return nos;
}

/** Block Markdown: headings, lists, fenced code and paragraphs. */
function markdown(texto: string): HTMLElement {
  const caixa = document.createElement('div');
  caixa.className = 'markdown';
  const linhas = texto.split(/\r?\n/);
  let lista: HTMLElement | undefined;
  for (let i = 0; i < linhas.length; i++) {
    const linha = linhas[i] ?? '';
    if (linha.startsWith('```')) {
      const fim = linhas.indexOf('```', i + 1);
      const pre = document.createElement('pre');
      pre.textContent = linhas.slice(i + 1, fim === -1 ? undefined : fim).join('\n');
      caixa.append(pre);
      i = fim === -1 ? linhas.length : fim;
      lista = undefined;
      continue;
    }
    const titulo = /^(#{1,6})\s+(.*)$/.exec(linha);
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(linha);
    if (item) {
      lista ??= caixa.appendChild(document.createElement(/^\s*\d/.test(linha) ? 'ol' : 'ul'));
      const li = document.createElement('li');
      li.append(...emLinha(item[1] ?? ''));
      lista.append(li);
      continue;
    }
    lista = undefined;
    if (titulo) {
      // Inside the Task's section (h2) and its result: a heading of the tool's text starts at h4.
      const nivel = Math.min(6, 3 + (titulo[1]?.length ?? 1));
      const h = document.createElement(`h${String(nivel)}`);
      h.append(...emLinha(titulo[2] ?? ''));
      caixa.append(h);
    } else if (linha.trim()) {
      const p = document.createElement('p');
      p.append(...emLinha(linha));
      caixa.append(p);
    }
  }
  return caixa;
}

/** A JSON value as a tree: objects and arrays open level by level, the first level open. */
export function arvoreJson(valor: unknown, rotulo = 'dados', aberto = true): HTMLElement {
  if (typeof valor !== 'object' || valor === null) {
    const folha = document.createElement('div');
    folha.className = 'folha';
    const chave = document.createElement('span');
    chave.className = 'chave';
    chave.textContent = `${rotulo}: `;
    folha.append(chave, valor === undefined ? 'undefined' : JSON.stringify(valor));
    return folha;
  }
  const entradas = Object.entries(valor);
  const detalhes = document.createElement('details');
  detalhes.className = 'json';
  detalhes.open = aberto;
  const resumo = document.createElement('summary');
  resumo.textContent = `${rotulo} ${Array.isArray(valor) ? `[${String(entradas.length)}]` : `{${String(entradas.length)}}`}`;
  detalhes.append(resumo, ...entradas.map(([chave, dentro]) => arvoreJson(dentro, chave, false)));
  return detalhes;
}

/** One part, drawn. */
export function desenharParte(parte: Part, nome: string): HTMLElement {
  const { content, mediaType, filename } = parte;
  switch (content?.$case) {
    case 'text': {
      // The media type without its parameters (`text/markdown; charset=utf-8`).
      if (mediaType.split(';')[0]?.trim().toLowerCase() === 'text/markdown') return markdown(content.value);
      const p = document.createElement('p');
      p.className = 'texto';
      p.textContent = content.value;
      return p;
    }
    case 'raw': {
      // The SDK types the bytes as Node's Buffer; in the browser they are a Uint8Array.
      const bytes = content.value as Uint8Array;
      const tipo = mediaType || 'application/octet-stream';
      const emBase64 = base64(bytes);
      const endereco = `data:${tipo};base64,${emBase64}`;
      if (tipo.startsWith('image/')) {
        const img = document.createElement('img');
        img.src = endereco;
        img.alt = filename || `imagem de ${nome}`;
        return img;
      }
      if (tipo.startsWith('audio/')) {
        const audio = document.createElement('audio');
        audio.controls = true;
        audio.src = endereco;
        audio.setAttribute('aria-label', filename || `audio de ${nome}`);
        return audio;
      }
      // Downloaded as bytes, whatever type the server named: the browser never opens it as a page.
      const baixar = document.createElement('a');
      baixar.href = `data:application/octet-stream;base64,${emBase64}`;
      baixar.download = filename || nome;
      baixar.textContent = `Baixar ${filename || nome} (${tipo}, ${String(bytes.length)} bytes)`;
      return baixar;
    }
    case 'url': {
      const p = document.createElement('p');
      p.append(link(filename || content.value, content.value));
      return p;
    }
    case 'data':
      return arvoreJson(content.value);
    default: {
      const vazio = document.createElement('p');
      vazio.textContent = '(parte vazia)';
      return vazio;
    }
  }
}
