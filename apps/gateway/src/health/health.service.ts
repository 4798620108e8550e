import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { NatsConnectionHandle } from '../infra/nats.connection';
import { REDIS } from '../infra/tokens';

const PROBE_TIMEOUT_MS = 1_000;

export interface Readiness {
  ready: boolean;
  checks: { redis: 'up' | 'down'; nats: 'up' | 'down' };
}

@Injectable()
export class HealthService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly nats: NatsConnectionHandle,
  ) {}

  async readiness(): Promise<Readiness> {
    const [redis, nats] = await Promise.all([this.pingRedis(), this.nats.ping(PROBE_TIMEOUT_MS)]);
    return { ready: redis && nats, checks: { redis: redis ? 'up' : 'down', nats: nats ? 'up' : 'down' } };
  }

  private async pingRedis(): Promise<boolean> {
    if (this.redis.status !== 'ready') return false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS)));
    try {
      return await Promise.race([this.redis.ping().then((reply) => reply === 'PONG'), deadline]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}
