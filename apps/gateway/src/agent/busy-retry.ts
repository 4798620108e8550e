import { AppError, ErrorCode } from '@weft/contracts';

export interface BusyRetryOptions {
  /** How long a generation may keep finding every worker busy before the turn fails with it. */
  waitMs: number;
  signal?: AbortSignal;
  /** First pause; each next one doubles up to `maxDelayMs`, with jitter so waiters spread out. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** For tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * A generation that found every inference worker busy (its queue full: INFERENCE.BUSY, before a
 * token streamed) is asked again after a pause, until `waitMs` has passed: a turn waits for the
 * GPU as a person would, rather than failing because other agents got there first. Anything
 * else, or a busy answer after the wait, goes to the caller as it came.
 */
export async function* retryWhileBusy<T>(start: () => AsyncIterable<T>, options: BusyRetryOptions): AsyncGenerator<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const deadline = now() + options.waitMs;
  let delay = options.firstDelayMs ?? 250;
  for (;;) {
    let started = false;
    try {
      for await (const item of start()) {
        started = true;
        yield item;
      }
      return;
    } catch (error) {
      const busy = error instanceof AppError && error.code === ErrorCode.InferenceBusy;
      if (started || !busy || options.signal?.aborted || now() + delay > deadline) throw error;
    }
    await sleep(delay * (0.5 + Math.random() / 2), options.signal);
    if (options.signal?.aborted) return;
    delay = Math.min(delay * 2, options.maxDelayMs ?? 5000);
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
