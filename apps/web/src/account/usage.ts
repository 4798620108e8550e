import type { UsageMetric } from '@weft/contracts';
import { formatDuration } from '../time';
import { formatCount, utcDay } from './format';
import type { UsageRow, UsageTotals } from './types';

/** The gateway reads at most this many days at once (`MAX_USAGE_DAYS`). */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

export interface DayRange {
  from: string;
  to: string;
}

/** The `days` UTC days up to and including today's. */
export function lastDays(days: number, now = new Date()): DayRange {
  return { from: utcDay(new Date(now.getTime() - (days - 1) * DAY_MS)), to: utcDay(now) };
}

/** Why the range cannot be asked for, or null. */
export function rangeProblem(range: DayRange): string | null {
  const from = Date.parse(`${range.from}T00:00:00Z`);
  const to = Date.parse(`${range.to}T00:00:00Z`);
  if (Number.isNaN(from) || Number.isNaN(to)) return 'Pick a first and a last day.';
  if (from > to) return 'The first day is after the last.';
  if ((to - from) / DAY_MS + 1 > MAX_RANGE_DAYS) return `At most ${MAX_RANGE_DAYS} days at once.`;
  return null;
}

/** Tokens as the daily quota counts them: prompt tokens evaluated plus tokens generated. */
export function quotaTokens(figures: Pick<UsageTotals, 'evaluatedTokens' | 'completionTokens'>): number {
  return figures.evaluatedTokens + figures.completionTokens;
}

export interface UsageColumn {
  metric: UsageMetric;
  label: string;
  format: (value: number) => string;
}

/** The figures a usage table shows, in the gateway's order; `generations` and `evaluatedTokens` stay in the CSV. */
export const USAGE_COLUMNS: readonly UsageColumn[] = [
  { metric: 'turns', label: 'Turns', format: formatCount },
  { metric: 'promptTokens', label: 'Prompt tokens', format: formatCount },
  { metric: 'cachedTokens', label: 'Cached', format: formatCount },
  { metric: 'completionTokens', label: 'Generated', format: formatCount },
  { metric: 'toolCalls', label: 'Tool calls', format: formatCount },
  { metric: 'sandboxRuns', label: 'Commands', format: formatCount },
  { metric: 'sandboxMs', label: 'Sandbox time', format: (ms) => (ms === 0 ? '0' : formatDuration(ms)) },
];

/** Newest day first; within a day by user, then model. */
export function sortUsageRows<R extends UsageRow>(rows: readonly R[]): R[] {
  return [...rows].sort((a, b) => b.date.localeCompare(a.date) || (a.userId ?? '').localeCompare(b.userId ?? '') || a.model.localeCompare(b.model));
}

export interface UserUsage {
  userId: string;
  turns: number;
  tokens: number;
  sandboxMs: number;
}

/** Each user's sums over the rows, the heaviest user (by quota tokens) first. */
export function usageByUser(rows: readonly UsageRow[]): UserUsage[] {
  const byUser = new Map<string, UserUsage>();
  for (const row of rows) {
    const userId = row.userId ?? '';
    const sum = byUser.get(userId) ?? { userId, turns: 0, tokens: 0, sandboxMs: 0 };
    sum.turns += row.turns;
    sum.tokens += quotaTokens(row);
    sum.sandboxMs += row.sandboxMs;
    byUser.set(userId, sum);
  }
  return [...byUser.values()].sort((a, b) => b.tokens - a.tokens || a.userId.localeCompare(b.userId));
}

/** The models the rows name, for a filter's choices. */
export function modelsOf(rows: readonly UsageRow[]): string[] {
  return [...new Set(rows.map((r) => r.model))].sort();
}
