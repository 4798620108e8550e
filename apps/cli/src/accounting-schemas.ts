import { z } from 'zod';

/** The counters of a usage row, in the gateway's order (docs/api.md, "Admin"). */
export const USAGE_METRICS = ['turns', 'generations', 'promptTokens', 'cachedTokens', 'evaluatedTokens', 'completionTokens', 'toolCalls', 'sandboxRuns', 'sandboxMs'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

const metrics = Object.fromEntries(USAGE_METRICS.map((metric) => [metric, z.number()])) as Record<UsageMetric, z.ZodNumber>;
const totalsSchema = z.object(metrics);
const myUsageRowSchema = z.object({ date: z.string(), model: z.string(), ...metrics });
const userUsageRowSchema = myUsageRowSchema.extend({ userId: z.string() });

export const myUsageSchema = z.object({ from: z.string(), to: z.string(), totals: totalsSchema, rows: z.array(myUsageRowSchema) });
export const allUsageSchema = myUsageSchema.extend({ rows: z.array(userUsageRowSchema) });

/** 0 turns a quota off. */
export const limitsSchema = z.object({
  weight: z.number(),
  requestsPerMinute: z.number(),
  concurrentTurns: z.number(),
  tokensPerDay: z.number(),
  sandboxSecondsPerDay: z.number(),
});
export const myLimitsSchema = z.object({ limits: limitsSchema, tokensUsedToday: z.number() });
export const userLimitsSchema = z.object({
  userId: z.string(),
  defaults: limitsSchema,
  overrides: limitsSchema.partial(),
  effective: limitsSchema,
  tokensUsedToday: z.number(),
});

export type UsageTotals = z.infer<typeof totalsSchema>;
export type MyUsage = z.infer<typeof myUsageSchema>;
export type AllUsage = z.infer<typeof allUsageSchema>;
export type Limits = z.infer<typeof limitsSchema>;
export type LimitOverrides = Partial<Limits>;
export type MyLimits = z.infer<typeof myLimitsSchema>;
export type UserLimits = z.infer<typeof userLimitsSchema>;

/** `from`/`to` are UTC days, inclusive; the gateway defaults to the last 30 days. */
export interface UsageFilter {
  readonly from?: string;
  readonly to?: string;
  readonly model?: string;
}
