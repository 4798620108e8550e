/** How long output may keep draining after the process exited. */
export const OUTPUT_DRAIN_MS = 2_000;

export type RunEnding = 'exited' | 'timeout' | 'cancelled';

/** Whichever comes first: `done`, the deadline, or the abort. */
export async function raceDeadline(done: Promise<void>, timeoutMs: number, signal?: AbortSignal): Promise<RunEnding> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const aborted = new Promise<'cancelled'>((resolve) => {
    onAbort = () => resolve('cancelled');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([done.then(() => 'exited' as const), deadline, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
