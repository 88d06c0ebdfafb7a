/**
 * Reads dados/ once at start and opens the agenda over the configured store.
 * A broken file or an unreachable database stops the process before it
 * listens, with one line that says which (a database still starting is
 * waited for first, with DB_WAIT_SECONDS).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PedidoDeReserva, Sala } from 'compartilhado/contrato';
import { esperarPostgres } from 'compartilhado/espera';
import * as z from 'zod';
import { Agenda } from './agenda.js';
import { lerPolitica } from './dominio/politica.js';
import { lerSemente } from './dominio/regras.js';
import { ReservasEmMemoria } from './reservas/memoria.js';
import { ReservasNoPostgres } from './reservas/postgres.js';

const Salas = z.array(Sala);
const Reservas = z.array(PedidoDeReserva.extend({ id: z.string() }));

export interface OpcoesDaAgenda {
  readonly pastaDeDados: string;
  /** RESERVAS_DB: a postgres:// URL; undefined keeps bookings in memory. */
  readonly banco?: string | undefined;
  /** A connection the database dropped while idle (the server keeps serving). */
  readonly aoPerderConexao?: (erro: Error) => void;
  /** How long a database that does not answer yet is waited for (0: not at all), each try told to `log`. */
  readonly esperaDoBancoMs?: number;
  readonly log?: (linha: string) => void;
}

export async function abrirAgenda({
  pastaDeDados,
  banco,
  aoPerderConexao = () => undefined,
  esperaDoBancoMs = 0,
  log = () => undefined,
}: OpcoesDaAgenda): Promise<Agenda> {
  const ler = (arquivo: string) => readFileSync(join(pastaDeDados, arquivo), 'utf8');
  const salas = new Map(Salas.parse(JSON.parse(ler('salas.json'))).map((sala) => [sala.id, sala]));
  const politica = lerPolitica(ler('politica-de-uso.md'));
  if (!politica.ok) throw new Error(politica.motivo);
  const semente = lerSemente(salas, Reservas.parse(JSON.parse(ler('reservas.json'))));
  if (!semente.ok) throw new Error(`reservas.json: ${semente.motivo}`);
  if (banco) await esperarPostgres(banco, esperaDoBancoMs, 'RESERVAS_DB', log);
  const reservas = banco
    ? await ReservasNoPostgres.abrir(banco, semente.ocupacoes, aoPerderConexao)
    : new ReservasEmMemoria(semente.ocupacoes);
  return new Agenda(salas, politica.politica, reservas);
}
