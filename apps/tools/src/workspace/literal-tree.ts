import { createHash } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, readlink, symlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type ManifestEntry, SYNC_SKIPPED_NAMES } from '@weft/contracts';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK keeps a FIFO planted by sandboxed code from hanging the worker on open().
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The tree holds more entries than the caller allows. */
export class TreeTooLarge extends Error {
  constructor(readonly maxEntries: number) {
    super(`more than ${maxEntries} files, links and folders`);
    this.name = 'TreeTooLarge';
  }
}

export function isSkippedName(name: string): boolean {
  return SYNC_SKIPPED_NAMES.includes(name);
}

/** `/proc/self/fd/<fd>`: a path through an open descriptor, as openat would use it. */
export function fdPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

/**
 * Opens the folder at `rel` ('' for the root) taking every component literally: each is opened
 * through the one before with O_DIRECTORY | O_NOFOLLOW, so a link anywhere on the way (one
 * planted by code run in the workspace) fails with ELOOP instead of being followed. Errors are
 * the system's (ENOENT, ENOTDIR, ELOOP); the caller says what they mean to it.
 */
export async function openFolderLiteral(root: string, rel: string): Promise<FileHandle> {
  let current = await open(root, DIR_FLAGS);
  try {
    for (const name of rel === '' ? [] : rel.split('/')) {
      const next = await open(`${fdPath(current)}/${name}`, DIR_FLAGS);
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close();
    throw error;
  }
}

export type EntryKind = ManifestEntry['type'] | 'missing';

/** What `name` in an open folder is, its last component not followed. */
export async function kindIn(folder: FileHandle, name: string): Promise<EntryKind> {
  try {
    const stats = await lstat(`${fdPath(folder)}/${name}`);
    if (stats.isDirectory()) return 'directory';
    if (stats.isFile()) return 'file';
    return stats.isSymbolicLink() ? 'symlink' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

export interface DescribeOptions {
  maxEntries: number;
  /** Also describe what lies under SYNC_SKIPPED_NAMES. */
  includeSkipped?: boolean;
}

/**
 * The entries at and under `rel` ('' for the whole tree, the root itself not listed), each folder
 * before what it holds and names in order, files with their SHA-256. Nothing is followed: a link is described as its target text.
 * A path that is missing, or that goes through a link or a file, describes as nothing.
 */
export async function describeTree(root: string, rel: string, options: DescribeOptions): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  if (rel === '') {
    const folder = await open(root, DIR_FLAGS);
    try {
      await describeChildren(folder, '', entries, options);
    } finally {
      await folder.close();
    }
    return entries;
  }
  let parent: FileHandle;
  try {
    parent = await openFolderLiteral(root, posix.dirname(rel) === '.' ? '' : posix.dirname(rel));
  } catch (error) {
    if (isNotThere(error)) return entries;
    throw error;
  }
  try {
    await describeEntry(parent, posix.basename(rel), rel, entries, options);
  } finally {
    await parent.close();
  }
  return entries;
}

async function describeChildren(folder: FileHandle, prefix: string, entries: ManifestEntry[], options: DescribeOptions): Promise<void> {
  const names = (await readdir(fdPath(folder))).sort(compare);
  for (const name of names) {
    if (!options.includeSkipped && isSkippedName(name)) continue;
    await describeEntry(folder, name, prefix === '' ? name : `${prefix}/${name}`, entries, options);
  }
}

async function describeEntry(parent: FileHandle, name: string, path: string, entries: ManifestEntry[], options: DescribeOptions): Promise<void> {
  const kind = await kindIn(parent, name);
  if (kind === 'missing') return;
  if (entries.length >= options.maxEntries) throw new TreeTooLarge(options.maxEntries);
  const at = `${fdPath(parent)}/${name}`;
  switch (kind) {
    case 'directory': {
      entries.push({ path, type: 'directory' });
      const folder = await open(at, DIR_FLAGS).catch(swallowVanished);
      if (!folder) return;
      try {
        await describeChildren(folder, path, entries, options);
      } finally {
        await folder.close();
      }
      return;
    }
    case 'file': {
      const file = await hashFile(at);
      if (file) entries.push({ path, type: 'file', ...file });
      return;
    }
    case 'symlink': {
      const target = await readlink(at).catch(swallowVanished);
      if (target !== undefined) entries.push({ path, type: 'symlink', target });
      return;
    }
    case 'other':
      entries.push({ path, type: 'other' });
      return;
  }
}

async function hashFile(at: string): Promise<{ size: number; sha256: string; executable: boolean } | undefined> {
  const handle = await open(at, READ_FLAGS).catch(swallowVanished);
  if (!handle) return undefined;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return undefined;
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of handle.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      hash.update(chunk);
    }
    return { size, sha256: hash.digest('hex'), executable: (stats.mode & 0o111) !== 0 };
  } finally {
    await handle.close();
  }
}

/**
 * Copies the tree under `root` into the empty folder `target` (a snapshot), taking nothing
 * literally but names: folders, files (their permission bits) and links as links; special files
 * and SYNC_SKIPPED_NAMES are left out. Returns the entries copied.
 */
export async function copyTree(root: string, target: string, maxEntries: number): Promise<number> {
  const folder = await open(root, DIR_FLAGS);
  try {
    return await copyChildren(folder, target, { count: 0, maxEntries });
  } finally {
    await folder.close();
  }
}

async function copyChildren(folder: FileHandle, target: string, budget: { count: number; maxEntries: number }): Promise<number> {
  for (const name of await readdir(fdPath(folder))) {
    if (isSkippedName(name)) continue;
    if (++budget.count > budget.maxEntries) throw new TreeTooLarge(budget.maxEntries);
    const at = `${fdPath(folder)}/${name}`;
    const to = posix.join(target, name);
    const kind = await kindIn(folder, name);
    if (kind === 'directory') {
      const inner = await open(at, DIR_FLAGS).catch(swallowVanished);
      if (!inner) continue;
      try {
        await mkdir(to, { mode: 0o755 });
        await copyChildren(inner, to, budget);
      } finally {
        await inner.close();
      }
    } else if (kind === 'file') {
      await copyFile(at, to);
    } else if (kind === 'symlink') {
      const link = await readlink(at).catch(swallowVanished);
      if (link !== undefined) await symlink(link, to);
    }
  }
  return budget.count;
}

async function copyFile(at: string, to: string): Promise<void> {
  const handle = await open(at, READ_FLAGS).catch(swallowVanished);
  if (!handle) return;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return;
    await pipeline(handle.createReadStream({ autoClose: false }), createWriteStream(to, { flags: 'wx', mode: stats.mode & 0o777 }));
  } finally {
    await handle.close();
  }
}

/** Gone, or no longer a folder, between listing and opening: code in the workspace changed it. */
function isNotThere(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}

function swallowVanished(error: unknown): undefined {
  if (isNotThere(error)) return undefined;
  throw error;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
