import { createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { type CliContext, status } from '../context';
import { UsageError } from '../errors';
import { formatBytes } from '../format-bytes';
import type { AdminConnect } from './admin';

/** A backup carries every workspace: far longer than an ordinary request. */
const TRANSFER_TIMEOUT_MS = 60 * 60_000;

/** `weft admin backup <file>` and `weft admin restore <file>` (docs/backup.md). */
export function addBackupCommands(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  admin
    .command('backup <file>')
    .description('save the whole store (users, keys, sessions, events, rules, usage) and every workspace to a tar.gz')
    .action(async (file: string) => {
      const path = resolve(ctx.cwd, file);
      const partial = `${path}.partial`;
      const body = await (await connect()).backup(AbortSignal.timeout(TRANSFER_TIMEOUT_MS));
      // Written aside and renamed at the end: an interrupted download never looks like a backup.
      try {
        await pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), createWriteStream(partial));
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      status(ctx, `backup written to ${file} (${formatBytes((await stat(path)).size)})`);
    });

  admin
    .command('restore <file>')
    .description('load a backup into an empty store (a fresh stack), migrating it to the gateway\'s version')
    .option('--force', 'replace a store that already has users: everything in it is deleted first')
    .action(async (file: string, options: { force?: boolean }) => {
      const path = resolve(ctx.cwd, file);
      if (!(await stat(path).catch(() => undefined))?.isFile()) throw new UsageError(`no backup file at ${file}`);
      const archive = await openAsBlob(path, { type: 'application/gzip' });
      const result = await (await connect()).restore(archive, options.force === true, AbortSignal.timeout(TRANSFER_TIMEOUT_MS));
      ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    });
}
