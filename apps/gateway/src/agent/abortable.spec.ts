import { describe, expect, it } from 'vitest';
import { AbortedError, abortable, raceAbort } from './abortable';

describe('abortable', () => {
  it('rejects at once on a signal aborted beforehand, and leaves no rejection of the source unhandled', async () => {
    const controller = new AbortController();
    controller.abort();
    async function* failing(): AsyncGenerator<string> {
      yield* [];
      throw new Error('the stream broke');
    }
    // A port's generator wrapping another, as the agent loop and the inference port do.
    const outer = abortable(abortable(failing(), controller.signal), controller.signal);
    await expect(outer.next()).rejects.toBeInstanceOf(AbortedError);
    // An unhandled rejection would be reported by the runner once the queue drains.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it('passes values through until the signal aborts', async () => {
    const controller = new AbortController();
    expect(await raceAbort(Promise.resolve(1), controller.signal)).toBe(1);
    const pending = raceAbort(new Promise<number>(() => undefined), controller.signal);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });
});
