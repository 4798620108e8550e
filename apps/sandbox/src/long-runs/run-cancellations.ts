/** How long a cancel is remembered for a run that has not reached this worker yet. */
const REMEMBER_MS = 15 * 60_000;

/**
 * Long runs in progress on this worker, by run id, and the ids recently cancelled. A cancel
 * reaches every replica; the one running the run aborts it, and any replica that takes the job
 * later (a cancel that raced the queue) refuses to start it.
 */
export class RunCancellations {
  private readonly running = new Map<string, AbortController>();
  private readonly cancelled = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A signal that aborts when the run is cancelled; undefined when it already was. */
  begin(runId: string): AbortSignal | undefined {
    if (this.wasCancelled(runId)) return undefined;
    const controller = new AbortController();
    this.running.set(runId, controller);
    return controller.signal;
  }

  end(runId: string): void {
    this.running.delete(runId);
  }

  cancel(runId: string): void {
    this.prune();
    this.cancelled.set(runId, this.now());
    this.running.get(runId)?.abort();
  }

  /** Stops every run of this worker (a shutdown that cannot wait for them). */
  cancelAll(): void {
    for (const runId of this.running.keys()) this.cancel(runId);
  }

  wasCancelled(runId: string): boolean {
    const at = this.cancelled.get(runId);
    return at !== undefined && this.now() - at < REMEMBER_MS;
  }

  private prune(): void {
    const now = this.now();
    for (const [runId, at] of this.cancelled) if (now - at >= REMEMBER_MS) this.cancelled.delete(runId);
  }
}
