import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { SessionsRepository } from '../sessions/sessions.repository';
import { WorkspacesService } from '../workspaces/workspaces.service';
import type { User } from './users.repository';

/** How long a deletion waits for the user's cancelled turns to end. */
const TURNS_END_WAIT_MS = 15_000;
const RULE_LISTS = ['allow', 'ask', 'deny'] as const;

export interface DeletedUser {
  id: string;
  name: string;
  sessions: number;
  workspaces: number;
  keys: number;
}

/**
 * Removes everything a user owns: sessions (histories, events, rules), workspaces (files,
 * snapshots, notes, rules), keys, limits, instructions and the user. The caller has disabled the
 * user and cancelled their turns: deletion waits for those to end, so no run writes into what is
 * being removed. Usage figures stay (they are the team's accounts) until they age out.
 */
@Injectable()
export class UserDeletion {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly sessions: SessionsRepository,
    private readonly workspaces: WorkspacesService,
  ) {}

  async delete(user: User): Promise<DeletedUser> {
    await this.waitForTurnsToEnd(user.id);
    const sessions = await this.sessions.listOwned(user.id);
    for (const session of sessions) await this.sessions.delete(session);
    const workspaces = await this.workspaces.ids(user.id);
    for (const workspaceId of workspaces) {
      await this.workspaces.delete(user.id, workspaceId);
      await this.redis.del(...RULE_LISTS.map((list) => this.keys.permissionRules('workspace', workspaceId, list)));
    }
    const keyHashes = Object.values(await this.redis.hgetall(this.keys.userKeys(user.id)));
    // The per-minute request counters, one per limit the user was counted under.
    const rateCounters: string[] = [];
    for await (const batch of this.redis.scanStream({ match: `${this.keys.requestRatePrefix()}:*:${user.id}`, count: 1000 }) as AsyncIterable<string[]>) rateCounters.push(...batch);
    await this.redis
      .multi()
      .del(
        ...keyHashes.map((hash) => this.keys.apiKey(hash)),
        ...rateCounters,
        ...RULE_LISTS.map((list) => this.keys.permissionRules('user', user.id, list)),
        this.keys.userKeys(user.id),
        this.keys.userLimits(user.id),
        this.keys.userActiveTurns(user.id),
        this.keys.userInstructions(user.id),
        this.keys.userMcp(user.id),
        this.keys.userOverQuota(user.id),
        this.keys.userSessions(user.id),
        this.keys.userWorkspaces(user.id),
        this.keys.user(user.id),
      )
      .zrem(this.keys.users(), user.id)
      .srem(this.keys.enabledAdmins(), user.id)
      .hdel(this.keys.userNames(), user.name.toLowerCase())
      .exec();
    return { id: user.id, name: user.name, sessions: sessions.length, workspaces: workspaces.length, keys: keyHashes.length };
  }

  private async waitForTurnsToEnd(userId: string): Promise<void> {
    const deadline = Date.now() + TURNS_END_WAIT_MS;
    for (;;) {
      const running = (await this.sessions.listOwned(userId)).filter((s) => s.activeTurnId);
      if (running.length === 0) return;
      if (Date.now() > deadline) {
        throw new AppError(ErrorCode.Conflict, `The user's turns are still ending (${running.map((s) => s.id).join(', ')}); try again in a moment`, { sessions: running.map((s) => s.id) });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
