/**
 * The gateway's memory over a run, read from its own Prometheus metrics (`/metrics`, admin), to
 * say whether it stays flat under a long load: samples every `everyMs`, then the first and last
 * minute's means side by side, and the heap's low point minute by minute. The heap saws up and
 * down between major collections (100 MiB and more under this load), so a mean of a few samples
 * says little; a leak shows as lows that keep rising.
 */
export class GatewayMemory {
  private readonly samples: Array<{ at: number; rss: number; heap: number }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly base: string,
    private readonly adminToken: string,
    private readonly everyMs = 10_000,
  ) {}

  start(): void {
    const sample = () => void this.sample().catch((error: unknown) => console.error(`memory sample failed: ${String(error)}`));
    sample();
    this.timer = setInterval(sample, this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** "RSS 180 → 184 MiB (max 191), heap used 60 → 61 MiB over 10.0 min, 61 samples". */
  summary(): string {
    if (this.samples.length < 2) return 'gateway memory: too few samples';
    const first = this.samples[0]!.at;
    const last = this.samples.at(-1)!.at;
    const window = (from: number, to: number) => this.samples.filter((s) => s.at >= from && s.at <= to);
    const head = window(first, first + 60_000);
    const tail = window(last - 60_000, last);
    const mean = (of: typeof this.samples, key: 'rss' | 'heap') => of.reduce((sum, s) => sum + s[key], 0) / of.length / 2 ** 20;
    const max = Math.max(...this.samples.map((s) => s.rss)) / 2 ** 20;
    const minutes = ((last - first) / 60_000).toFixed(1);
    return (
      `gateway memory, first minute → last minute (means): RSS ${mean(head, 'rss').toFixed(0)} → ${mean(tail, 'rss').toFixed(0)} MiB (max ${max.toFixed(0)}), ` +
      `heap used ${mean(head, 'heap').toFixed(0)} → ${mean(tail, 'heap').toFixed(0)} MiB, over ${minutes} min, ${this.samples.length} samples\n` +
      `heap used, lowest sample per minute (MiB): ${this.minuteLows(first, last).join(' ')}`
    );
  }

  private minuteLows(first: number, last: number): string[] {
    const lows: string[] = [];
    for (let from = first; from < last; from += 60_000) {
      const minute = this.samples.filter((s) => s.at >= from && s.at < from + 60_000);
      if (minute.length > 0) lows.push((Math.min(...minute.map((s) => s.heap)) / 2 ** 20).toFixed(0));
    }
    return lows;
  }

  private async sample(): Promise<void> {
    const response = await fetch(`${this.base}/metrics`, { headers: { authorization: `Bearer ${this.adminToken}` }, signal: AbortSignal.timeout(5000) });
    const text = await response.text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
    const rss = value('weft_gateway_process_process_resident_memory_bytes');
    const heap = value('weft_gateway_process_nodejs_heap_size_used_bytes');
    if (Number.isFinite(rss)) this.samples.push({ at: Date.now(), rss, heap });
  }
}
