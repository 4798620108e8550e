import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

export interface User {
  id: string;
  name: string;
  createdAt: string;
}

@Injectable()
export class UsersRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(user: User): Promise<void> {
    await this.redis.hset(this.keys.user(user.id), { ...user });
  }

  async find(userId: string): Promise<User | undefined> {
    const record = await this.redis.hgetall(this.keys.user(userId));
    if (!record.id || record.name === undefined) return undefined;
    return { id: record.id, name: record.name, createdAt: record.createdAt ?? '' };
  }

  async exists(userId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.user(userId))) === 1;
  }
}
