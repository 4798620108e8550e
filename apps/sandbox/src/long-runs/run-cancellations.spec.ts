import { describe, expect, it } from 'vitest';
import { RunCancellations } from './run-cancellations';

describe('RunCancellations', () => {
  it('aborts the signal of a run in progress', () => {
    const cancellations = new RunCancellations();
    const signal = cancellations.begin('run_aaaaaaaa');
    cancellations.cancel('run_aaaaaaaa');
    expect(signal?.aborted).toBe(true);
  });

  it('refuses to start a run cancelled before it reached the worker', () => {
    const cancellations = new RunCancellations();
    cancellations.cancel('run_bbbbbbbb');
    expect(cancellations.begin('run_bbbbbbbb')).toBeUndefined();
  });

  it('forgets a cancel after fifteen minutes', () => {
    const now = { value: 0 };
    const cancellations = new RunCancellations(() => now.value);
    cancellations.cancel('run_cccccccc');
    now.value = 15 * 60_000;
    expect(cancellations.begin('run_cccccccc')?.aborted).toBe(false);
  });

  it('stops every run at once', () => {
    const cancellations = new RunCancellations();
    const signals = ['run_dddddddd', 'run_eeeeeeee'].map((id) => cancellations.begin(id));
    cancellations.cancelAll();
    expect(signals.map((s) => s?.aborted)).toEqual([true, true]);
  });
});
