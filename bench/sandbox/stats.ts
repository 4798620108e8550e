/** Nearest-rank percentile of a sample, in its own unit. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Latencies of `count` calls one after another; `between` runs untimed before each call. */
export async function sequential(count: number, call: () => Promise<void>, between?: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    await between?.();
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  return samples;
}

/** Latencies of `count` calls started at once, and the wall time of the whole burst. */
export async function burst(count: number, call: () => Promise<void>): Promise<{ samples: number[]; wallMs: number }> {
  const start = performance.now();
  const samples = await Promise.all(
    Array.from({ length: count }, async () => {
      const own = performance.now();
      await call();
      return performance.now() - own;
    }),
  );
  return { samples, wallMs: performance.now() - start };
}
