/** The error an aborted wait rejects with; the runner tells cancels and budget stops apart by their signals. */
export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/** Rejects with AbortedError as soon as `signal` aborts, whatever `promise` is doing. */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // Nobody waits for `promise` now: its own rejection (an aborted inner stream) must not go unhandled.
    promise.catch(() => undefined);
    return Promise.reject(new AbortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * An async iterable that stops the moment `signal` aborts (rejecting with AbortedError), even while
 * the source is waiting for its next item; the source is then left to be collected.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal?: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // Not awaited: a generator parked in an await queues return() until it wakes.
    if (!finished) void iterator.return?.()?.catch(() => undefined);
  }
}
