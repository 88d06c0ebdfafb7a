/**
 * The A2A v1.0 JSON wire as the project's own clients read it (the tests,
 * the load): small schemas of what they look at, so a body of another shape
 * fails where it is read instead of flowing on as `any`.
 */
import { conforme } from 'compartilhado/contrato';
import * as z from 'zod';

const Parte = z.looseObject({ text: z.string().optional(), data: z.unknown().optional() });
const Mensagem = z.looseObject({ role: z.string(), parts: z.array(Parte) });
export const Artefato = z.looseObject({ name: z.string().optional(), parts: z.array(Parte) });

/** A Task in the A2A v1.0 JSON form, as far as the project's clients read it. */
export const TarefaNoFio = z.looseObject({
  id: z.string(),
  contextId: z.string(),
  status: z.looseObject({ state: z.string(), message: Mensagem.optional() }),
  artifacts: z.array(Artefato).optional(),
  history: z.array(Mensagem).optional(),
});
export type TarefaNoFio = z.infer<typeof TarefaNoFio>;

/** A JSON-RPC response body of the agent. */
export const CorpoA2A = z.looseObject({
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});
export type CorpoA2A = z.infer<typeof CorpoA2A>;

/** The Task a SendMessage (result.task) or a GetTask (result) answered with; throws when there is none. */
export function tarefaDo(corpo: CorpoA2A): TarefaNoFio {
  const resultado = conforme(z.looseObject({ task: z.unknown().optional() }), corpo.result, 'o result do agente');
  return conforme(TarefaNoFio, resultado.task ?? resultado, 'a Task do agente');
}

/** The booking in a Task's `reserva` artifact, as the agent writes it (JSON in the text part). */
export const ReservaNoArtefato = z.object({
  reserva: z.string(),
  sala: z.string(),
  inicio: z.string(),
  fim: z.string(),
  responsavel: z.string(),
  politica: z.string(),
});
export type ReservaNoArtefato = z.infer<typeof ReservaNoArtefato>;

/** The booking of a COMPLETED Task: its first artifact's text, parsed. */
export function reservaDaTarefa(task: TarefaNoFio): ReservaNoArtefato {
  const texto = task.artifacts?.[0]?.parts[0]?.text;
  if (texto === undefined) throw new Error(`Task ${task.id} sem artifact de reserva`);
  return conforme(ReservaNoArtefato, JSON.parse(texto), `a reserva da Task ${task.id}`);
}
