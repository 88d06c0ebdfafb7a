/**
 * Preloaded into a child process (NODE_OPTIONS=--import=<this file>) by the
 * tests that check what a process loads: every module URL Node resolves,
 * static or dynamic, is appended, one a line, to the file CARREGADOS_EM
 * names. Plain JavaScript: the processes run their bundles with plain node,
 * without tsx.
 */
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';

// This file is its own hooks module: the copy loaded on the hooks thread carries the mark and registers nothing.
const MARCA = 'ganchos';
if (new URL(import.meta.url).search !== `?${MARCA}`) register(`${import.meta.url}?${MARCA}`, { data: process.env.CARREGADOS_EM });

let arquivo = '';

export function initialize(destino) {
  arquivo = destino;
}

export async function resolve(especificador, contexto, seguir) {
  const resolvido = await seguir(especificador, contexto);
  // Written before the module is loaded: once a request has been answered, its modules are all in the file.
  appendFileSync(arquivo, `${resolvido.url}\n`);
  return resolvido;
}
