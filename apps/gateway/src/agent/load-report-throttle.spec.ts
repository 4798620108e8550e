import { describe, expect, it } from 'vitest';
import { LoadReportThrottle } from './load-report-throttle';

describe('LoadReportThrottle', () => {
  it('tells the first report, then one per tenth of the load', () => {
    const throttle = new LoadReportThrottle();
    const told = [0, 0, 0.05, 0.1, 0.15, 0.35, 0.4, 0.9].filter((p) => throttle.worthTelling(p));
    expect(told).toEqual([0, 0.1, 0.35, 0.9]);
  });
});
