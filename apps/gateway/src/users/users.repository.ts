import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { USER_ROLES, type UserRole } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { CredentialWatch } from '../auth/credential-watch';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

export { USER_ROLES, type UserRole };

export interface User {
  id: string;
  name: string;
  createdAt: string;
  role: UserRole;
  /** A disabled user's keys are refused; their data stays. */
  disabled: boolean;
}

/**
 * Claims the name and stores the user, or does nothing when the name is taken.
 * KEYS: names hash, user hash, users zset, enabled-admins set. ARGV: lower-cased name, id, name, createdAt, score, role.
 */
const CREATE_USER_LUA = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'id', ARGV[2], 'name', ARGV[3], 'createdAt', ARGV[4], 'role', ARGV[6], 'disabled', '')
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[2])
if ARGV[6] == 'admin' then redis.call('SADD', KEYS[4], ARGV[2]) end
return 1
`;

/**
 * Sets the role and/or disabled flag and keeps the enabled-admins set in step, unless that would
 * leave no enabled admin while the bootstrap token is off (checked in the same step, so two admins
 * demoting each other at once cannot both succeed).
 * KEYS: user hash, enabled-admins set, bootstrap hash. ARGV: user id, role ('' unchanged), disabled ('1', '0', '' unchanged).
 */
const UPDATE_USER_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local role = ARGV[2]
if role == '' then role = redis.call('HGET', KEYS[1], 'role') or 'member' end
local disabled = ARGV[3]
if disabled == '' then disabled = (redis.call('HGET', KEYS[1], 'disabled') == '1') and '1' or '0' end
local admin = role == 'admin' and disabled ~= '1'
if not admin and redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 and redis.call('SCARD', KEYS[2]) == 1 and redis.call('HGET', KEYS[3], 'mode') == 'off' then
  return 'last-admin'
end
redis.call('HSET', KEYS[1], 'role', role, 'disabled', disabled == '1' and '1' or '')
if admin then redis.call('SADD', KEYS[2], ARGV[1]) else redis.call('SREM', KEYS[2], ARGV[1]) end
return 'ok'
`;

@Injectable()
export class UsersRepository implements OnModuleInit {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly watch: CredentialWatch,
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
      4,
      this.keys.userNames(),
      this.keys.user(user.id),
      this.keys.users(),
      this.keys.enabledAdmins(),
      user.name.toLowerCase(),
      user.id,
      user.name,
      user.createdAt,
      Date.parse(user.createdAt),
      user.role,
    );
    return created === 1;
  }

  async find(userId: string): Promise<User | undefined> {
    const record = await this.redis.hgetall(this.keys.user(userId));
    if (!record.id || record.name === undefined) return undefined;
    // Users stored before roles existed have none: they are members.
    const role: UserRole = record.role === 'admin' ? 'admin' : 'member';
    return { id: record.id, name: record.name, createdAt: record.createdAt ?? '', role, disabled: record.disabled === '1' };
  }

  async list(): Promise<User[]> {
    const ids = await this.redis.zrange(this.keys.users(), 0, -1);
    const users = await Promise.all(ids.map((id) => this.find(id)));
    return users.filter((u): u is User => u !== undefined);
  }

  async exists(userId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.user(userId))) === 1;
  }

  /**
   * `last-admin` (and nothing changed) when the user is the last enabled admin, the change would
   * end that and the bootstrap token is off; `missing` when there is no such user.
   */
  async update(userId: string, change: { role?: UserRole; disabled?: boolean }): Promise<'ok' | 'missing' | 'last-admin'> {
    const disabled = change.disabled === undefined ? '' : change.disabled ? '1' : '0';
    const outcome = await this.redis.eval(UPDATE_USER_LUA, 3, this.keys.user(userId), this.keys.enabledAdmins(), this.keys.adminBootstrap(), userId, change.role ?? '', disabled);
    // The user's open streams, on any replica, end with their keys.
    if (outcome === 'ok' && change.disabled === true) await this.watch.announce({ userId });
    if (outcome === 'ok' || outcome === 'missing' || outcome === 'last-admin') return outcome;
    throw new Error(`The user update script answered ${String(outcome)}`);
  }
}
