import type { LimitOverridesBody, allUsageSchema, limitsSchema, myLimitsSchema, myUsageSchema, usageTotalsSchema, userLimitsSchema } from '@weft/contracts';
import type { z } from 'zod';

/** The usage and limit answers as the CLI reads them; their schemas are the gateway's (libs/contracts). */
export { USAGE_METRICS, type UsageMetric } from '@weft/contracts';
export type UsageTotals = z.infer<typeof usageTotalsSchema>;
export type MyUsage = z.infer<typeof myUsageSchema>;
export type AllUsage = z.infer<typeof allUsageSchema>;
export type Limits = z.infer<typeof limitsSchema>;
export type LimitOverrides = LimitOverridesBody;
export type MyLimits = z.infer<typeof myLimitsSchema>;
export type UserLimits = z.infer<typeof userLimitsSchema>;

/** `from`/`to` are UTC days, inclusive; the gateway defaults to the last 30 days. */
export interface UsageFilter {
  readonly from?: string;
  readonly to?: string;
  readonly model?: string;
}
