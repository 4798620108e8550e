import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, readlink, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import type { directoryEntrySchema } from '@weft/contracts';
import type { z } from 'zod';
import { isInside, relativeName } from './path-containment';

export type DirectoryEntry = z.infer<typeof directoryEntrySchema>;

// O_NONBLOCK keeps a FIFO planted by sandboxed code from hanging the worker on open().
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Opens a path that `resolveInside` produced. O_NOFOLLOW refuses a leaf swapped for a symlink
 * after resolution; the check through /proc catches a parent swapped in the same window.
 */
export async function openInside(root: string, real: string, flags: number, mode?: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(real, flags, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw raced(root, real);
    const name = relativeName(root, real);
    if (code === 'ENXIO') throw new AppError(ErrorCode.NotAFile, `'${name}' is not a regular file`);
    if (code === 'EISDIR') throw new AppError(ErrorCode.NotAFile, `'${name}' is a folder, not a file`);
    if (code === 'ENOTDIR') throw new AppError(ErrorCode.NotADirectory, `'${name}' is a file, not a folder`);
    throw error;
  }
  const opened = await openedPath(handle);
  if (opened !== null && !isInside(root, opened)) {
    await handle.close();
    throw raced(root, real);
  }
  return handle;
}

export function openForRead(root: string, real: string): Promise<FileHandle> {
  return openInside(root, real, READ_FLAGS);
}

/**
 * `mkdir -p` of a contained path, checked again afterwards. The window left: a parent swapped
 * for a link out between resolution and mkdir (Node has no mkdirat).
 */
export async function makeFolder(root: string, real: string): Promise<void> {
  try {
    await mkdir(real, { recursive: true, mode: 0o755 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new AppError(ErrorCode.NotADirectory, `'${relativeName(root, real)}' or one of its parents is a file, not a folder`);
    }
    throw error;
  }
  if (!isInside(root, await realpath(real))) throw raced(root, real);
}

/** Creates missing parents, then opens without truncating: truncation waits for the check. */
export async function openForWrite(root: string, real: string): Promise<FileHandle> {
  await makeFolder(root, dirname(real));
  const handle = await openInside(root, real, WRITE_FLAGS, 0o644);
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new AppError(ErrorCode.NotAFile, `'${relativeName(root, real)}' is not a regular file`);
  }
  await handle.truncate(0);
  return handle;
}

/** One level, sorted by name; a symlink is reported as itself, never followed. */
export async function listEntries(root: string, real: string): Promise<DirectoryEntry[]> {
  const handle = await openInside(root, real, DIR_FLAGS);
  try {
    const dir = (await openedPath(handle)) === null ? real : `/proc/self/fd/${handle.fd}`;
    const names = await readdir(dir);
    const entries = await Promise.all(names.map((name) => describe(join(dir, name), name)));
    return entries.filter((e): e is DirectoryEntry => e !== null).sort((a, b) => compareNames(a.name, b.name));
  } finally {
    await handle.close();
  }
}

async function describe(path: string, name: string): Promise<DirectoryEntry | null> {
  try {
    const stats = await lstat(path);
    if (stats.isDirectory()) return { name, type: 'directory', size: 0 };
    if (stats.isFile()) return { name, type: 'file', size: stats.size };
    if (stats.isSymbolicLink()) return { name, type: 'symlink', size: stats.size };
    return { name, type: 'other', size: 0 };
  } catch (error) {
    // Removed between readdir and lstat (a sandbox run may be changing the folder).
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where the kernel says an open descriptor points; null where /proc is not mounted. */
async function openedPath(handle: FileHandle): Promise<string | null> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function raced(root: string, real: string): AppError {
  return new AppError(ErrorCode.PathOutsideWorkspace, `'${relativeName(root, real)}' changed while it was opened and now leads outside the workspace`);
}
