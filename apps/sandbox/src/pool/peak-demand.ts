/**
 * The most snippets that wanted a pooled container at once within the last `windowMs`: how many
 * the pool should hold idle so that the next such burst is served warm. A monotonic queue: each
 * entry outlives every later one no larger than it, so the front is the peak.
 */
export class PeakDemand {
  private entries: Array<{ at: number; count: number }> = [];

  constructor(private readonly windowMs: number) {}

  record(count: number, now: number): void {
    while (this.entries.length > 0 && this.entries[this.entries.length - 1]!.count <= count) this.entries.pop();
    this.entries.push({ at: now, count });
  }

  peak(now: number): number {
    while (this.entries.length > 0 && now - this.entries[0]!.at > this.windowMs) this.entries.shift();
    return this.entries[0]?.count ?? 0;
  }
}
