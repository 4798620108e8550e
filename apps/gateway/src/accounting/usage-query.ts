import { z } from 'zod';
import { userIdSchema } from '../common/ids';
import { daysBetween, utcDay } from './usage-day';

/** The longest range one usage query reads: a year of daily hashes. */
export const MAX_USAGE_DAYS = 366;
const DEFAULT_DAYS = 30;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD').refine(isCalendarDay, 'must be a real date');

/** `2026-02-30` parses (as 2 March): a real day reads back the same. */
function isCalendarDay(d: string): boolean {
  const at = Date.parse(`${d}T00:00:00Z`);
  return !Number.isNaN(at) && utcDay(new Date(at)) === d;
}

/** `from`/`to` (inclusive, UTC days; default the last 30 days), `model`, and for admins `user` and `format`. */
export const usageQuerySchema = z
  .strictObject({
    from: day.optional(),
    to: day.optional(),
    model: z.string().min(1).max(200).optional(),
    user: userIdSchema.optional(),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .transform((q) => {
    const to = q.to ?? utcDay();
    const from = q.from ?? utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * 86_400_000));
    return { ...q, from, to };
  })
  .refine((q) => q.from <= q.to, { message: 'from must not be after to', path: ['from'] })
  .refine((q) => daysBetween(q.from, q.to).length <= MAX_USAGE_DAYS, { message: `at most ${MAX_USAGE_DAYS} days at once`, path: ['from'] });
export type UsageQuery = z.infer<typeof usageQuerySchema>;
