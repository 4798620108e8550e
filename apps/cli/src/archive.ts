import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { create, extract } from 'tar';

/** Packs only `paths` of `dir` (files, links, and folders without what they hold) as tar.gz in memory. */
export async function packPaths(dir: string, paths: readonly string[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  // An empty folder is an archive of its root alone (node-tar refuses an empty list).
  const pack = create({ gzip: true, cwd: dir, portable: true, noDirRecurse: true }, paths.length > 0 ? [...paths] : ['.']);
  for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Extracts a tar.gz stream into `dir`; node-tar refuses entries that would land outside it. */
export async function extractArchive(archive: ReadableStream<Uint8Array>, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await pipeline(Readable.fromWeb(archive as WebReadableStream<Uint8Array>), extract({ cwd: dir, strict: true }));
}
