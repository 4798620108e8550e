/** Nearest-rank percentile of a sample, in its own unit. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export interface RunSample {
  ttftMs: number;
  tokens: number;
  /** Prompt tokens evaluated for this request, where the side reports it. */
  evaluated?: number;
}

export interface LevelResult {
  concurrency: number;
  requests: number;
  ttftP50: number;
  ttftP99: number;
  tokensPerSecond: number;
  wallMs: number;
  /** Mean prompt tokens evaluated per request (NaN where the side does not report it). */
  evaluatedPerRequest: number;
  /** Mean tokens generated per request: a side whose replies stop early shows fewer tokens/s for it. */
  generatedPerRequest: number;
}

/** Runs `requests` calls with at most `concurrency` in flight; TTFT per call, aggregate tokens/s. */
export async function runLevel(concurrency: number, requests: number, call: (i: number) => Promise<RunSample>): Promise<LevelResult> {
  const samples: RunSample[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const i = next++;
        samples.push(await call(i));
      }
    }),
  );
  const wallMs = performance.now() - started;
  const tokens = samples.reduce((sum, s) => sum + s.tokens, 0);
  return {
    concurrency,
    requests,
    ttftP50: percentile(samples.map((s) => s.ttftMs), 50),
    ttftP99: percentile(samples.map((s) => s.ttftMs), 99),
    tokensPerSecond: (tokens / wallMs) * 1000,
    wallMs,
    evaluatedPerRequest: samples.reduce((sum, s) => sum + (s.evaluated ?? Number.NaN), 0) / samples.length,
    generatedPerRequest: tokens / samples.length,
  };
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Throughput of side `a` over side `b` round by round. The sides alternate within a round, so
 * each pair ran seconds apart, under the same background load: their spread is the noise a
 * single run's ratio carries, and their median is the figure to hold a target against.
 */
export function roundRatios(a: readonly LevelResult[], b: readonly LevelResult[]): number[] {
  return a.map((round, i) => round.tokensPerSecond / (b[i]?.tokensPerSecond ?? Number.NaN));
}

/** The round with the highest throughput: background load on a shared machine only ever slows a round. */
export function best(results: LevelResult[]): LevelResult {
  return results.reduce((a, b) => (b.tokensPerSecond > a.tokensPerSecond ? b : a));
}

/** A fixed-width text table. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? format(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]) => r.map((c, i) => String(c).padStart(widths[i] ?? 0)).join('  ');
  return [line(cells[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function format(n: number): string {
  if (!Number.isFinite(n)) return '-';
  if (Number.isInteger(n) || Math.abs(n) >= 100) return n.toFixed(0);
  return n.toFixed(1);
}
