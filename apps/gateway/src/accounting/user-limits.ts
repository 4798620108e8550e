import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { LimitOverridesBody } from '@weft/contracts';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { groupLimitsKey } from '../auth/oidc/group-limits';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

/** What an admin set for one user (`limitOverridesBodySchema`); a field left out takes the server default. */
export type UserLimitOverrides = LimitOverridesBody;
export type UserLimits = Required<UserLimitOverrides>;

const FIELDS = ['weight', 'requestsPerMinute', 'concurrentTurns', 'tokensPerDay', 'sandboxSecondsPerDay'] as const;

/** Per-user overrides in Redis over the server's defaults (QUOTA_* settings). */
@Injectable()
export class UserLimitsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
  ) {}

  defaults(): UserLimits {
    return {
      weight: 1,
      requestsPerMinute: this.config.QUOTA_REQUESTS_PER_MINUTE,
      concurrentTurns: this.config.QUOTA_CONCURRENT_TURNS,
      tokensPerDay: this.config.QUOTA_TOKENS_PER_DAY,
      sandboxSecondsPerDay: this.config.QUOTA_SANDBOX_SECONDS_PER_DAY,
    };
  }

  async overrides(userId: string): Promise<UserLimitOverrides> {
    return this.read(this.keys.userLimits(userId));
  }

  /** The quota class the user's groups at the identity provider give them (docs/sso.md); under the admin's overrides. */
  groupLimits(userId: string): Promise<UserLimitOverrides> {
    return this.read(groupLimitsKey(this.keys, userId));
  }

  private async read(key: string): Promise<UserLimitOverrides> {
    const stored = await this.redis.hgetall(key);
    const overrides: UserLimitOverrides = {};
    for (const field of FIELDS) {
      const value = stored[field];
      if (value !== undefined && value !== '') overrides[field] = Number(value);
    }
    return overrides;
  }

  async effective(userId: string): Promise<UserLimits> {
    return { ...this.defaults(), ...(await this.groupLimits(userId)), ...(await this.overrides(userId)) };
  }

  /** Replaces the user's overrides: a field left out goes back to the default. */
  async replace(userId: string, overrides: UserLimitOverrides): Promise<void> {
    const key = this.keys.userLimits(userId);
    const multi = this.redis.multi().del(key);
    const fields = Object.entries(overrides).filter(([, value]) => value !== undefined);
    if (fields.length > 0) multi.hset(key, Object.fromEntries(fields.map(([field, value]) => [field, String(value)])));
    await multi.exec();
  }
}
