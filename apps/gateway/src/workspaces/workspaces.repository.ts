import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

export interface Workspace {
  id: string;
  ownerId: string;
  /** The uploaded folder's name by default; the owner may rename it. */
  name: string;
  createdAt: string;
  /** When a session was last created or a turn last started on it; `createdAt` until then. */
  lastUsedAt: string;
}

@Injectable()
export class WorkspacesRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(workspace: Workspace): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.workspace(workspace.id), { ...workspace })
      .zadd(this.keys.userWorkspaces(workspace.ownerId), Date.parse(workspace.createdAt), workspace.id)
      .exec();
  }

  /** Another user's workspace is reported exactly like a missing one. */
  async findOwned(ownerId: string, workspaceId: string): Promise<Workspace | undefined> {
    const record = await this.redis.hgetall(this.keys.workspace(workspaceId));
    if (!record.id || record.ownerId !== ownerId) return undefined;
    const createdAt = record.createdAt ?? '';
    // Workspaces made before names existed are called by their id.
    return { id: record.id, ownerId: record.ownerId, name: record.name || record.id, createdAt, lastUsedAt: record.lastUsedAt || createdAt };
  }

  async listOwned(ownerId: string): Promise<Workspace[]> {
    const ids = await this.redis.zrevrange(this.keys.userWorkspaces(ownerId), 0, -1);
    const found = await Promise.all(ids.map((id) => this.findOwned(ownerId, id)));
    return found.filter((w): w is Workspace => w !== undefined);
  }

  async rename(workspaceId: string, name: string): Promise<void> {
    await this.redis.hset(this.keys.workspace(workspaceId), 'name', name);
  }

  async touch(workspaceId: string, at = new Date()): Promise<void> {
    if ((await this.redis.exists(this.keys.workspace(workspaceId))) === 1) await this.redis.hset(this.keys.workspace(workspaceId), 'lastUsedAt', at.toISOString());
  }

  async remove(ownerId: string, workspaceId: string): Promise<void> {
    await this.redis.multi().del(this.keys.workspace(workspaceId), this.keys.workspaceNotes(workspaceId)).zrem(this.keys.userWorkspaces(ownerId), workspaceId).exec();
  }

  /** The owner's sessions on this workspace that are running a turn right now. */
  async sessionsRunningIn(ownerId: string, workspaceId: string): Promise<string[]> {
    const sessionIds = await this.redis.zrange(this.keys.userSessions(ownerId), 0, -1);
    const running: string[] = [];
    for (const sessionId of sessionIds) {
      const [ws, active] = await this.redis.hmget(this.keys.session(sessionId), 'workspaceId', 'activeTurnId');
      if (ws === workspaceId && active) running.push(sessionId);
    }
    return running;
  }
}
