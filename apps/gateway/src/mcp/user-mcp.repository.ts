import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { type DeclaredServer, parseMcpServers } from './mcp-config';

/** A user's own MCP servers: one `mcpServers` document per user, checked before it is stored. */
@Injectable()
export class UserMcpRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async document(userId: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.userMcp(userId))) ?? undefined;
  }

  async servers(userId: string): Promise<DeclaredServer[]> {
    const text = await this.document(userId);
    return text ? parseMcpServers(text, 'user') : [];
  }

  async put(userId: string, text: string): Promise<void> {
    await this.redis.set(this.keys.userMcp(userId), text);
  }

  async clear(userId: string): Promise<void> {
    await this.redis.del(this.keys.userMcp(userId));
  }
}
