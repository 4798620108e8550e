import { readdir } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Controller, HttpCode, Inject, Query, Req, Res } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Request, Response } from 'express';
import * as tar from 'tar';
import { z } from 'zod';
import { Route } from '../common/api-route.decorator';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { LOGGER } from '../infra/tokens';
import { BackupWriter } from './backup.service';
import { RestoreUpload } from './restore-upload';
import { StagingFolders } from './staging-folders';

const restoreQuery = new ZodValidationPipe(z.strictObject({ force: z.enum(['true', 'false']).optional() }));

@Controller()
export class BackupController {
  constructor(
    private readonly writer: BackupWriter,
    private readonly upload: RestoreUpload,
    private readonly staging: StagingFolders,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Built in a staging folder and streamed from there, so memory does not grow with the workspaces. */
  @Route(apiRoutes.backup)
  async backup(@Res() res: Response): Promise<void> {
    await this.staging.run('backup', async (dir) => {
      const manifest = await this.writer.write(dir);
      res.status(200).type('application/gzip').setHeader('Content-Disposition', `attachment; filename="weft-backup-${manifest.createdAt.replace(/[:.]/g, '-')}.tar.gz"`);
      await pipeline(tar.c({ gzip: true, cwd: dir, portable: true }, await readdir(dir)), res);
      this.logger.info({ keys: manifest.keys, workspaces: manifest.workspaces.length }, 'backup taken');
    });
  }

  // The contract says 200, but a restore has always answered Nest's POST default, 201: kept so clients see no change.
  @HttpCode(201)
  @Route(apiRoutes.restore)
  restore(@Req() req: Request, @Query(restoreQuery) query: { force?: 'true' | 'false' }) {
    return this.upload.restore(req, query.force === 'true');
  }
}
