/**
 * `npm run reservar -- "reservar sala=... inicio=... fim=... responsavel=..." [--escolha <id|recusar>]`
 * A small terminal A2A client on @a2a-js/sdk's client: it discovers the
 * agent from its card, shows the Task's state, relays a pause to the person
 * (or answers it with --escolha) on the same Task, and prints the booking.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { SendMessageRequest, TaskState, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { escolha: { type: 'string' }, agente: { type: 'string' } } });
const base = values.agente ?? process.env.AGENTE_URL ?? 'http://localhost:7300';
const texto = positionals.join(' ').trim();

function sair(mensagem: string, codigo: number): never {
  process.stderr.write(`${mensagem}\n`);
  process.exit(codigo);
}

if (!texto)
  sair('uso: npm run reservar -- "reservar sala=<id> inicio=<iso8601> fim=<iso8601> responsavel=<nome>" [--escolha <id|recusar>]', 2);

const textoDe = (partes: Part[] = []) => partes.map((parte) => (parte.content?.$case === 'text' ? parte.content.value : '')).join(' ');

async function enviar(cliente: Client, conteudo: string, taskId?: string): Promise<Task> {
  const resultado = await cliente.sendMessage(
    SendMessageRequest.fromJSON({
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: conteudo }], ...(taskId ? { taskId } : {}) },
    }),
  );
  if (!('status' in resultado)) sair(`o agente respondeu com uma mensagem, nao uma Task: ${textoDe(resultado.parts)}`, 1);
  return resultado;
}

async function perguntar(alternativas: string[]): Promise<string> {
  if (values.escolha) return values.escolha;
  if (!process.stdin.isTTY) sair('a Task pausou e nao ha terminal para perguntar: use --escolha <id|recusar>', 2);
  const leitor = createInterface({ input: process.stdin, output: process.stderr });
  alternativas.forEach((id, i) => process.stderr.write(`  ${i + 1}) ${id}\n`));
  const resposta = (await leitor.question('Escolha o numero ou o id da sala (ou "recusar"): ')).trim();
  leitor.close();
  return alternativas[Number(resposta) - 1] ?? resposta;
}

let cliente: Client;
try {
  cliente = await new ClientFactory().createFromUrl(base);
} catch (erro) {
  sair(
    `nao consegui falar com o agente em ${base} (${erro instanceof Error ? erro.message : String(erro)}). Ele esta de pe? npm start sobe os dois processos.`,
    1,
  );
}

let task = await enviar(cliente, texto);
process.stderr.write(`Task ${task.id}\n`);
for (;;) {
  const estado = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  process.stderr.write(`${TaskState[estado]}: ${textoDe(task.status?.message?.parts)}\n`);
  if (estado !== TaskState.TASK_STATE_INPUT_REQUIRED) break;
  const alternativas = textoDe(task.status?.message?.parts)
    .replace(/^alternativas:\s*/, '')
    .split(', ');
  const escolha = await perguntar(alternativas);
  task = await enviar(cliente, `escolha=${escolha}`, task.id);
  values.escolha = undefined;
}

const artefato = task.artifacts.find((a) => a.name === 'reserva');
if (artefato) process.stdout.write(`${JSON.stringify(JSON.parse(textoDe(artefato.parts)), null, 2)}\n`);
process.exit(task.status?.state === TaskState.TASK_STATE_COMPLETED ? 0 : 1);
