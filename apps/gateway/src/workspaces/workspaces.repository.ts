import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

export interface Workspace {
  id: string;
  ownerId: string;
  createdAt: string;
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
    return { id: record.id, ownerId: record.ownerId, createdAt: record.createdAt ?? '' };
  }

  async listOwned(ownerId: string): Promise<Workspace[]> {
    const ids = await this.redis.zrevrange(this.keys.userWorkspaces(ownerId), 0, -1);
    const found = await Promise.all(ids.map((id) => this.findOwned(ownerId, id)));
    return found.filter((w): w is Workspace => w !== undefined);
  }
}
