/**
 * One line at a time from an async iterator of lines (a readline interface). A read given up on
 * (a question whose turn was cancelled) leaves its line to the next read, so nothing typed is lost.
 */
export class LineReader {
  private pending?: Promise<IteratorResult<string>>;

  constructor(private readonly lines: AsyncIterator<string>) {}

  /** The next line; undefined when input has ended; rejects when `signal` aborts first. */
  async next(signal?: AbortSignal): Promise<string | undefined> {
    const pending = (this.pending ??= this.lines.next());
    const result = signal ? await untilAborted(pending, signal) : await pending;
    this.pending = undefined;
    return result.done ? undefined : result.value;
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
