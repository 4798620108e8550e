import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { LOGGER } from '../infra/tokens';

/**
 * An unpacker that failed may still have file writes in flight: removal retries while they land
 * (Node retries ENOTEMPTY), after which nothing more is written, for the folder is gone.
 */
const REMOVE_RETRIES = 10;
const REMOVE_RETRY_DELAY_MS = 50;

/**
 * A folder of its own under BACKUP_STAGING_DIR (a disk: an archive unpacked into a tmpfs /tmp is
 * memory) for each backup built and each restore unpacked, removed when the work ends, however
 * it ends.
 */
@Injectable()
export class StagingFolders {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run<T>(kind: 'backup' | 'restore', work: (dir: string) => Promise<T>): Promise<T> {
    const root = this.config.BACKUP_STAGING_DIR ?? tmpdir();
    await mkdir(root, { recursive: true });
    const dir = await mkdtemp(join(root, `weft-${kind}-`));
    try {
      return await work(dir);
    } finally {
      // The work's own outcome is the answer: a folder that will not go is logged, not thrown over it.
      await rm(dir, { recursive: true, force: true, maxRetries: REMOVE_RETRIES, retryDelay: REMOVE_RETRY_DELAY_MS }).catch((error: unknown) =>
        this.logger.error({ err: error, dir }, `a ${kind} staging folder could not be removed`),
      );
    }
  }
}
