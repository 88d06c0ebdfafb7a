import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { Agenda } from './dominio/agenda.js';
import { lerPolitica } from './dominio/politica.js';

const Salas = z.array(
  z.object({ id: z.string(), nome: z.string(), capacidade: z.number().int().positive(), recursos: z.array(z.string()) }),
);
const Reservas = z.array(
  z.object({ id: z.string(), sala: z.string(), inicio: z.string(), fim: z.string(), responsavel: z.string() }),
);

/** Reads dados/ once at start; a broken file stops the process before it listens. */
export function carregarAgenda(pasta: string): Agenda {
  const ler = (arquivo: string) => readFileSync(join(pasta, arquivo), 'utf8');
  const salas = Salas.parse(JSON.parse(ler('salas.json')));
  const reservas = Reservas.parse(JSON.parse(ler('reservas.json')));
  return new Agenda(salas, reservas, lerPolitica(ler('politica-de-uso.md')));
}
