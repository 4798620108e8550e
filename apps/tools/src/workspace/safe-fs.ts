import { randomBytes } from 'node:crypto';
import { type Stats, constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, readlink, rename, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import type { directoryEntrySchema } from '@weft/contracts';
import type { z } from 'zod';
import { isInside, relativeName } from './path-containment';

export type DirectoryEntry = z.infer<typeof directoryEntrySchema>;

// O_NONBLOCK keeps a FIFO planted by sandboxed code from hanging the worker on open().
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const TEMPORARY_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** What a file the tools create gets (as with umask 022). */
const NEW_FILE_MODE = 0o644;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Opens a path that `resolveInside` produced without trusting any component to still be what
 * the resolver saw: the parent is pinned folder by folder (see `pinFolder`) and the leaf is
 * opened through the parent's descriptor with O_NOFOLLOW. A component swapped for a link by
 * concurrent sandbox code is refused, never followed.
 */
export async function openInside(root: string, real: string, flags: number, mode?: number): Promise<FileHandle> {
  if (real === root) return openChecked(root, real, root, flags, mode);
  const parent = await pinFolder(root, dirname(real), false);
  try {
    return await openChecked(root, real, `${fdPath(parent)}/${basename(real)}`, flags, mode);
  } finally {
    await parent.close();
  }
}

export function openForRead(root: string, real: string): Promise<FileHandle> {
  return openInside(root, real, READ_FLAGS);
}

/** `mkdir -p` of a contained path; each folder is made inside the one pinned before it. */
export async function makeFolder(root: string, real: string): Promise<void> {
  await (await pinFolder(root, real, true)).close();
}

/**
 * Writes `bytes` as the whole content of the file at `real`, or leaves it as it was: they go to a
 * new file in the same folder, which then takes the name (rename(2) replaces it in one step). A
 * write cut off by a full disk leaves the old content intact, where truncating in place left the
 * file empty or half written. Missing parents are created. The new file keeps the old one's mode
 * and, where the worker may set it, its owner; a hard link to the old file keeps the old content.
 */
export async function replaceFile(root: string, real: string, bytes: Uint8Array): Promise<void> {
  const parent = await pinFolder(root, dirname(real), true);
  try {
    const folder = fdPath(parent);
    const target = `${folder}/${basename(real)}`;
    const old = await existingFile(root, real, target);
    // Not derived from the file's name: that may already be as long as a name can be.
    const temporary = `${folder}/.weft-write-${randomBytes(8).toString('hex')}.tmp`;
    const handle = await open(temporary, TEMPORARY_FLAGS, 0o600);
    let closed = false;
    try {
      await handle.writeFile(bytes);
      await handle.chmod(old ? old.mode & 0o777 : NEW_FILE_MODE);
      // Running as root (tests, a custom deployment): the sandbox's user must still own what it wrote.
      if (old && process.getuid?.() === 0) await handle.chown(old.uid, old.gid);
      closed = true;
      await handle.close();
      await rename(temporary, target);
    } catch (error) {
      if (!closed) await handle.close();
      await unlink(temporary).catch(ignoreMissing);
      throw error;
    }
  } finally {
    await parent.close();
  }
}

/** The file a write replaces, through its pinned parent; undefined when there is none yet. */
async function existingFile(root: string, real: string, pinned: string): Promise<Stats | undefined> {
  let stats: Stats;
  try {
    stats = await lstat(pinned);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // The resolver followed every link: a link here now was put there since.
  if (stats.isSymbolicLink()) throw raced(root, real);
  const name = relativeName(root, real);
  if (stats.isDirectory()) throw new AppError(ErrorCode.NotAFile, `'${name}' is a folder, not a file`);
  if (!stats.isFile()) throw new AppError(ErrorCode.NotAFile, `'${name}' is not a regular file`);
  return stats;
}

/**
 * rename(2) of a contained name to another, each side through its pinned parent: a folder on
 * either path swapped for a link by concurrent sandbox code is refused, never followed. The
 * names themselves are moved as they are (a link is moved as a link).
 */
export async function renameInside(root: string, from: string, to: string): Promise<void> {
  const fromParent = await pinFolder(root, dirname(from), false);
  try {
    const toParent = await pinFolder(root, dirname(to), false);
    try {
      await rename(`${fdPath(fromParent)}/${basename(from)}`, `${fdPath(toParent)}/${basename(to)}`).catch((error: unknown) => {
        throw goneWhileOpened(error, root, from);
      });
    } finally {
      await toParent.close();
    }
  } finally {
    await fromParent.close();
  }
}

/**
 * Removes a contained name through its pinned parent: a link is removed, never what it points
 * to. `recursive` empties a folder one pinned level at a time, so a sub-folder swapped for a link
 * mid-delete is unlinked as the link it now is. Without `recursive`, a folder must be empty
 * (ENOTEMPTY otherwise).
 */
export async function removeInside(root: string, real: string, recursive: boolean): Promise<void> {
  const parent = await pinFolder(root, dirname(real), false);
  try {
    await removeEntry(fdPath(parent), basename(real), recursive).catch((error: unknown) => {
      throw goneWhileOpened(error, root, real);
    });
  } finally {
    await parent.close();
  }
}

async function removeEntry(parentPath: string, name: string, recursive: boolean): Promise<void> {
  const path = `${parentPath}/${name}`;
  if (!(await lstat(path)).isDirectory()) return unlink(path);
  if (recursive) {
    let folder: FileHandle;
    try {
      folder = await open(path, DIR_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Swapped for a link or a file since the lstat: remove it as what it is now.
      if (code === 'ELOOP' || code === 'ENOTDIR') return unlink(path);
      throw error;
    }
    try {
      for (const child of await readdir(fdPath(folder))) {
        await removeEntry(fdPath(folder), child, true).catch(ignoreMissing);
      }
    } finally {
      await folder.close();
    }
  }
  await rmdir(path);
}

/** ENOENT as the error the model reads: concurrent code (a sandbox run) removed it first. */
function goneWhileOpened(error: unknown, root: string, real: string): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  return new AppError(ErrorCode.FileNotFound, `No file or folder at '${relativeName(root, real)}' (it was removed while it was opened)`);
}

/** Something concurrent code removed first is as good as removed. */
function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

/**
 * Opens `real` (a folder under `root`) one component at a time, each through the descriptor of
 * the one before (`/proc/self/fd/<fd>/<name>`) with O_DIRECTORY | O_NOFOLLOW: Node has no
 * openat, and this is the same thing. With `create`, a missing folder is made in the pinned
 * parent (mkdir never follows its last component).
 */
async function pinFolder(root: string, real: string, create: boolean): Promise<FileHandle> {
  let current = await open(root, DIR_FLAGS);
  const names = real === root ? [] : relativeName(root, real).split('/');
  try {
    for (const [i, name] of names.entries()) {
      const step = `${fdPath(current)}/${name}`;
      const shown = names.slice(0, i + 1).join('/');
      const next = await openFolderStep(root, step, shown, create);
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close();
    throw error;
  }
}

async function openFolderStep(root: string, step: string, shown: string, create: boolean): Promise<FileHandle> {
  try {
    return await open(step, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && create) {
      try {
        await mkdir(step, { mode: 0o755 });
      } catch (mkdirError) {
        // EEXIST: made concurrently, opened below. ENOENT: the pinned parent was deleted; the
        // open below reports it.
        const mkdirCode = (mkdirError as NodeJS.ErrnoException).code;
        if (mkdirCode !== 'EEXIST' && mkdirCode !== 'ENOENT') throw mkdirError;
      }
      return openFolderStep(root, step, shown, false);
    }
    if (code === 'ELOOP') throw raced(root, join(root, shown));
    if (code === 'ENOTDIR') throw new AppError(ErrorCode.NotADirectory, `'${shown}' is a file, not a folder`);
    if (code === 'ENOENT') throw new AppError(ErrorCode.FileNotFound, `'${shown}' does not exist (it was removed while it was opened)`);
    throw error;
  }
}

async function openChecked(root: string, real: string, via: string, flags: number, mode?: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(via, flags, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw raced(root, real);
    const name = relativeName(root, real);
    if (code === 'ENXIO') throw new AppError(ErrorCode.NotAFile, `'${name}' is not a regular file`);
    if (code === 'EISDIR') throw new AppError(ErrorCode.NotAFile, `'${name}' is a folder, not a file`);
    if (code === 'ENOTDIR') throw new AppError(ErrorCode.NotADirectory, `'${name}' is a file, not a folder`);
    if (code === 'ENOENT') throw new AppError(ErrorCode.FileNotFound, `No file at '${name}' (it was removed while it was opened)`);
    throw error;
  }
  // Belt and braces: the kernel's own word on where the descriptor points.
  const opened = await openedPath(handle);
  if (opened !== null && !isInside(root, opened)) {
    await handle.close();
    throw raced(root, real);
  }
  return handle;
}

function fdPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
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
