import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import type { RuleSet } from '@weft/contracts';

/** Where a set of rules lives: the server's own, or one user's, workspace's or session's. */
export type RuleOwner =
  | { scope: 'server' }
  | { scope: 'user'; id: string }
  | { scope: 'workspace'; id: string }
  | { scope: 'session'; id: string };

const LISTS = ['allow', 'ask', 'deny'] as const;
export type RuleList = (typeof LISTS)[number];

/** Rules per scope in Redis: a set per list, so `allow_always` is one atomic SADD. */
@Injectable()
export class PermissionRulesRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async get(owner: RuleOwner): Promise<RuleSet> {
    const [allow, ask, deny] = await Promise.all(LISTS.map((list) => this.redis.smembers(this.key(owner, list))));
    return { allow: (allow ?? []).sort(), ask: (ask ?? []).sort(), deny: (deny ?? []).sort() };
  }

  async replace(owner: RuleOwner, rules: RuleSet): Promise<void> {
    const tx = this.redis.multi();
    for (const list of LISTS) {
      const key = this.key(owner, list);
      tx.del(key);
      if (rules[list].length > 0) tx.sadd(key, ...rules[list]);
    }
    await tx.exec();
  }

  async add(owner: RuleOwner, list: RuleList, rules: readonly string[]): Promise<void> {
    if (rules.length > 0) await this.redis.sadd(this.key(owner, list), ...rules);
  }

  async removeOwner(owner: RuleOwner): Promise<void> {
    await this.redis.del(...LISTS.map((list) => this.key(owner, list)));
  }

  private key(owner: RuleOwner, list: RuleList): string {
    return this.keys.permissionRules(owner.scope, owner.scope === 'server' ? 'global' : owner.id, list);
  }
}
