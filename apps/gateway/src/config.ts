import { gatewayConfigSchema } from '@weft/config';
import { z } from 'zod';

/**
 * The gateway's config: the shared schema plus the Redis key prefix, which lets several
 * deployments (or test runs) share one Redis without seeing each other's records.
 */
export const gatewaySettingsSchema = gatewayConfigSchema.extend({
  /** Prefix of every Redis key, so deployments (or test runs) can share one Redis; the sandbox's must match. */
  REDIS_KEY_PREFIX: z.string().min(1).default('weft:'),
  /** Workspaces no session has used for this many days are deleted, as DELETE does; 0 (the default) keeps them forever. */
  WORKSPACE_IDLE_DAYS: z.coerce.number().min(0).default(0),
  /** How often the gateway looks for idle workspaces; one replica sweeps per interval. */
  WORKSPACE_EXPIRY_INTERVAL_MS: z.coerce.number().int().min(100).default(60 * 60_000),
  /** How long a response stored by the OpenAI Responses API (`store`) is kept, as OpenAI keeps them. */
  OPENAI_RESPONSES_TTL_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /**
   * Where a backup is built and a restore unpacked, each in its own folder removed when it ends.
   * A disk, not memory: the compose file mounts a volume here. Unset: the system's temporary
   * folder, which is memory where /tmp is a tmpfs.
   */
  BACKUP_STAGING_DIR: z.string().min(1).optional(),
});
export type GatewaySettings = z.infer<typeof gatewaySettingsSchema>;

/** Injection token of the parsed config. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
