/**
 * Issue 31's target on PostgreSQL: a Task that completes without pausing,
 * and an answer to a pause, each cost at most 3 transactions on the Tasks
 * database, counted from the statement log by scripts/transacoes.ts. The
 * pause itself is measured, not bounded. Each test writes its kind's
 * transactions and statements to the diagnostic output, so a failure
 * shows where they go.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { contarTransacoes, detalhar, type Contagem } from '../scripts/transacoes.js';

const LIMITE = 3;

describe('transactions per request on the Tasks database (PostgreSQL)', () => {
  let contagem: Contagem | undefined;
  before(async () => {
    contagem = await contarTransacoes();
  });
  const medida = () => {
    const [rodada] = contagem?.rodadas ?? [];
    if (!contagem || !rodada) throw new Error('a contagem nao rodou antes deste teste');
    return { contagem, rodada };
  };

  it(`a SendMessage that completes without pausing: at most ${String(LIMITE)}`, (t) => {
    const { contagem, rodada } = medida();
    for (const linha of detalhar(contagem, ['livre']).split('\n')) t.diagnostic(linha);
    assert.ok(
      rodada.livre.tarefas.length <= LIMITE,
      `SendMessage sem pausa: ${String(rodada.livre.tarefas.length)} transacoes no banco de Tasks (limite ${String(LIMITE)})`,
    );
  });

  it(`the answer to a pause, which completes: at most ${String(LIMITE)} (the pause it answers shown too)`, (t) => {
    const { contagem, rodada } = medida();
    for (const linha of detalhar(contagem, ['pausa', 'resposta']).split('\n')) t.diagnostic(linha);
    assert.ok(
      rodada.resposta.tarefas.length <= LIMITE,
      `resposta a pausa: ${String(rodada.resposta.tarefas.length)} transacoes no banco de Tasks (limite ${String(LIMITE)})`,
    );
  });
});
