import { describe, expect, it } from 'vitest';
import { median, percentile, roundRatios, type LevelResult } from './stats';

const level = (tokensPerSecond: number): LevelResult => ({
  concurrency: 1,
  requests: 1,
  ttftP50: 0,
  ttftP99: 0,
  tokensPerSecond,
  wallMs: 1,
  evaluatedPerRequest: 0,
  generatedPerRequest: 0,
});

describe('bench statistics', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('pairs rounds by index for ratios', () => {
    expect(roundRatios([level(100), level(90)], [level(50), level(100)])).toEqual([2, 0.9]);
    expect(roundRatios([level(100)], [])[0]).toBeNaN();
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 99)).toBe(40);
  });
});
