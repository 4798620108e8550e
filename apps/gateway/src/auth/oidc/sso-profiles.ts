import { Inject, Injectable } from '@nestjs/common';
import type { SsoProfile } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';
import type { UserRole } from '../../users/users.repository';
import { groupLimitsKey } from './group-limits';
import { ModelAccess } from './model-access';

/** Where a user's record of their last sign-in through the provider is kept (written by `OidcUsers`). */
export function ssoProfileKey(keys: RedisKeys, userId: string): string {
  return `${keys.prefix}oidc:profile:${userId}`;
}

/**
 * What the admin listings show of a user's provider side: email and groups of their last sign-in,
 * where their role came from, the quota class and model rules their groups gave them.
 */
@Injectable()
export class SsoProfiles {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly modelAccess: ModelAccess,
  ) {}

  async signedIn(userId: string): Promise<boolean> {
    return (await this.redis.hexists(ssoProfileKey(this.keys, userId), 'subject')) === 1;
  }

  /** Null for a user who never signed in through the provider. */
  async of(userId: string, role: UserRole): Promise<SsoProfile | null> {
    const record = await this.redis.hgetall(ssoProfileKey(this.keys, userId));
    if (!record.subject) return null;
    const quotaClass = await this.redis.hgetall(groupLimitsKey(this.keys, userId));
    const models = await this.modelAccess.rulesOf(userId);
    return {
      email: record.email || null,
      groups: JSON.parse(record.groups ?? '[]') as string[],
      signedInAt: record.signedInAt ?? '',
      // An admin who changed the role since the last sign-in set it in Weft, until the next sign-in.
      roleFrom: record.providerRole === role ? 'provider' : 'weft',
      quotaClass: Object.fromEntries(Object.entries(quotaClass).map(([field, value]) => [field, Number(value)])),
      models: models ? { allow: models.allow ?? null, deny: models.deny } : null,
    };
  }
}
