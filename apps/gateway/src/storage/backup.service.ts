import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { BACKUP_MANIFEST, BACKUP_REDIS, BACKUP_WORKSPACES, type BackupManifest } from './backup-archive';
import { exportRedis } from './redis-exporter';
import { toJsonl } from './redis-jsonl';
import { WorkspaceArchives } from './workspace-archives';

const WORKSPACE_KEY = /^workspace:(ws_[A-Za-z0-9_-]+)$/;

/**
 * Writes a backup's files into a folder: the Redis export first, then the files of exactly the
 * workspaces that export names, so the two agree on which workspaces exist.
 */
@Injectable()
export class BackupWriter {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly archives: WorkspaceArchives,
  ) {}

  async write(dir: string): Promise<BackupManifest> {
    const { header, records } = await exportRedis(this.redis, this.keys.prefix);
    await writeFile(join(dir, BACKUP_REDIS), toJsonl(header, records));
    await mkdir(join(dir, BACKUP_WORKSPACES));
    const workspaces: string[] = [];
    const missingWorkspaces: BackupManifest['missingWorkspaces'] = [];
    for (const record of records) {
      const workspaceId = WORKSPACE_KEY.exec(record.key)?.[1];
      if (!workspaceId) continue;
      try {
        await writeFile(join(dir, BACKUP_WORKSPACES, `${workspaceId}.tar.gz`), await this.archives.export(workspaceId));
        workspaces.push(workspaceId);
      } catch (error) {
        // A workspace the tools worker no longer has is noted and the backup goes on; anything else ends it.
        if (!(error instanceof AppError) || error.code !== ErrorCode.WorkspaceNotFound) throw error;
        missingWorkspaces.push({ workspaceId, code: error.code });
      }
    }
    const manifest: BackupManifest = {
      format: 'weft-backup',
      formatVersion: 1,
      storageVersion: header.storageVersion,
      createdAt: new Date().toISOString(),
      redisWindow: { startedAt: header.startedAt, finishedAt: header.finishedAt },
      keys: header.keys,
      workspaces,
      missingWorkspaces,
    };
    await writeFile(join(dir, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  }
}
