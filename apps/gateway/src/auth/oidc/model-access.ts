import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import picomatch from 'picomatch';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';
import { OIDC_SETTINGS, type OidcSettings } from './oidc-settings';

/** What a user's groups say about models: `allow` undefined means every model. */
export interface ModelRules {
  allow: string[] | undefined;
  deny: string[];
}

/** The union of the allow lists of the user's groups that have one, and of all their deny lists. */
export function modelRulesOf(groups: string[], byGroup: OidcSettings['groupModels']): ModelRules {
  const rules = groups.map((group) => byGroup[group]).filter((rule) => rule !== undefined);
  const allows = rules.filter((rule) => rule.allow !== undefined).flatMap((rule) => rule.allow ?? []);
  const hasAllowList = rules.some((rule) => rule.allow !== undefined);
  return { allow: hasAllowList ? allows : undefined, deny: rules.flatMap((rule) => rule.deny ?? []) };
}

/** Deny wins over allow. */
export function mayUse(rules: ModelRules, model: string): boolean {
  if (rules.deny.some((pattern) => picomatch.isMatch(model, pattern))) return false;
  return rules.allow === undefined || rules.allow.some((pattern) => picomatch.isMatch(model, pattern));
}

/**
 * Which models a user signed in through the provider may use (WEFT_OIDC_GROUP_MODELS), set at
 * each sign-in and checked before every generation; users without rules may use every model.
 */
@Injectable()
export class ModelAccess {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined,
  ) {}

  async apply(userId: string, groups: string[]): Promise<void> {
    const rules = modelRulesOf(groups, this.settings?.groupModels ?? {});
    if (rules.allow === undefined && rules.deny.length === 0) await this.redis.del(this.key(userId));
    else await this.redis.hset(this.key(userId), { allow: JSON.stringify(rules.allow ?? null), deny: JSON.stringify(rules.deny) });
  }

  /** Drops the rules of a deleted user. */
  async forget(userId: string): Promise<void> {
    await this.redis.del(this.key(userId));
  }

  /** The rules stored at the user's last sign-in; undefined when they may use every model. */
  async rulesOf(userId: string): Promise<ModelRules | undefined> {
    const stored = await this.redis.hgetall(this.key(userId));
    if (stored.deny === undefined) return undefined;
    return { allow: (JSON.parse(stored.allow ?? 'null') as string[] | null) ?? undefined, deny: JSON.parse(stored.deny) as string[] };
  }

  /** The models of `models` the user's groups let them use (all of them for a user without rules). */
  async filter<M extends { id: string }>(userId: string, models: M[]): Promise<M[]> {
    const rules = await this.rulesOf(userId);
    return rules ? models.filter((model) => mayUse(rules, model.id)) : models;
  }

  /** 403 `AUTH.FORBIDDEN` naming the model when the user's groups do not let them use it. */
  async assertAllowed(userId: string, model: string): Promise<void> {
    const rules = await this.rulesOf(userId);
    if (rules && !mayUse(rules, model)) {
      throw new AppError(ErrorCode.Forbidden, `Your groups do not allow the model "${model}"; ask your admin (WEFT_OIDC_GROUP_MODELS)`, { model });
    }
  }

  private key(userId: string): string {
    return `${this.keys.prefix}oidc:model-access:${userId}`;
  }
}
