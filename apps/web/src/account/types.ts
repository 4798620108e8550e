import type { adminUserSchema, allUsageSchema, createdKeySchema, fleetWorkerSchema, instructionsSchema, limitsSchema, myKeysSchema, myLimitsSchema, myUsageSchema, userLimitsSchema } from '@weft/contracts';
import type { z } from 'zod';

/** The answers the Me and Admin pages read, typed from the gateway's own schemas (libs/contracts). */
export type Instructions = z.infer<typeof instructionsSchema>;
export type MyKey = z.infer<typeof myKeysSchema>['keys'][number];
export type CreatedKey = z.infer<typeof createdKeySchema>;
export type MyUsage = z.infer<typeof myUsageSchema>;
export type AllUsage = z.infer<typeof allUsageSchema>;
export type UsageRow = MyUsage['rows'][number] & { userId?: string };
export type UsageTotals = MyUsage['totals'];
export type Limits = z.infer<typeof limitsSchema>;
export type MyLimits = z.infer<typeof myLimitsSchema>;
export type UserLimits = z.infer<typeof userLimitsSchema>;
export type AdminUser = z.infer<typeof adminUserSchema>;
export type ApiKey = AdminUser['keys'][number];
export type FleetWorker = z.infer<typeof fleetWorkerSchema>;
