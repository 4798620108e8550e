import { z } from 'zod';

export const natsEnv = {
  /** The NATS server every service talks through. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Set where NATS requires a user (the compose stack; a remote inference worker). */
  NATS_USER: z.string().min(1).optional(),
  /** NATS_USER's password (`npm run setup` writes the compose stack's into `.env`). */
  NATS_PASSWORD: z.string().optional(),
  /** A file holding NATS_PASSWORD instead (a Swarm or Kubernetes secret, e.g. `/run/secrets/nats_password`). */
  NATS_PASSWORD_FILE: z.string().min(1).optional(),
  /** A CA bundle: the connection must then be TLS, with a server certificate it signed. */
  NATS_TLS_CA: z.string().min(1).optional(),
  /** Every NATS request gives up after this long unless a caller sets its own. */
  NATS_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
};

export const redisEnv = {
  /** Redis: sessions, event logs, keys, quotas, usage and the BullMQ queues. */
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
};

export const logEnv = {
  /** pino's level for this process's JSON log lines. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

export const workspacesEnv = {
  /** Where this process sees the workspaces volume. */
  WORKSPACES_DIR: z.string().default('/var/lib/weft/workspaces'),
};

/**
 * The `/metrics` endpoint of the tools and sandbox workers. Off unless set (tests start several
 * workers in one process); the compose file sets 9464, the port the inference worker defaults to.
 */
export const workerMetricsEnv = {
  /** Prometheus `/metrics` port; 0 turns the endpoint off. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** The address the `/metrics` endpoint binds. */
  METRICS_HOST: z.string().default('0.0.0.0'),
};

export const readinessEnv = {
  /** Written once the worker listens; the container health check looks for it. */
  READY_FILE: z.string().default('/tmp/weft-ready'),
};
