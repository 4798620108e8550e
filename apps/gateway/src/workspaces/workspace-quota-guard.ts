import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { WorkspaceFilesClient } from './workspace-files.client';
import { WorkspacesRepository } from './workspaces.repository';

export interface QuotaUsage {
  usedBytes: number;
  quotaBytes: number;
  over: boolean;
}

/**
 * The per-user workspace quota for what the agent writes, commands included. Commands cannot be
 * stopped mid-write, so the quota is measured after a run that wrote: over it, the user is
 * flagged and the next write is refused until the workspaces shrink. A write while not flagged
 * costs one Redis lookup.
 */
@Injectable()
export class WorkspaceQuotaGuard {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly workspaces: WorkspacesRepository,
    private readonly files: WorkspaceFilesClient,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewaySettings, 'WORKSPACE_QUOTA_BYTES'>,
  ) {}

  /** Measures the user's workspaces on disk and flags (or clears) them as over quota. */
  async measure(ownerId: string): Promise<QuotaUsage> {
    const owned = await this.workspaces.listOwned(ownerId);
    const usedBytes = await this.files.usedBytes(owned.map((w) => w.id));
    const quotaBytes = this.config.WORKSPACE_QUOTA_BYTES;
    const over = usedBytes > quotaBytes;
    if (over) await this.redis.set(this.keys.userOverQuota(ownerId), String(usedBytes));
    else await this.redis.del(this.keys.userOverQuota(ownerId));
    return { usedBytes, quotaBytes, over };
  }

  /** Refuses a write while the user's workspaces are over quota (measured again, so deletes count). */
  async assertCanWrite(ownerId: string): Promise<void> {
    if ((await this.redis.exists(this.keys.userOverQuota(ownerId))) === 0) return;
    const usage = await this.measure(ownerId);
    if (usage.over) throw quotaExceeded(usage);
  }
}

export function quotaExceeded(usage: QuotaUsage): AppError {
  return new AppError(
    ErrorCode.WorkspaceQuotaExceeded,
    `Workspace quota exceeded: your workspaces hold ${usage.usedBytes} bytes of ${usage.quotaBytes}; ` +
      'writes are refused until you delete files (delete_file) or workspaces',
    { usedBytes: usage.usedBytes, quotaBytes: usage.quotaBytes },
  );
}
