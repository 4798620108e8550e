import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

/** Longer than any sync may take; a replica that dies holding the lock frees it after this. */
export const WORKSPACE_LOCK_MS = 10 * 60_000;

/** Deletes the key only while it still holds this holder's token. */
const RELEASE_LUA = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

export type WorkspaceOperation = 'sync' | 'delete' | 'expiry';

/**
 * One change of a workspace's files at a time, across gateway replicas: a sync, a delete and
 * the idle-expiry sweep each hold the workspace's lock while they work.
 */
@Injectable()
export class WorkspaceLocks {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Runs `work` holding the lock; 409 when another operation holds it. */
  async run<T>(workspaceId: string, operation: WorkspaceOperation, work: () => Promise<T>): Promise<T> {
    const outcome = await this.tryRun(workspaceId, operation, work);
    if (outcome.ran) return outcome.value;
    throw new AppError(ErrorCode.Conflict, `Workspace ${workspaceId} is busy (${outcome.heldBy ?? 'another operation'} in progress); try again in a moment`, {
      heldBy: outcome.heldBy,
    });
  }

  /** Runs `work` holding the lock, or says who holds it. */
  async tryRun<T>(workspaceId: string, operation: WorkspaceOperation, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false; heldBy?: string }> {
    const key = this.keys.workspaceLock(workspaceId);
    const token = `${operation}:${randomBytes(8).toString('hex')}`;
    if ((await this.redis.set(key, token, 'PX', WORKSPACE_LOCK_MS, 'NX')) !== 'OK') {
      return { ran: false, heldBy: (await this.redis.get(key))?.split(':')[0] };
    }
    try {
      return { ran: true, value: await work() };
    } finally {
      await this.redis.eval(RELEASE_LUA, 1, key, token);
    }
  }
}
