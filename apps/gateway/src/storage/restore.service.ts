import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER, REDIS } from '../infra/tokens';
import { BACKUP_MANIFEST, BACKUP_REDIS, BACKUP_WORKSPACES, backupManifestSchema, type BackupManifest, type RestoreResult } from './backup-archive';
import { runMigrations } from './migration-runner';
import { MIGRATIONS, STORAGE_VERSION } from './migrations';
import { importRedis } from './redis-importer';
import { fromJsonl } from './redis-jsonl';
import type { RedisRecord } from './redis-records';
import { RedisVersionStore } from './redis-version-store';
import { StoreTooNewError } from './store-too-new';
import { escapeGlob } from './redis-exporter';
import { storageMigrationLockKey, storageRestoreLockKey } from './storage-keys';
import { WorkspaceArchives } from './workspace-archives';

const UNLINK_BATCH = 500;

/**
 * Loads an unpacked backup into this gateway's store: refuses a store that has users unless
 * forced (then empties the prefix first), refuses a backup newer than this build, imports the keys
 * under the migration lock so no replica migrates a half-written store, then migrates them.
 */
@Injectable()
export class RestoreRunner {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly archives: WorkspaceArchives,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async restore(dir: string, force: boolean): Promise<RestoreResult> {
    const manifest = await this.manifest(dir);
    if (manifest.storageVersion > STORAGE_VERSION) throw new StoreTooNewError(manifest.storageVersion, STORAGE_VERSION, 'The backup');
    const users = await this.redis.zcard(this.keys.users());
    if (users > 0 && !force) {
      throw new AppError(ErrorCode.Conflict, `This store already has ${users} users: restore into an empty store, or pass force to replace everything in it`, { users });
    }
    const records = await this.records(dir);
    const versions = new RedisVersionStore(this.redis, this.keys.prefix);
    if (!(await versions.tryLock())) throw new AppError(ErrorCode.Conflict, 'A gateway is migrating the store: try again when it has started', {}, true);
    try {
      if (force) await this.empty();
      await importRedis(this.redis, this.keys.prefix, records);
    } finally {
      await versions.unlock();
    }
    const migrated = await runMigrations(versions, this.redis, MIGRATIONS);
    const failedWorkspaces: RestoreResult['failedWorkspaces'] = [];
    for (const workspaceId of manifest.workspaces) {
      try {
        await this.archives.import(workspaceId, await readFile(join(dir, BACKUP_WORKSPACES, `${workspaceId}.tar.gz`)), force);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        failedWorkspaces.push({ workspaceId, code: error.code });
      }
    }
    const result = { keys: records.length, workspaces: manifest.workspaces.length - failedWorkspaces.length, failedWorkspaces, migratedFrom: manifest.storageVersion, storageVersion: migrated.to };
    this.logger.info(result, 'backup restored');
    return result;
  }

  private async records(dir: string): Promise<RedisRecord[]> {
    try {
      return fromJsonl(await readFile(join(dir, BACKUP_REDIS), 'utf8')).records;
    } catch (error) {
      const problem = `${BACKUP_REDIS}: ${error instanceof Error ? error.message : String(error)}`;
      throw new AppError(ErrorCode.BackupInvalid, `Not a Weft backup: ${problem}`, { problem }, false, { cause: error });
    }
  }

  private async manifest(dir: string): Promise<BackupManifest> {
    const raw = await readFile(join(dir, BACKUP_MANIFEST), 'utf8').catch(() => undefined);
    const parsed = raw === undefined ? undefined : backupManifestSchema.safeParse(parseJson(raw));
    if (!parsed?.success) {
      throw new AppError(ErrorCode.BackupInvalid, `Not a Weft backup: ${BACKUP_MANIFEST} is missing or not understood`, { problem: `${BACKUP_MANIFEST} missing or not understood` });
    }
    return parsed.data;
  }

  /** Every key under the prefix but the locks this restore holds. */
  private async empty(): Promise<void> {
    const locks = new Set([storageMigrationLockKey(this.keys.prefix), storageRestoreLockKey(this.keys.prefix)]);
    let cursor = '0';
    do {
      const [next, found] = await this.redis.scan(cursor, 'MATCH', `${escapeGlob(this.keys.prefix)}*`, 'COUNT', UNLINK_BATCH);
      cursor = next;
      const doomed = found.filter((key) => !locks.has(key));
      if (doomed.length > 0) await this.redis.unlink(...doomed);
    } while (cursor !== '0');
  }
}

/** Undefined for text that is not JSON: the manifest check then refuses it like any other shape. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
