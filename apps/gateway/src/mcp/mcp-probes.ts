/**
 * The probes of a gateway's MCP servers (connect or start, then list the tools), one at a time
 * per session and server: a listing and a turn that ask while a server is starting share its
 * start instead of starting it twice, and a failure is remembered for `failureMemoryMs` so every
 * turn does not wait for the same timeout again. In memory: another replica probes on its own.
 */
export class McpProbes<R extends { failed: boolean }> {
  private readonly running = new Map<string, Promise<R>>();
  private readonly failures = new Map<string, { result: R; at: number }>();

  constructor(
    private readonly failureMemoryMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The probe of `key` under way, a failure still remembered, or a new probe made by `start`. */
  probe(key: string, start: () => Promise<R>): Promise<R> {
    const failed = this.failures.get(key);
    if (failed && this.now() - failed.at < this.failureMemoryMs) return Promise.resolve(failed.result);
    const running = this.running.get(key);
    if (running) return running;
    const next = start().then((result) => {
      this.forgetExpired();
      if (result.failed) this.failures.set(key, { result, at: this.now() });
      else this.failures.delete(key);
      return result;
    });
    this.running.set(key, next);
    void next.finally(() => this.running.get(key) === next && this.running.delete(key)).catch(() => undefined);
    return next;
  }

  /** A memory that only grows is a leak: sessions end, servers are removed. */
  private forgetExpired(): void {
    const now = this.now();
    for (const [key, failure] of this.failures) if (now - failure.at >= this.failureMemoryMs) this.failures.delete(key);
  }
}

/** `promise`'s value if it settles within `ms`, else `fallback` (the promise goes on). */
export async function withinOrElse<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
