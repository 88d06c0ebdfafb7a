/**
 * The room profile's view, for the course's agent (its card has no MCP
 * tools extension): the rooms (skill listar-salas), the booking form, a
 * conflict's alternatives as buttons and the booking as the outcome. The
 * Task itself is the panel's, as for any agent.
 */
import type { Task } from '@a2a-js/sdk';
import type { Conexao } from './cliente.js';
import { conferirIntervalo, paraIso } from './horario.js';
import { botao, dadosDe, desligarBotoes, elemento, estadoDe, frase, modelo, pedido } from './pagina.js';
import type { Painel, Vista } from './tarefa.js';

interface Sala {
  readonly id: string;
  readonly nome: string;
  readonly capacidade: number;
  readonly recursos: readonly string[];
}

export const vistaDeSalas: Vista = {
  pergunta(task, responder) {
    const { alternativas } = (dadosDe(task.status?.message?.parts) ?? {}) as { alternativas?: unknown };
    if (!Array.isArray(alternativas)) return undefined;
    const grupo = document.createElement('div');
    grupo.setAttribute('role', 'group');
    grupo.setAttribute('aria-label', 'Alternativas');
    for (const escolha of [...alternativas.map(String), 'recusar']) {
      grupo.append(
        botao(escolha === 'recusar' ? 'Recusar' : escolha, () => {
          desligarBotoes(grupo);
          responder({ escolha });
        }),
      );
    }
    return grupo;
  },
  resultado(task: Task) {
    const artefato = task.artifacts.find((um) => um.name === 'reserva');
    if (estadoDe(task) !== 'TASK_STATE_COMPLETED' || !artefato) return [frase(task)];
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify(dadosDe(artefato.parts), null, 2);
    return [frase(task), pre];
  },
};

/** The rooms and the booking form, in `onde`; `listar` fills the rooms (again, after a token). */
export function montarSalas(onde: HTMLElement, { cliente }: Conexao, painel: Painel): { listar: () => Promise<void> } {
  onde.append(modelo('modelo-salas'));
  const salas = elemento('salas', HTMLUListElement);
  const form = elemento('reserva', HTMLFormElement);
  const campos = {
    sala: elemento('sala', HTMLSelectElement),
    inicio: elemento('inicio', HTMLInputElement),
    fim: elemento('fim', HTMLInputElement),
    responsavel: elemento('responsavel', HTMLInputElement),
  };
  const aviso = elemento('aviso', HTMLParagraphElement);
  form.addEventListener('submit', (evento) => {
    evento.preventDefault();
    const problema =
      conferirIntervalo(campos.inicio.value, campos.fim.value) ??
      (campos.responsavel.value.trim() ? undefined : 'Diga quem é o responsável.');
    aviso.textContent = problema ?? '';
    if (problema) return;
    void painel.iniciar({
      sala: campos.sala.value,
      inicio: paraIso(campos.inicio.value),
      fim: paraIso(campos.fim.value),
      responsavel: campos.responsavel.value.trim(),
    });
  });
  return {
    async listar() {
      const resposta = await cliente.sendMessage(pedido({ skill: 'listar-salas' }));
      const artefato = 'artifacts' in resposta ? resposta.artifacts.find((um) => um.name === 'salas') : undefined;
      const { salas: lista = [] } = (dadosDe(artefato?.parts) ?? {}) as { salas?: Sala[] };
      salas.replaceChildren();
      campos.sala.replaceChildren();
      for (const sala of lista) {
        const item = document.createElement('li');
        item.textContent = `${sala.nome} (${sala.id}): ${String(sala.capacidade)} pessoas, ${sala.recursos.join(', ') || 'sem recursos'}`;
        salas.append(item);
        campos.sala.append(new Option(sala.id, sala.id));
      }
      salas.setAttribute('aria-busy', 'false');
    },
  };
}
