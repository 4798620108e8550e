import { z } from 'zod';

/**
 * A tools or sandbox worker's heartbeat, on its service's `worker.announced` subject. Smaller
 * than an inference worker's: the gateway only needs to know that the worker lives, so that a
 * call in flight to a dead one fails in seconds instead of waiting out its request timeout.
 */
export const serviceHeartbeatSchema = z.object({
  workerId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  /** A worker counts as dead after missing about three of these. */
  intervalMs: z.number().int().positive(),
  /** Tells a restarted process from the old one under the same id (a container keeps its host name). */
  startedAt: z.string(),
  sentAt: z.string(),
});
export type ServiceHeartbeat = z.infer<typeof serviceHeartbeatSchema>;

/** How often tools and sandbox workers beat: a dead one is noticed about three of these later. */
export const SERVICE_HEARTBEAT_INTERVAL_MS = 1_000;
