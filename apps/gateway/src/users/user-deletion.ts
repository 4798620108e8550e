import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { OidcUsers } from '../auth/oidc/oidc-users';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { escapeGlob } from '../storage/redis-exporter';
import { SessionsRepository } from '../sessions/sessions.repository';
import { WorkspacesService } from '../workspaces/workspaces.service';
import type { User } from './users.repository';

/** How long a deletion waits for the user's cancelled turns to end. */
const TURNS_END_WAIT_MS = 15_000;
const SCAN_COUNT = 1000;
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
 * snapshots, notes, rules), keys, limits, instructions, every other record under the user's own
 * prefix (stored responses, quota reservations), their link to the identity provider and the user.
 * The caller has disabled the user and cancelled their turns: deletion waits for those to end, so
 * no run writes into what is being removed. Usage figures stay (they are the team's accounts)
 * until they age out. The id is never given again: an SSO user signing in again is a new user.
 */
@Injectable()
export class UserDeletion {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly sessions: SessionsRepository,
    private readonly workspaces: WorkspacesService,
    private readonly oidcUsers: OidcUsers,
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
    const rateCounters = await this.scan(`${escapeGlob(this.keys.requestRatePrefix())}:*:${escapeGlob(user.id)}`);
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
    // Records other features keep under the user's prefix (`user:<id>:…`): stored responses, quota reservations.
    for (const batch of chunks(await this.scan(`${escapeGlob(this.keys.user(user.id))}:*`), SCAN_COUNT)) await this.redis.unlink(...batch);
    await this.oidcUsers.forget(user.id);
    return { id: user.id, name: user.name, sessions: sessions.length, workspaces: workspaces.length, keys: keyHashes.length };
  }

  private async scan(match: string): Promise<string[]> {
    const found: string[] = [];
    for await (const batch of this.redis.scanStream({ match, count: SCAN_COUNT }) as AsyncIterable<string[]>) found.push(...batch);
    return found;
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

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}
