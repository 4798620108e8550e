import { gatewayConfigSchema } from '@weft/config';
import { z } from 'zod';

/**
 * The gateway's config: the shared schema plus the Redis key prefix, which lets several
 * deployments (or test runs) share one Redis without seeing each other's records.
 */
export const gatewaySettingsSchema = gatewayConfigSchema.extend({
  REDIS_KEY_PREFIX: z.string().min(1).default('weft:'),
});
export type GatewaySettings = z.infer<typeof gatewaySettingsSchema>;

/** Injection token of the parsed config. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
