import { createHash, randomBytes } from 'node:crypto';
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
  /** When to refresh it at the provider next (ISO time); absent when the provider gave no refresh token. */
  refreshAt?: string;
}

/** What a refresh at the provider needs; kept server-side only, never in a cookie or an answer. */
export interface ProviderGrant {
  refreshToken: string;
  refreshAt: string;
}

/** Stands where an API key's id would (own-key listings, the audit log, stream notices); never the session id itself. */
export function sessionKeyId(session: Pick<WebSession, 'id'>): string {
  return `websession_${createHash('sha256').update(session.id).digest('base64url').slice(0, 12)}`;
}


/**
 * Browser sessions in Redis, expiring on their own; each user's are indexed so that disabling
 * the user ends all of them, and all are indexed by when they are due a refresh at the provider.
 */
@Injectable()
export class WebSessionsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(userId: string, ttlSeconds: number, grant?: ProviderGrant): Promise<WebSession> {
    const session = {
      id: randomBytes(32).toString('base64url'),
      userId,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString(),
    };
    await this.redis
      .multi()
      .hset(this.key(session.id), { ...session, ...(grant ?? {}) })
      .expire(this.key(session.id), ttlSeconds)
      .zadd(this.dueIndex(), grant ? Date.parse(grant.refreshAt) : Date.parse(session.expiresAt), session.id)
      .sadd(this.userIndex(userId), session.id)
      // Every session lives equally long, so the newest one decides when the index may go.
      .expire(this.userIndex(userId), ttlSeconds)
      .exec();
    return { ...session, ...(grant ? { refreshAt: grant.refreshAt } : {}) };
  }

  async find(id: string): Promise<WebSession | undefined> {
    const record = await this.redis.hgetall(this.key(id));
    if (!record.id || !record.userId || !record.csrfToken || !record.expiresAt) return undefined;
    return { id: record.id, userId: record.userId, csrfToken: record.csrfToken, expiresAt: record.expiresAt, ...(record.refreshAt ? { refreshAt: record.refreshAt } : {}) };
  }

  async refreshTokenOf(id: string): Promise<string | undefined> {
    return (await this.redis.hget(this.key(id), 'refreshToken')) ?? undefined;
  }

  /** After a refresh: the new refresh token (providers rotate them) and the next refresh time; nothing when the session ended meanwhile. */
  async refreshed(id: string, grant: ProviderGrant): Promise<void> {
    // HSET on a missing key would bring an ended session back as a fragment.
    if (await this.redis.exists(this.key(id))) await this.redis.multi().hset(this.key(id), grant).zadd(this.dueIndex(), Date.parse(grant.refreshAt), id).exec();
  }

  /** Sessions whose refresh is due (or that have expired, to be dropped from the index), oldest first. */
  async due(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.dueIndex(), '-inf', now, 'LIMIT', 0, limit);
  }

  /** Takes an ended session out of the refresh index. */
  async forget(id: string): Promise<void> {
    await this.redis.zrem(this.dueIndex(), id);
  }

  /** One replica refreshes a session at a time: a rotated refresh token may be used once. */
  async lockRefresh(id: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.key(id)}:refreshing`, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async unlockRefresh(id: string): Promise<void> {
    await this.redis.del(`${this.key(id)}:refreshing`);
  }

  async destroy(session: Pick<WebSession, 'id' | 'userId'>): Promise<void> {
    await this.redis.multi().del(this.key(session.id)).srem(this.userIndex(session.userId), session.id).zrem(this.dueIndex(), session.id).exec();
  }

  /** Ends every browser session of the user (disabled in Weft, or refused by the provider). */
  async destroyAllFor(userId: string): Promise<number> {
    const ids = await this.redis.smembers(this.userIndex(userId));
    if (ids.length === 0) return 0;
    await this.redis.multi().del(...ids.map((id) => this.key(id)), this.userIndex(userId)).zrem(this.dueIndex(), ...ids).exec();
    return ids.length;
  }

  private key(id: string): string {
    return `${this.keys.prefix}oidc:session:${id}`;
  }

  /** Every session with the time its refresh is due (its expiry for one without a refresh token). */
  private dueIndex(): string {
    return `${this.keys.prefix}oidc:sessions-due`;
  }

  private userIndex(userId: string): string {
    return `${this.keys.prefix}oidc:user-sessions:${userId}`;
  }
}
