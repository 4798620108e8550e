import { describe, expect, it } from 'vitest';
import { PeakDemand } from './peak-demand';

describe('PeakDemand', () => {
  it('is the largest count recorded within the window', () => {
    const demand = new PeakDemand(10_000);
    demand.record(1, 0);
    demand.record(5, 1_000);
    demand.record(2, 2_000);
    expect(demand.peak(2_000)).toBe(5);
  });

  it('forgets a peak once it is older than the window, keeping later, smaller ones', () => {
    const demand = new PeakDemand(10_000);
    demand.record(5, 1_000);
    demand.record(3, 8_000);
    expect(demand.peak(11_000)).toBe(5);
    expect(demand.peak(11_001)).toBe(3);
    expect(demand.peak(18_001)).toBe(0);
  });
});
