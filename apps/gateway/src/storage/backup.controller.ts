import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Controller, HttpCode, Inject, Query, Req, Res } from '@nestjs/common';
import { AppError, ErrorCode, apiRoutes } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Request, Response } from 'express';
import * as tar from 'tar';
import { z } from 'zod';
import { Route } from '../common/api-route.decorator';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { LOGGER } from '../infra/tokens';
import { BackupWriter } from './backup.service';
import { RestoreRunner } from './restore.service';

const restoreQuery = new ZodValidationPipe(z.strictObject({ force: z.enum(['true', 'false']).optional() }));

/** A backup is built in a temporary folder and streamed from there, so memory does not grow with the workspaces. */
async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-backup-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

@Controller()
export class BackupController {
  constructor(
    private readonly writer: BackupWriter,
    private readonly runner: RestoreRunner,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Route(apiRoutes.backup)
  async backup(@Res() res: Response): Promise<void> {
    await inTempDir(async (dir) => {
      const manifest = await this.writer.write(dir);
      res.status(200).type('application/gzip').setHeader('Content-Disposition', `attachment; filename="weft-backup-${manifest.createdAt.replace(/[:.]/g, '-')}.tar.gz"`);
      await pipeline(tar.c({ gzip: true, cwd: dir, portable: true }, await readdir(dir)), res);
      this.logger.info({ keys: manifest.keys, workspaces: manifest.workspaces.length }, 'backup taken');
    });
  }

  // The contract says 200, but a restore has always answered Nest's POST default, 201: kept so clients see no change.
  @HttpCode(201)
  @Route(apiRoutes.restore)
  async restore(@Req() req: Request, @Query(restoreQuery) query: { force?: 'true' | 'false' }) {
    return inTempDir(async (dir) => {
      await pipeline(req, tar.x({ cwd: dir, strict: true })).catch((error: unknown) => {
        throw new AppError(ErrorCode.ValidationFailed, 'The body is not a tar.gz backup', {}, false, { cause: error });
      });
      return this.runner.restore(dir, query.force === 'true');
    });
  }
}
