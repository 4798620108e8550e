import { AppError, ErrorCode } from '@weft/contracts';
import { abortableSleep } from '../common/abortable-sleep';

export interface BusyRetryOptions {
  /** How long a generation may keep finding no worker to take it before the turn fails with that. */
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
 * Answers that mean no live worker took the generation, so nothing ran: every queue full
 * (INFERENCE.BUSY), no worker subscribed at all (TRANSPORT.NO_RESPONDERS: the only one died, and
 * its replacement is still starting, as when Swarm or Kubernetes moves it off a lost node), or the
 * one tried vanished before it answered (INFERENCE.WORKER_LOST).
 */
const NO_WORKER_TOOK_IT = new Set<string>([ErrorCode.InferenceBusy, ErrorCode.NoResponders, ErrorCode.WorkerLost]);

/**
 * A generation that no live worker took (NO_WORKER_TOOK_IT, before a token streamed) is asked
 * again after a pause, until `waitMs` has passed: a turn waits for the GPU as a person would,
 * rather than failing because other agents got there first or its worker's node went down.
 * Anything else, or such an answer after the wait, goes to the caller as it came.
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
      // With this gateway's own link to NATS down, no worker can be heard from: that fails at
      // once (docs/failure-modes.md), as the client can see and retry it.
      const untaken = error instanceof AppError && NO_WORKER_TOOK_IT.has(error.code) && error.details?.natsUnreachable !== true;
      if (started || !untaken || options.signal?.aborted || now() + delay > deadline) throw error;
    }
    await sleep(delay * (0.5 + Math.random() / 2), options.signal);
    if (options.signal?.aborted) return;
    delay = Math.min(delay * 2, options.maxDelayMs ?? 5000);
  }
}
