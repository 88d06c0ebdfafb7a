/** The reference data of dados/, read and checked as the MCP server reads it: for the tests, the load and the bench. */
import { readFileSync } from 'node:fs';
import { Sala } from 'compartilhado/contrato';
import { lerPolitica } from '../servidor-mcp/src/dominio/politica.js';
import { lerSemente, type Reserva } from '../servidor-mcp/src/dominio/regras.js';

export const lerDados = (arquivo: string) => readFileSync(new URL(`../dados/${arquivo}`, import.meta.url), 'utf8');

const leitura = lerPolitica(lerDados('politica-de-uso.md'));
if (!leitura.ok) throw new Error(leitura.motivo);
export const politica = leitura.politica;

export const listaDeSalas: readonly Sala[] = Sala.array().parse(JSON.parse(lerDados('salas.json')));
export const salas: ReadonlyMap<string, Sala> = new Map(listaDeSalas.map((sala) => [sala.id, sala]));

export const reservasIniciais: readonly Reserva[] = JSON.parse(lerDados('reservas.json')) as Reserva[];
const semente = lerSemente(salas, reservasIniciais);
if (!semente.ok) throw new Error(semente.motivo);
export const ocupacoesIniciais = semente.ocupacoes;

export const idsDasSalas: readonly string[] = listaDeSalas.map((sala) => sala.id);

/**
 * The i-th slot of a grid that walks the rooms, then the hours from 08:00 to
 * 18:00, then the days from `desde`: a slot never comes twice, and every one
 * is inside the policy's window (for `minutos` of 60 or less).
 */
export function vaga(i: number, desde: string, minutos: number): { sala: string; inicio: string; fim: string } {
  const salas = idsDasSalas.length;
  const sala = idsDasSalas[i % salas];
  if (sala === undefined) throw new Error('dados/salas.json sem salas');
  const porDia = salas * 11;
  const dia = new Date(Date.parse(`${desde}T00:00:00Z`) + Math.floor(i / porDia) * 86_400_000).toISOString().slice(0, 10);
  const hora = String(8 + (Math.floor(i / salas) % 11)).padStart(2, '0');
  return {
    sala,
    inicio: `${dia}T${hora}:00:00-03:00`,
    fim: `${dia}T${hora}:${String(minutos).padStart(2, '0')}:00-03:00`,
  };
}
