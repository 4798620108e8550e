import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { displayName } from '../workspace/display-name';
import { ArchiveUnreadable } from './archive-unreadable';
import { type CutLongName, cutLongNameRejected, findCutLongName } from './cut-long-name';
import { type ArchiveEntry, type ArchiveLimits, type ArchiveTotals, EntryRejected, checkEntries } from './entry-policy';
import { tarFailure } from './tar-failure';

/** Per-entry overhead of the tar format (header plus padding), for the decompression cap. */
const TAR_OVERHEAD_PER_ENTRY = 1536;
const TAR_TRAILER_SLACK = 64 * 1024;

export interface ArchiveInspection extends ArchiveTotals {
  /** Every entry's header, in archive order. */
  entries: readonly ArchiveEntry[];
}

/**
 * First pass: reads every header without writing anything, then applies the entry policy.
 * Throws EntryRejected or ArchiveUnreadable.
 */
export async function inspectArchive(archive: Buffer, limits: ArchiveLimits): Promise<ArchiveInspection> {
  if (archive.length < 2 || archive[0] !== 0x1f || archive[1] !== 0x8b) {
    throw new ArchiveUnreadable('the upload is not a gzip-compressed tar archive');
  }
  const entries = await readHeaders(archive, limits);
  return { ...checkEntries(entries, limits), entries };
}

function readHeaders(archive: Buffer, limits: ArchiveLimits): Promise<ArchiveEntry[]> {
  const maxTarBytes = limits.maxBytes + (limits.maxEntries + 1) * TAR_OVERHEAD_PER_ENTRY + TAR_TRAILER_SLACK;
  return new Promise((resolve, reject) => {
    const entries: ArchiveEntry[] = [];
    let tarBytes = 0;
    let settled = false;
    // A long name cut at a NUL, waiting for the entry it names (the next one).
    let cut: CutLongName | null = null;
    const lastEntry = () => entries.at(-1)?.path;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      reject(error);
    };
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (cut) fail(cutLongNameRejected(cut, entry.path));
        entries.push({ path: entry.path, type: entry.type, linkpath: entry.linkpath, size: entry.size ?? 0 });
        if (entries.length > limits.maxEntries) {
          fail(new EntryRejected(entry.path, `exceeds the limit of ${limits.maxEntries} entries`));
        }
        entry.resume();
      },
    });
    parser.on('meta', (meta: string) => {
      cut ??= findCutLongName(meta);
    });
    parser.on('error', (error: Error) => fail(tarFailure(error, lastEntry())));
    parser.on('end', () => {
      if (cut) fail(cutLongNameRejected(cut));
      if (settled) return;
      settled = true;
      resolve(entries);
    });
    const gunzip = createGunzip();
    gunzip.on('error', (error) => fail(new ArchiveUnreadable(`the archive is not valid gzip: ${error.message}`)));
    gunzip.on('data', (chunk: Buffer) => {
      tarBytes += chunk.length;
      if (tarBytes > maxTarBytes) {
        const at = lastEntry();
        const where = at === undefined ? '' : ` (reading entry '${displayName(at)}')`;
        fail(new ArchiveUnreadable(`the archive unpacks to more than ${maxTarBytes} bytes${where}`));
        return;
      }
      parser.write(chunk);
    });
    gunzip.on('end', () => parser.end());
    gunzip.end(archive);
  });
}
