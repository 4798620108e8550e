import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import * as tar from 'tar';
import type { RestoreResult } from './backup-archive';
import { RestoreLock } from './restore-lock';
import { RestoreRunner } from './restore.service';
import { StagingFolders } from './staging-folders';

/**
 * A restore from the admin's upload: one at a time across the replicas, the archive unpacked into
 * a staging folder on disk that is removed however the restore ends, then loaded into the store.
 */
@Injectable()
export class RestoreUpload {
  constructor(
    private readonly lock: RestoreLock,
    private readonly staging: StagingFolders,
    private readonly runner: RestoreRunner,
  ) {}

  restore(body: Readable, force: boolean): Promise<RestoreResult> {
    return this.lock.run(() =>
      this.staging.run('restore', async (dir) => {
        await pipeline(body, tar.x({ cwd: dir, strict: true })).catch((error: unknown) => {
          throw unpackError(error);
        });
        return this.runner.restore(dir, force);
      }),
    );
  }
}

function unpackError(error: unknown): AppError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new AppError(ErrorCode.BackupDiskFull, 'The disk the backup is unpacked on (BACKUP_STAGING_DIR) is full: nothing was restored', {}, false, { cause: error });
  }
  const problem = error instanceof Error ? error.message : String(error);
  return new AppError(ErrorCode.BackupInvalid, `The body is not a Weft backup (a tar.gz): ${problem}; nothing was restored`, { problem }, false, { cause: error });
}
