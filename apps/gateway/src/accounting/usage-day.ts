/** Usage is kept per UTC day: `2026-11-23`. */
export function utcDay(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}

/** Seconds until the next UTC midnight, when the day's token quota starts again. */
export function secondsToNextUtcDay(at: Date = new Date()): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - at.getTime()) / 1000));
}

/** Every day from `from` to `to` inclusive (both `YYYY-MM-DD`), oldest first. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = new Date(`${from}T00:00:00Z`); utcDay(at) <= to; at.setUTCDate(at.getUTCDate() + 1)) days.push(utcDay(at));
  return days;
}
