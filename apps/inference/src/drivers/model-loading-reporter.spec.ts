import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportModelLoading, type ModelLoadingProgress } from './model-loading-reporter';

describe('reportModelLoading', () => {
  afterEach(() => vi.useRealTimers());

  it('reports at once, then every interval with the progress so far, until stopped', () => {
    vi.useFakeTimers();
    let progress = 0;
    const reports: ModelLoadingProgress[] = [];
    const stop = reportModelLoading(() => progress, (r) => reports.push(r), 1000);
    expect(reports).toHaveLength(1);
    progress = 0.45;
    vi.advanceTimersByTime(1000);
    progress = 1.7; // a hook that overshoots is held to 1
    vi.advanceTimersByTime(1000);
    stop();
    vi.advanceTimersByTime(5000);
    expect(reports.map((r) => r.progress)).toEqual([0, 0.45, 1]);
    expect(reports[2]!.elapsedMs).toBeGreaterThanOrEqual(2000);
  });
});
