const counts = new Intl.NumberFormat('en-US');

/** `12,345`: the same grouping whatever the browser's language, so columns line up. */
export function formatCount(n: number): string {
  return counts.format(n);
}

/** `2026-11-24` of a moment, in UTC: the days usage is counted by. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** `2026-11-24 14:05 UTC`, or '—' for no time. */
export function formatInstant(iso: string | null): string {
  if (!iso) return '—';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${utcDay(at)} ${at.toISOString().slice(11, 16)} UTC`;
}
