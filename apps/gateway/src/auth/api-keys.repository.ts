import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { storeRefusal } from '../infra/store-refusal';
import { REDIS } from '../infra/tokens';
import { CredentialWatch } from './credential-watch';

export interface StoredApiKey {
  keyId: string;
  userId: string;
  /** What the admin called it (`laptop`, `ci`). */
  name: string;
  /** The key's first characters, enough to tell keys apart in a listing; the rest is never kept. */
  prefix: string;
  createdAt: string;
  /** ISO time after which the key is refused; empty: never. */
  expiresAt: string;
  lastUsedAt: string;
}

/** How often the last-used time of a key is written: not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** API keys by sha256 hash; the key itself is never stored. */
@Injectable()
export class ApiKeysRepository {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly watch: CredentialWatch,
  ) {}

  async save(keyHash: string, stored: Omit<StoredApiKey, 'lastUsedAt'>): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.apiKey(keyHash), { ...stored, lastUsedAt: '' })
      .hset(this.keys.userKeys(stored.userId), stored.keyId, keyHash)
      .exec();
  }

  async findByHash(keyHash: string): Promise<StoredApiKey | undefined> {
    return toKey(await this.redis.hgetall(this.keys.apiKey(keyHash)));
  }

  /** The user's keys, oldest first. */
  async listFor(userId: string): Promise<StoredApiKey[]> {
    const hashes = Object.values(await this.redis.hgetall(this.keys.userKeys(userId)));
    const records = await Promise.all(hashes.map((hash) => this.redis.hgetall(this.keys.apiKey(hash))));
    return records.map(toKey).filter((k): k is StoredApiKey => k !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** False when the user has no such key. */
  async revoke(userId: string, keyId: string): Promise<boolean> {
    const hash = await this.redis.hget(this.keys.userKeys(userId), keyId);
    if (!hash) return false;
    await this.redis.multi().del(this.keys.apiKey(hash)).hdel(this.keys.userKeys(userId), keyId).exec();
    // Streams opened with the key are still open, on any replica.
    await this.watch.announce({ keyId });
    return true;
  }

  /** Records a use of the key, at most once a minute per key and replica. */
  async touch(keyHash: string, keyId: string, now = Date.now()): Promise<void> {
    if (now - (this.lastTouched.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(keyId, now);
    // Only a key that still exists: a revoked key's hash must not come back.
    if ((await this.redis.exists(this.keys.apiKey(keyHash))) !== 1) return;
    await this.redis.hset(this.keys.apiKey(keyHash), 'lastUsedAt', new Date(now).toISOString()).catch((error: unknown) => {
      // Bookkeeping: a Redis refusing writes (full) must not turn away a request that only reads.
      if (!storeRefusal(error)) throw error;
    });
  }
}

function toKey(record: Record<string, string>): StoredApiKey | undefined {
  if (!record.userId || !record.keyId) return undefined;
  return {
    keyId: record.keyId,
    userId: record.userId,
    name: record.name ?? '',
    prefix: record.prefix ?? '',
    createdAt: record.createdAt ?? '',
    expiresAt: record.expiresAt ?? '',
    lastUsedAt: record.lastUsedAt ?? '',
  };
}
