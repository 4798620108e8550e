import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { addHostConfig, configFiles, isCheckout, readHostConfig, restoreHostConfig, withoutHostConfig } from '../backup-config';
import { type CliContext, status } from '../context';
import { UsageError } from '../errors';
import { formatBytes } from '../format-bytes';
import type { AdminConnect } from './admin-connect';

/** A backup carries every workspace: far longer than an ordinary request. */
const TRANSFER_TIMEOUT_MS = 60 * 60_000;

interface BackupOptions {
  config: boolean;
  configDir?: string;
}

/** `weft admin backup <file>`, `weft admin restore <file>` and `weft admin restore-config <file>` (docs/backup.md). */
export function addBackupCommands(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  admin
    .command('backup <file>')
    .description('save the whole store (users, keys, sessions, events, rules, usage), every workspace and the host configuration (.env, config/) to a tar.gz')
    .option('--config-dir <dir>', 'the Weft checkout whose .env and config/ go into the backup (default: the current folder)')
    .option('--no-config', 'leave the host configuration (.env with the admin token and NATS passwords, config/) out')
    .action(async (file: string, options: BackupOptions) => {
      const path = resolve(ctx.cwd, file);
      const checkout = resolve(ctx.cwd, options.configDir ?? '.');
      const withConfig = options.config && isCheckout(checkout);
      if (options.config && options.configDir !== undefined && !withConfig) {
        throw new UsageError(`${options.configDir} is not a Weft checkout (it needs docker-compose.yml and .env); pass the folder you run docker compose in, or --no-config`);
      }
      const downloaded = `${path}.partial`;
      const body = await (await connect()).backup(AbortSignal.timeout(TRANSFER_TIMEOUT_MS));
      // Written aside and renamed at the end: an interrupted download never looks like a backup.
      // Mode 0600: the archive holds every user's code, and the host's secrets.
      try {
        await pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), createWriteStream(downloaded, { mode: 0o600 }));
        if (withConfig) {
          const files = await configFiles(checkout);
          await addHostConfig(downloaded, `${path}.config-partial`, checkout, files);
          await rename(`${path}.config-partial`, path);
          await rm(downloaded);
          status(ctx, `host configuration included from ${checkout}: ${files.join(', ')}`);
        } else {
          await rename(downloaded, path);
          if (options.config) status(ctx, `host configuration not included: ${checkout} is not a Weft checkout (no docker-compose.yml and .env); back up .env and config/ yourself or pass --config-dir`);
        }
      } catch (error) {
        await rm(downloaded, { force: true });
        await rm(`${path}.config-partial`, { force: true });
        throw error;
      }
      status(ctx, `backup written to ${file} (${formatBytes((await stat(path)).size)})`);
    });

  admin
    .command('restore <file>')
    .description("load a backup into an empty store (a fresh stack), migrating it to the gateway's version")
    .option('--force', 'replace a store that already has users: everything in it is deleted first')
    .action(async (file: string, options: { force?: boolean }) => {
      const path = await backupFile(ctx, file);
      // The host's secrets stay on this machine: the gateway is sent the archive without them.
      const hostConfig = await readHostConfig(path);
      const scratch = hostConfig.size > 0 ? await mkdtemp(join(tmpdir(), 'weft-restore-')) : undefined;
      try {
        const upload = scratch ? join(scratch, 'backup.tar.gz') : path;
        if (scratch) await withoutHostConfig(path, upload);
        const archive = await openAsBlob(upload, { type: 'application/gzip' });
        const result = await (await connect()).restore(archive, options.force === true, AbortSignal.timeout(TRANSFER_TIMEOUT_MS));
        ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } finally {
        if (scratch) await rm(scratch, { recursive: true, force: true });
      }
      if (hostConfig.size > 0) status(ctx, `the backup also holds host configuration (${[...hostConfig.keys()].join(', ')}): \`weft admin restore-config ${file}\` writes it into a checkout`);
    });

  admin
    .command('restore-config <file>')
    .description("write a backup's host configuration (.env, config/) into a Weft checkout, before `docker compose up` on a new host")
    .option('--dir <dir>', 'the Weft checkout to write into (default: the current folder)')
    .option('--force', 'replace files that differ (each is kept as <name>.before-restore)')
    .action(async (file: string, options: { dir?: string; force?: boolean }) => {
      const path = await backupFile(ctx, file);
      const checkout = resolve(ctx.cwd, options.dir ?? '.');
      const { written, unchanged } = await restoreHostConfig(path, checkout, options.force === true);
      status(ctx, `host configuration restored into ${checkout}: ${written.length} written${written.length ? ` (${written.join(', ')})` : ''}, ${unchanged.length} already the same`);
    });
}

async function backupFile(ctx: CliContext, file: string): Promise<string> {
  const path = resolve(ctx.cwd, file);
  if (!(await stat(path).catch(() => undefined))?.isFile()) throw new UsageError(`no backup file at ${file}`);
  return path;
}
