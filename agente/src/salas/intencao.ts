/**
 * What a client asked, read without any room rule: whether a room exists or
 * a time is valid is the MCP server's call. A request comes as one of three
 * fixed sentences or as a data part of the same content; an answer to a
 * pause as `escolha=<id>` or `{"escolha": "<id>"}`.
 */
import type { PedidoDeReserva } from 'compartilhado/contrato';
import * as z from 'zod';
import type { Entrada, Ilegivel } from '../ponte/tipos.js';

export const SKILLS = {
  reservar: 'reservar-sala',
  listar: 'listar-salas',
  consultar: 'consultar-disponibilidade',
} as const;

export const FORMATOS = {
  reservar: 'reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome>',
  listar: 'listar salas',
  consultar: 'consultar sala=<id> inicio=<iso8601> fim=<iso8601>',
} as const;

export type Consulta = Pick<PedidoDeReserva, 'sala' | 'inicio' | 'fim'>;

/** What a client asked of the room server: a skill and what it needs. */
export type Intencao =
  | { readonly skill: typeof SKILLS.reservar; readonly reserva: PedidoDeReserva }
  | { readonly skill: typeof SKILLS.listar }
  | { readonly skill: typeof SKILLS.consultar; readonly consulta: Consulta };

export type Escolha = { readonly sala: string } | { readonly recusar: true };

export const MENSAGEM_FORA_DO_FORMATO = `Pedido fora do formato. Use: ${FORMATOS.reservar} | ${FORMATOS.listar} | ${FORMATOS.consultar}`;
export const MENSAGEM_ESCOLHA_FORA_DO_FORMATO = 'Resposta fora do formato. Use: escolha=<id> ou escolha=recusar';

const RESERVAR = /^reservar\s+sala=(\S+)\s+inicio=(\S+)\s+fim=(\S+)\s+responsavel=([^\r\n]*\S)$/;
const LISTAR = /^listar\s+salas$/;
const CONSULTAR = /^consultar\s+sala=(\S+)\s+inicio=(\S+)\s+fim=(\S+)$/;
const ESCOLHA = /^escolha=(\S+)$/;

export function lerIntencao(entrada: Entrada): Intencao | Ilegivel {
  if (entrada.dados !== undefined) return intencaoDosDados(entrada.dados);
  const texto = entrada.texto.trim();
  const reserva = RESERVAR.exec(texto);
  if (reserva) {
    // Every group of the pattern matches something, so the defaults are never used.
    const [, sala = '', inicio = '', fim = '', responsavel = ''] = reserva;
    // `responsavel` takes the rest of the line, spaces included.
    return { skill: SKILLS.reservar, reserva: { sala, inicio, fim, responsavel: responsavel.trim() } };
  }
  if (LISTAR.test(texto)) return { skill: SKILLS.listar };
  const consulta = CONSULTAR.exec(texto);
  if (consulta) {
    const [, sala = '', inicio = '', fim = ''] = consulta;
    return { skill: SKILLS.consultar, consulta: { sala, inicio, fim } };
  }
  return { erro: MENSAGEM_FORA_DO_FORMATO };
}

export function lerEscolha(entrada: Entrada): Escolha | Ilegivel {
  if (entrada.dados !== undefined) {
    const lida = ler(z.strictObject({ escolha: TextoNaoVazio }), entrada.dados, 'Resposta em dados');
    return 'erro' in lida ? lida : escolhaDe(lida.escolha);
  }
  const escolha = ESCOLHA.exec(entrada.texto.trim())?.[1];
  return escolha === undefined ? { erro: MENSAGEM_ESCOLHA_FORA_DO_FORMATO } : escolhaDe(escolha);
}

const escolhaDe = (valor: string): Escolha => (valor === 'recusar' ? { recusar: true } : { sala: valor });

const TextoNaoVazio = z.string().trim().min(1);
const CamposDaConsulta = { sala: TextoNaoVazio, inicio: TextoNaoVazio, fim: TextoNaoVazio };
/** A data part's shape; `skill` may be left out of a booking, the one data part without it. */
const IntencaoEmDados = {
  [SKILLS.reservar]: z.strictObject({ skill: z.literal(SKILLS.reservar).optional(), ...CamposDaConsulta, responsavel: TextoNaoVazio }),
  [SKILLS.listar]: z.strictObject({ skill: z.literal(SKILLS.listar) }),
  [SKILLS.consultar]: z.strictObject({ skill: z.literal(SKILLS.consultar), ...CamposDaConsulta }),
};

function intencaoDosDados(dados: unknown): Intencao | Ilegivel {
  const skill = typeof dados === 'object' && dados !== null && 'skill' in dados ? dados.skill : SKILLS.reservar;
  if (skill === SKILLS.listar) {
    const lido = ler(IntencaoEmDados[SKILLS.listar], dados, 'Pedido em dados');
    return 'erro' in lido ? lido : { skill };
  }
  if (skill === SKILLS.consultar) {
    const lido = ler(IntencaoEmDados[SKILLS.consultar], dados, 'Pedido em dados');
    return 'erro' in lido ? lido : { skill, consulta: { sala: lido.sala, inicio: lido.inicio, fim: lido.fim } };
  }
  if (skill !== SKILLS.reservar) {
    return { erro: `Pedido em dados: skill desconhecida ${JSON.stringify(skill)}. Use ${Object.values(SKILLS).join(', ')}.` };
  }
  if (typeof dados === 'object' && dados !== null && 'escolha' in dados) {
    return { erro: 'Pedido em dados: "escolha" so responde a uma Task pausada; envie-a com o taskId dessa Task.' };
  }
  const lido = ler(IntencaoEmDados[SKILLS.reservar], dados, 'Pedido em dados');
  if ('erro' in lido) return lido;
  const { sala, inicio, fim, responsavel } = lido;
  return { skill: SKILLS.reservar, reserva: { sala, inicio, fim, responsavel } };
}

/** The value read by `esquema`, or one sentence naming every missing, bad or unknown field. */
function ler<T>(esquema: z.ZodType<T>, dados: unknown, oque: string): T | Ilegivel {
  const lido = esquema.safeParse(dados);
  if (lido.success) return lido.data;
  if (typeof dados !== 'object' || dados === null || Array.isArray(dados)) return { erro: `${oque}: esperado um objeto JSON.` };
  const problemas = lido.error.issues.flatMap((problema) => {
    if (problema.code === 'unrecognized_keys') return problema.keys.map((campo) => `campo desconhecido "${campo}"`);
    const campo = String(problema.path[0]);
    if (!(campo in dados)) return [`falta o campo "${campo}"`];
    return [campo === 'skill' ? `o campo "skill" nao confere` : `o campo "${campo}" deve ser texto nao vazio`];
  });
  return { erro: `${oque}: ${problemas.join('; ')}.` };
}
