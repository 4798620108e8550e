import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

export interface StoredApiKey {
  keyId: string;
  userId: string;
}

/** API keys by sha256 hash; the key itself is never stored. */
@Injectable()
export class ApiKeysRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async save(keyHash: string, stored: StoredApiKey, createdAt: string): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.apiKey(keyHash), { ...stored, createdAt })
      .hset(this.keys.userKeys(stored.userId), stored.keyId, keyHash)
      .exec();
  }

  async findByHash(keyHash: string): Promise<StoredApiKey | undefined> {
    const record = await this.redis.hgetall(this.keys.apiKey(keyHash));
    if (!record.userId || !record.keyId) return undefined;
    return { keyId: record.keyId, userId: record.userId };
  }
}
