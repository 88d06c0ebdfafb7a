/**
 * Bookings in this process's memory: each room's bookings sorted by start,
 * so a lookup costs a binary search plus the conflicts it returns. Lost on
 * restart and private to one process: the course's default.
 */
import {
  idDaReserva,
  numeroDaReserva,
  sobrepoe,
  type DadosDaReserva,
  type Intervalo,
  type Ocupacao,
  type Reserva,
} from '../dominio/regras.js';
import type { Insercao, Reservas } from './reservas.js';

/** The first index of `lista` whose item satisfies `depois`, which must be false then true along the list. */
function primeiroIndice<T>(lista: readonly T[], depois: (item: T) => boolean): number {
  let baixo = 0;
  let alto = lista.length;
  while (baixo < alto) {
    const meio = (baixo + alto) >>> 1;
    const item = lista[meio];
    if (item === undefined || depois(item)) alto = meio;
    else baixo = meio + 1;
  }
  return baixo;
}

export class ReservasEmMemoria implements Reservas {
  readonly descricao = 'memoria (perdidas ao reiniciar)';
  private readonly porSala = new Map<string, Ocupacao[]>();
  private readonly chaves = new Map<string, Reserva>();
  private ultimoNumero = 0;

  /** `semente` comes checked by lerSemente: known rooms, no overlap. */
  constructor(semente: readonly Ocupacao[]) {
    for (const ocupacao of semente) {
      this.guardar(ocupacao);
      this.ultimoNumero = Math.max(this.ultimoNumero, numeroDaReserva(ocupacao.reserva.id) ?? 0);
    }
  }

  conflitos(sala: string, intervalo: Intervalo): Promise<Reserva[]> {
    return Promise.resolve(this.sobrepostas(sala, intervalo).map((ocupacao) => ocupacao.reserva));
  }

  ocupadas(salas: readonly string[], intervalo: Intervalo): Promise<ReadonlySet<string>> {
    return Promise.resolve(new Set(salas.filter((sala) => this.sobrepostas(sala, intervalo).length > 0)));
  }

  inserir(dados: DadosDaReserva, intervalo: Intervalo, chave?: string): Promise<Insercao> {
    // Check and write in the same synchronous step: that is what makes it atomic here.
    const dona = chave === undefined ? undefined : this.chaves.get(chave);
    if (dona) return Promise.resolve({ tipo: 'chave-usada', reserva: dona });
    if (this.sobrepostas(dados.sala, intervalo).length > 0) return Promise.resolve({ tipo: 'ocupada' });
    this.ultimoNumero += 1;
    const reserva: Reserva = { id: idDaReserva(this.ultimoNumero), ...dados };
    this.guardar({ ...intervalo, reserva });
    if (chave !== undefined) this.chaves.set(chave, reserva);
    return Promise.resolve({ tipo: 'feita', reserva });
  }

  porChave(chave: string): Promise<Reserva | undefined> {
    return Promise.resolve(this.chaves.get(chave));
  }

  alcancavel(): Promise<void> {
    return Promise.resolve();
  }

  fechar(): Promise<void> {
    return Promise.resolve();
  }

  /** Bookings of one room never overlap, so sorted by start they are sorted by end too. */
  private sobrepostas(sala: string, intervalo: Intervalo): Ocupacao[] {
    const lista = this.porSala.get(sala) ?? [];
    const achadas: Ocupacao[] = [];
    for (let i = primeiroIndice(lista, (ocupacao) => ocupacao.fim > intervalo.inicio); ; i++) {
      const ocupacao = lista[i];
      if (!ocupacao || ocupacao.inicio >= intervalo.fim) break;
      if (sobrepoe(ocupacao, intervalo)) achadas.push(ocupacao);
    }
    return achadas;
  }

  private guardar(ocupacao: Ocupacao): void {
    let lista = this.porSala.get(ocupacao.reserva.sala);
    if (!lista) this.porSala.set(ocupacao.reserva.sala, (lista = []));
    lista.splice(
      primeiroIndice(lista, (outra) => outra.inicio > ocupacao.inicio),
      0,
      ocupacao,
    );
  }
}
