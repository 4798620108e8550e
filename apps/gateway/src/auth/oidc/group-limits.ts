import type { LimitOverridesBody } from '@weft/contracts';
import type { RedisKeys } from '../../infra/redis-keys';

/** Where a user's quota class from their groups is kept; `UserLimitsRepository` reads it under the admin's overrides. */
export function groupLimitsKey(keys: RedisKeys, userId: string): string {
  return `${keys.prefix}oidc:group-limits:${userId}`;
}

/**
 * The quota class of a user in these groups: for each field, the most generous value any of
 * their groups gives (0 means no limit, so it wins; the largest weight wins).
 */
export function quotaClassOf(groups: string[], classes: Record<string, LimitOverridesBody>): LimitOverridesBody {
  const merged: LimitOverridesBody = {};
  for (const group of groups) {
    const limits = classes[group];
    if (!limits) continue;
    for (const [field, value] of Object.entries(limits) as Array<[keyof LimitOverridesBody, number | undefined]>) {
      if (value === undefined) continue;
      const current = merged[field];
      merged[field] = current === undefined ? value : field !== 'weight' && (current === 0 || value === 0) ? 0 : Math.max(current, value);
    }
  }
  return merged;
}
