import { workerHeartbeatSchema, type WorkerHeartbeat } from '@weft/contracts';
import type { Redis } from 'ioredis';
import type { FleetKeys } from './fleet-keys';
import type { FleetStore } from './fleet-registry';

/** Sessions keep their worker for this long after their last generation. */
export const AFFINITY_TTL_MS = 2 * 60 * 60 * 1000;

/** The fleet mirrored in Redis: one expiring key per worker, indexed by expiry time. */
export class RedisFleetStore implements FleetStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: FleetKeys,
  ) {}

  async save(heartbeat: WorkerHeartbeat, ttlMs: number): Promise<void> {
    const now = Date.now();
    await this.redis
      .multi()
      .set(this.keys.worker(heartbeat.workerId), JSON.stringify(heartbeat), 'PX', ttlMs)
      .zadd(this.keys.workers(), now + ttlMs, heartbeat.workerId)
      .zremrangebyscore(this.keys.workers(), '-inf', now)
      .exec();
  }

  async remove(workerId: string): Promise<void> {
    await this.redis.multi().del(this.keys.worker(workerId)).zrem(this.keys.workers(), workerId).exec();
  }

  async load(): Promise<WorkerHeartbeat[]> {
    const ids = await this.redis.zrangebyscore(this.keys.workers(), Date.now(), '+inf');
    if (ids.length === 0) return [];
    const bodies = await this.redis.mget(ids.map((id) => this.keys.worker(id)));
    return bodies.flatMap((body) => {
      if (!body) return [];
      const parsed = workerHeartbeatSchema.safeParse(JSON.parse(body));
      return parsed.success && parsed.data.status !== 'stopped' ? [parsed.data] : [];
    });
  }

  async affinity(sessionId: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.affinity(sessionId))) ?? undefined;
  }

  async recordAffinity(sessionId: string, workerId: string): Promise<void> {
    await this.redis.set(this.keys.affinity(sessionId), workerId, 'PX', AFFINITY_TTL_MS);
  }
}
