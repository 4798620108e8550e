import { describe, expect, it } from 'vitest';
import { USAGE_COLUMNS, lastDays, modelsOf, quotaTokens, rangeProblem, sortUsageRows, usageByUser } from './usage';
import type { UsageRow } from './types';

const zero = { turns: 0, generations: 0, promptTokens: 0, cachedTokens: 0, evaluatedTokens: 0, completionTokens: 0, toolCalls: 0, sandboxRuns: 0, sandboxMs: 0 };
const row = (date: string, model: string, figures: Partial<typeof zero> = {}, userId?: string): UsageRow => ({ date, model, ...zero, ...figures, ...(userId ? { userId } : {}) });

describe('usage ranges', () => {
  it('counts the last days back from today, today included, in UTC', () => {
    expect(lastDays(7, new Date('2026-11-24T23:30:00-05:00'))).toEqual({ from: '2026-11-19', to: '2026-11-25' });
    expect(lastDays(1, new Date('2026-03-01T00:00:00Z'))).toEqual({ from: '2026-03-01', to: '2026-03-01' });
  });

  it('refuses a range the gateway would refuse, saying why', () => {
    expect(rangeProblem({ from: '2026-01-01', to: '2026-12-31' })).toBeNull();
    expect(rangeProblem({ from: '', to: '2026-12-31' })).toBe('Pick a first and a last day.');
    expect(rangeProblem({ from: '2026-02-02', to: '2026-02-01' })).toBe('The first day is after the last.');
    expect(rangeProblem({ from: '2025-01-01', to: '2026-01-02' })).toBe('At most 366 days at once.');
    expect(rangeProblem({ from: '2024-01-01', to: '2024-12-31' })).toBeNull();
  });
});

describe('usage tables', () => {
  it('counts quota tokens as evaluated prompt tokens plus generated ones, not cached ones', () => {
    expect(quotaTokens(row('2026-11-24', 'm', { promptTokens: 1000, cachedTokens: 800, evaluatedTokens: 200, completionTokens: 50 }))).toBe(250);
  });

  it('puts the newest day first, then users and models in order', () => {
    const rows = [row('2026-11-23', 'b', {}, 'usr_2'), row('2026-11-24', 'b', {}, 'usr_1'), row('2026-11-23', 'a', {}, 'usr_2'), row('2026-11-23', 'z', {}, 'usr_1')];
    expect(sortUsageRows(rows).map((r) => `${r.date} ${r.userId} ${r.model}`)).toEqual(['2026-11-24 usr_1 b', '2026-11-23 usr_1 z', '2026-11-23 usr_2 a', '2026-11-23 usr_2 b']);
    expect(rows[0]?.date).toBe('2026-11-23');
  });

  it("sums each user's rows, heaviest first", () => {
    const rows = [
      row('2026-11-23', 'a', { turns: 1, evaluatedTokens: 10, completionTokens: 5, sandboxMs: 100 }, 'usr_light'),
      row('2026-11-23', 'a', { turns: 2, evaluatedTokens: 500, completionTokens: 20 }, 'usr_heavy'),
      row('2026-11-24', 'b', { turns: 1, evaluatedTokens: 5, completionTokens: 5, sandboxMs: 50 }, 'usr_light'),
    ];
    expect(usageByUser(rows)).toEqual([
      { userId: 'usr_heavy', turns: 2, tokens: 520, sandboxMs: 0 },
      { userId: 'usr_light', turns: 2, tokens: 25, sandboxMs: 150 },
    ]);
    expect(modelsOf(rows)).toEqual(['a', 'b']);
  });

  it('formats counts with grouping and sandbox time as a duration', () => {
    const format = (metric: string, value: number) => USAGE_COLUMNS.find((c) => c.metric === metric)?.format(value);
    expect(format('promptTokens', 1234567)).toBe('1,234,567');
    expect(format('sandboxMs', 0)).toBe('0');
    expect(format('sandboxMs', 65_000)).toBe('1 min 5 s');
  });
});
