import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

/** A user's personal instructions, added to the system prompt of every session of theirs. */
@Injectable()
export class UserInstructionsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async get(userId: string): Promise<{ content: string; updatedAt: string } | undefined> {
    const record = await this.redis.hgetall(this.keys.userInstructions(userId));
    if (record.content === undefined) return undefined;
    return { content: record.content, updatedAt: record.updatedAt ?? '' };
  }

  async put(userId: string, content: string): Promise<void> {
    const key = this.keys.userInstructions(userId);
    if (content === '') await this.redis.del(key);
    else await this.redis.hset(key, { content, updatedAt: new Date().toISOString() });
  }
}
