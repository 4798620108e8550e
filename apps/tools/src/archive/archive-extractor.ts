import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { Unpack } from 'tar';
import { relativeName, resolveInside } from '../workspace/path-containment';
import { cutLongNameRejected, findCutLongName } from './cut-long-name';
import { type ArchiveEntry, type ArchiveLimits, type ArchiveTotals, EntryRejected, checkEntry } from './entry-policy';
import { tarFailure } from './tar-failure';

/**
 * Second pass: unpacks an archive that `inspectArchive` accepted into an empty root, checking
 * every entry again on the way, then walks what landed on disk. The caller removes the root
 * when this throws.
 */
export async function extractArchive(archive: Buffer, root: string, limits: ArchiveLimits): Promise<ArchiveTotals> {
  await unpack(archive, root);
  return scanTree(root, limits);
}

function unpack(archive: Buffer, root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let rejected: Error | undefined;
    let lastEntry: string | undefined;
    const unpacker = new Unpack({
      cwd: root,
      strict: true,
      preservePaths: false,
      preserveOwner: false,
      filter: (path, entry) => {
        if (rejected) return false;
        lastEntry = path;
        try {
          checkEntry(entry as unknown as ArchiveEntry);
          return true;
        } catch (error) {
          rejected = error as Error;
          return false;
        }
      },
    });
    // The inspection refused these already; here only so this pass never trusts it blindly.
    unpacker.on('meta', (meta: string) => {
      const cut = findCutLongName(meta);
      if (cut) rejected ??= cutLongNameRejected(cut);
    });
    // node-tar goes on writing the entries after a failed one: settling now would let the caller
    // remove the root while files still land in it. It closes once every write has ended.
    unpacker.on('error', (error: Error) => {
      rejected ??= tarFailure(error, lastEntry);
      // Without its root (removed, or not a folder) nothing more is written, and tar never closes.
      if (error.name === 'CwdError') reject(rejected);
    });
    // Nor does an aborted parse (the decompressor failed).
    unpacker.on('abort', (error: Error) => reject(rejected ?? tarFailure(error, lastEntry)));
    unpacker.on('close', () => (rejected ? reject(rejected) : resolve()));
    unpacker.end(archive);
  });
}

/**
 * What is on disk is the truth: links are followed with the same resolver the tools use (this
 * catches chains such as `a -> .` then `b -> a/..`), special files refused, set-id bits dropped.
 */
export async function scanTree(root: string, limits: ArchiveLimits): Promise<ArchiveTotals> {
  const totals: ArchiveTotals = { files: 0, bytes: 0 };
  const inodes = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    const names = await readdir(dir).catch((error: unknown) => {
      throw onDiskFailure(error, relativeName(root, dir));
    });
    for (const name of names) {
      const path = join(dir, name);
      const entry = relativeName(root, path);
      const stats = await lstat(path).catch((error: unknown) => {
        throw onDiskFailure(error, entry);
      });
      if (stats.isDirectory()) {
        pending.push(path);
      } else if (stats.isSymbolicLink()) {
        await assertLinkInside(root, entry);
      } else if (stats.isFile()) {
        totals.files++;
        // Hard links share one inode: count its bytes once.
        if (!inodes.has(`${stats.dev}:${stats.ino}`)) totals.bytes += stats.size;
        inodes.add(`${stats.dev}:${stats.ino}`);
        if ((stats.mode & 0o7000) !== 0) await chmod(path, stats.mode & 0o777);
      } else {
        throw new EntryRejected(entry, 'is a special file; only files, folders and links are allowed');
      }
      if (totals.bytes > limits.maxBytes || totals.files > limits.maxEntries) {
        throw new EntryRejected(entry, 'brings the workspace past its size limits');
      }
    }
  }
  return totals;
}

/** A link (at `entry`, relative to `root`) whose target, followed on disk, leaves the root is rejected. */
export async function assertLinkInside(root: string, entry: string): Promise<void> {
  try {
    await resolveInside(root, entry);
  } catch (error) {
    // A link through a file (`a -> f.txt/x`) is useless but harmless; only escapes matter here.
    if (error instanceof AppError && error.code !== ErrorCode.PathOutsideWorkspace) return;
    throw new EntryRejected(entry, 'is a symbolic link that leads outside the workspace', { cause: error });
  }
}

/** A path that unpacked (or cloned) but is too long or too deep to be looked at again. */
function onDiskFailure(error: unknown, entry: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENAMETOOLONG') return new EntryRejected(entry, 'has a path too long for the filesystem', { cause: error });
  if (code === 'ELOOP') return new EntryRejected(entry, 'goes through too many symbolic links', { cause: error });
  return error;
}
