import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import type { BootstrapState } from './admin-credential';

/**
 * Turns the bootstrap token off unless no enabled admin user exists (checked in the same step, so a
 * concurrent demotion cannot slip between). KEYS: bootstrap hash, enabled-admins set. ARGV: changedAt.
 */
const TURN_OFF_LUA = `
if redis.call('SCARD', KEYS[2]) == 0 then return 'no-admin' end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'mode', 'off', 'changedAt', ARGV[1])
return 'ok'
`;

/**
 * The bootstrap token's state in Redis, read on every admin request so a rotation counts on every
 * replica at once. No record: WEFT_ADMIN_TOKEN is in effect.
 */
@Injectable()
export class BootstrapTokensRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async state(): Promise<BootstrapState> {
    const record = await this.redis.hgetall(this.keys.adminBootstrap());
    if (record.mode === 'rotated' && record.hash) return { mode: 'rotated', hash: record.hash, changedAt: record.changedAt ?? '' };
    if (record.mode === 'off') return { mode: 'off', changedAt: record.changedAt ?? '' };
    return { mode: 'env' };
  }

  /** From now on only the token of this hash is the bootstrap token. */
  async rotate(hash: string, changedAt: string): Promise<void> {
    const key = this.keys.adminBootstrap();
    await this.redis.multi().del(key).hset(key, { mode: 'rotated', hash, changedAt }).exec();
  }

  /** `no-admin` (and nothing changed) when no enabled admin user exists. */
  async turnOff(changedAt: string): Promise<'ok' | 'no-admin'> {
    const outcome = await this.redis.eval(TURN_OFF_LUA, 2, this.keys.adminBootstrap(), this.keys.enabledAdmins(), changedAt);
    return outcome === 'ok' ? 'ok' : 'no-admin';
  }

  async enabledAdmins(): Promise<number> {
    return this.redis.scard(this.keys.enabledAdmins());
  }

  async enabledAdminIds(): Promise<string[]> {
    return this.redis.smembers(this.keys.enabledAdmins());
  }

  /** WEFT_ADMIN_TOKEN is the bootstrap token again (the break-glass start). */
  async restoreEnvToken(): Promise<void> {
    await this.redis.del(this.keys.adminBootstrap());
  }
}
