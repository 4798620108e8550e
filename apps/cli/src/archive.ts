import { mkdir, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { SYNC_SKIPPED_NAMES } from '@weft/contracts';
import { create, extract } from 'tar';
import { UsageError } from './errors';

/** Never uploaded: version-control internals and installed dependencies (the sync's manifest leaves out the same). */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(SYNC_SKIPPED_NAMES);

/** Packs `dir` as tar.gz in memory, leaving out SKIPPED_DIRS at any depth. */
export async function packDirectory(dir: string): Promise<Buffer> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`not a folder: ${dir}`);
  const chunks: Buffer[] = [];
  const pack = create({
    gzip: true,
    cwd: dir,
    portable: true,
    filter: (path) => !path.split(/[\\/]/).some((segment) => SKIPPED_DIRS.has(segment)),
  }, ['.']);
  for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Packs only `paths` of `dir` (files, links, and folders without what they hold) as tar.gz in memory. */
export async function packPaths(dir: string, paths: readonly string[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const pack = create({ gzip: true, cwd: dir, portable: true, noDirRecurse: true }, [...paths]);
  for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Extracts a tar.gz stream into `dir`; node-tar refuses entries that would land outside it. */
export async function extractArchive(archive: ReadableStream<Uint8Array>, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await pipeline(Readable.fromWeb(archive as WebReadableStream<Uint8Array>), extract({ cwd: dir, strict: true }));
}
