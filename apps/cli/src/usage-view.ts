import { USAGE_METRICS, type Limits, type UsageMetric, type UsageTotals } from './accounting-schemas';
import type { Colors } from './render';
import { formatTable, type Column } from './table';

const METRIC_HEADERS: Record<UsageMetric, string> = {
  turns: 'turns',
  generations: 'generations',
  promptTokens: 'prompt',
  cachedTokens: 'cached',
  evaluatedTokens: 'evaluated',
  completionTokens: 'completion',
  toolCalls: 'tool calls',
  sandboxRuns: 'sandbox runs',
  sandboxMs: 'sandbox ms',
};

export interface UsageReport {
  readonly from: string;
  readonly to: string;
  readonly totals: UsageTotals;
  readonly rows: ReadonlyArray<UsageTotals & { date: string; model: string; userId?: string }>;
}

/** Usage per day and model (and user, for the admin) with a totals line; token columns are tokens. */
export function usageLines(report: UsageReport, c: Colors, options: { withUser?: boolean } = {}): string[] {
  const title = `usage from ${report.from} to ${report.to} (UTC days)`;
  if (report.rows.length === 0) return [c.dim(`no ${title}`)];
  const keys: Column[] = [{ header: 'date' }, ...(options.withUser ? [{ header: 'user' }] : []), { header: 'model' }];
  const columns = [...keys, ...USAGE_METRICS.map((metric): Column => ({ header: METRIC_HEADERS[metric], align: 'right' }))];
  const counts = (totals: UsageTotals) => USAGE_METRICS.map((metric) => String(totals[metric]));
  const rows = report.rows.map((row) => [row.date, ...(options.withUser ? [row.userId ?? ''] : []), row.model, ...counts(row)]);
  const total = ['total', ...keys.slice(1).map(() => ''), ...counts(report.totals)];
  const [header = '', ...body] = formatTable(columns, [...rows, total]);
  const totalLine = body.pop() ?? '';
  return [c.dim(title), c.dim(header), ...body, c.bold(totalLine)];
}

/** `600 requests/min · 8 concurrent turns · tokens/day unlimited · weight 1`: 0 is no limit. */
export function describeLimits(limits: Limits): string {
  return [
    quota(limits.requestsPerMinute, 'requests/min'),
    quota(limits.concurrentTurns, 'concurrent turns'),
    quota(limits.tokensPerDay, 'tokens/day'),
    quota(limits.sandboxSecondsPerDay, 'sandbox s/day'),
    `weight ${limits.weight}`,
  ].join(' · ');
}

export function describeQuota(value: number): string {
  return value === 0 ? 'unlimited' : String(value);
}

function quota(value: number, unit: string): string {
  return value === 0 ? `${unit} unlimited` : `${value} ${unit}`;
}
