/**
 * A tools/call's clock (mcp/relogio.ts), on a fake clock: its deadline
 * starts over on progress and stands still while a question is open, but
 * progress never keeps a call running past three deadlines in all.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { Relogio, TETO_EM_PRAZOS } from '../src/mcp/relogio.js';

const PRAZO = 1_000;

describe('Relogio', () => {
  let agora = 0;
  /** The fake clock and the mocked timers move together. */
  const avancar = (ms: number) => {
    agora += ms;
    mock.timers.tick(ms);
  };
  const novo = () => new Relogio(PRAZO, undefined, () => agora);

  beforeEach(() => {
    agora = 0;
    mock.timers.enable({ apis: ['setTimeout'] });
  });
  afterEach(() => mock.timers.reset());

  it('aborts with the SDK timeout error once a deadline passes with no progress', () => {
    const relogio = novo();
    avancar(PRAZO - 1);
    assert.equal(relogio.sinal.aborted, false);
    avancar(1);
    assert.ok(relogio.sinal.reason instanceof SdkError);
    assert.equal(relogio.sinal.reason.code, SdkErrorCode.RequestTimeout);
    assert.equal(relogio.sinal.reason.message, 'Request timed out');
  });

  it('progress starts the deadline over, but never past three deadlines of running time', () => {
    const relogio = novo();
    // Progress every half deadline: without the cap, it would never end.
    for (let gasto = 0; gasto < TETO_EM_PRAZOS * PRAZO - PRAZO / 2; gasto += PRAZO / 2) {
      avancar(PRAZO / 2);
      relogio.reiniciar();
      assert.equal(relogio.sinal.aborted, false, `ainda correndo aos ${String(gasto + PRAZO / 2)} ms`);
    }
    avancar(PRAZO / 2);
    assert.ok(relogio.sinal.reason instanceof SdkError);
    assert.equal(relogio.sinal.reason.code, SdkErrorCode.RequestTimeout);
    assert.equal(relogio.sinal.reason.message, 'Maximum total timeout exceeded');
    assert.deepEqual(relogio.sinal.reason.data, { maxTotalTimeout: TETO_EM_PRAZOS * PRAZO, totalElapsed: TETO_EM_PRAZOS * PRAZO });
  });

  it('time with a question open counts toward neither the deadline nor the cap', () => {
    const relogio = novo();
    avancar(PRAZO / 2);
    relogio.pausar();
    relogio.pausar();
    avancar(100 * PRAZO);
    relogio.retomar();
    avancar(100 * PRAZO);
    assert.equal(relogio.sinal.aborted, false, 'one question still open');
    relogio.retomar();
    // Running: half a deadline before the questions, then progress each half deadline up to the cap.
    for (let gasto = PRAZO / 2; gasto < TETO_EM_PRAZOS * PRAZO - PRAZO / 2; gasto += PRAZO / 2) {
      avancar(PRAZO / 2);
      relogio.reiniciar();
      assert.equal(relogio.sinal.aborted, false);
    }
    avancar(PRAZO / 2 - 1);
    assert.equal(relogio.sinal.aborted, false);
    avancar(1);
    assert.equal((relogio.sinal.reason as SdkError).message, 'Maximum total timeout exceeded');
  });

  it('stopped, it never aborts', () => {
    const relogio = novo();
    relogio.parar();
    relogio.reiniciar();
    avancar(10 * TETO_EM_PRAZOS * PRAZO);
    assert.equal(relogio.sinal.aborted, false);
  });
});
