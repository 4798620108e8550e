import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';

/** A browser's sign-in: the cookie holds `id`; the page sends `csrfToken` with every change. */
export interface WebSession {
  id: string;
  userId: string;
  csrfToken: string;
  expiresAt: string;
}

/**
 * Browser sessions in Redis, expiring on their own; each user's are indexed so that disabling
 * the user ends all of them.
 */
@Injectable()
export class WebSessionsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(userId: string, ttlSeconds: number): Promise<WebSession> {
    const session = {
      id: randomBytes(32).toString('base64url'),
      userId,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString(),
    };
    await this.redis
      .multi()
      .hset(this.key(session.id), session)
      .expire(this.key(session.id), ttlSeconds)
      .sadd(this.userIndex(userId), session.id)
      // Every session lives equally long, so the newest one decides when the index may go.
      .expire(this.userIndex(userId), ttlSeconds)
      .exec();
    return session;
  }

  async find(id: string): Promise<WebSession | undefined> {
    const record = await this.redis.hgetall(this.key(id));
    if (!record.id || !record.userId || !record.csrfToken || !record.expiresAt) return undefined;
    return { id: record.id, userId: record.userId, csrfToken: record.csrfToken, expiresAt: record.expiresAt };
  }

  async destroy(session: Pick<WebSession, 'id' | 'userId'>): Promise<void> {
    await this.redis.multi().del(this.key(session.id)).srem(this.userIndex(session.userId), session.id).exec();
  }

  /** Ends every browser session of the user (disabled in Weft, or refused by the provider). */
  async destroyAllFor(userId: string): Promise<number> {
    const ids = await this.redis.smembers(this.userIndex(userId));
    if (ids.length === 0) return 0;
    await this.redis.del(...ids.map((id) => this.key(id)), this.userIndex(userId));
    return ids.length;
  }

  private key(id: string): string {
    return `${this.keys.prefix}oidc:session:${id}`;
  }

  private userIndex(userId: string): string {
    return `${this.keys.prefix}oidc:user-sessions:${userId}`;
  }
}
