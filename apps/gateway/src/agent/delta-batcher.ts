/** How long a text delta may wait for the next ones before it is written. */
export const DELTA_FLUSH_MS = 25;

/**
 * Coalesces a generation's text deltas into one `message.delta` per window: a fast model makes
 * hundreds of tokens a second, and one awaited `XADD` each would hold the stream back. Writes
 * stay in order; a delta waits at most `windowMs`; `close` writes the rest and reports the
 * first write that failed.
 */
export class DeltaBatcher {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private writes: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly write: (text: string) => Promise<void>,
    private readonly windowMs = DELTA_FLUSH_MS,
  ) {}

  push(text: string): void {
    if (text === '') return;
    this.pending += text;
    this.timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  async close(): Promise<void> {
    this.flush();
    await this.writes;
    if (this.failure) throw this.failure.error;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.writes = this.writes.then(() => (this.failure ? undefined : this.write(text))).catch((error: unknown) => {
      this.failure ??= { error };
    });
  }
}
