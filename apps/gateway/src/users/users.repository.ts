import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

export interface User {
  id: string;
  name: string;
  createdAt: string;
  /** A disabled user's keys are refused; their data stays. */
  disabled: boolean;
}

/**
 * Claims the name and stores the user, or does nothing when the name is taken.
 * KEYS: names hash, user hash, users zset. ARGV: lower-cased name, id, name, createdAt, score.
 */
const CREATE_USER_LUA = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'id', ARGV[2], 'name', ARGV[3], 'createdAt', ARGV[4], 'disabled', '')
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[2])
return 1
`;

@Injectable()
export class UsersRepository implements OnModuleInit {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Users made before the index existed are added to it (and their names claimed) once. */
  async onModuleInit(): Promise<void> {
    if ((await this.redis.exists(this.keys.users())) === 1) return;
    const pattern = `${this.keys.user('*')}`;
    for await (const batch of this.redis.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
      for (const key of batch) {
        if (key.slice(this.keys.user('').length).includes(':')) continue;
        const user = await this.find(key.slice(this.keys.user('').length));
        if (!user) continue;
        await this.redis.multi().zadd(this.keys.users(), Date.parse(user.createdAt) || 0, user.id).hsetnx(this.keys.userNames(), user.name.toLowerCase(), user.id).exec();
      }
    }
  }

  /** False when another user already has this name (compared without case). */
  async create(user: Omit<User, 'disabled'>): Promise<boolean> {
    const created = await this.redis.eval(
      CREATE_USER_LUA,
      3,
      this.keys.userNames(),
      this.keys.user(user.id),
      this.keys.users(),
      user.name.toLowerCase(),
      user.id,
      user.name,
      user.createdAt,
      Date.parse(user.createdAt),
    );
    return created === 1;
  }

  async find(userId: string): Promise<User | undefined> {
    const record = await this.redis.hgetall(this.keys.user(userId));
    if (!record.id || record.name === undefined) return undefined;
    return { id: record.id, name: record.name, createdAt: record.createdAt ?? '', disabled: record.disabled === '1' };
  }

  async list(): Promise<User[]> {
    const ids = await this.redis.zrange(this.keys.users(), 0, -1);
    const users = await Promise.all(ids.map((id) => this.find(id)));
    return users.filter((u): u is User => u !== undefined);
  }

  async exists(userId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.user(userId))) === 1;
  }

  async setDisabled(userId: string, disabled: boolean): Promise<void> {
    await this.redis.hset(this.keys.user(userId), 'disabled', disabled ? '1' : '');
  }
}
