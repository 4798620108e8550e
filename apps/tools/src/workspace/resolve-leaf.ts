import { lstat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { assertRelative, resolveInside } from './path-containment';

export interface ResolvedLeaf {
  /** Real parent folder (every link followed and checked) joined with the leaf's own name. */
  real: string;
  /** The leaf is not followed: a symlink is reported as one. */
  kind: 'missing' | 'file' | 'directory' | 'symlink' | 'other';
}

/**
 * For tools that act on a name rather than on what it points to (move, delete): the parent is
 * resolved and contained, the last component is taken as is.
 */
export async function resolveLeaf(root: string, requested: string): Promise<ResolvedLeaf> {
  assertRelative(requested);
  const normalized = posix.normalize(requested).replace(/\/+$/, '');
  const name = basename(normalized);
  if (normalized === '.' || normalized === '' || name === '..') {
    throw new AppError(ErrorCode.NotAFile, `'${requested}' names the workspace root or a parent of it, not an entry`);
  }
  const parent = await resolveInside(root, dirname(normalized));
  if (!parent.exists) return { real: join(parent.real, name), kind: 'missing' };
  const real = join(parent.real, name);
  try {
    const stats = await lstat(real);
    if (stats.isSymbolicLink()) return { real, kind: 'symlink' };
    if (stats.isDirectory()) return { real, kind: 'directory' };
    return { real, kind: stats.isFile() ? 'file' : 'other' };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { real, kind: 'missing' };
    if (code === 'ENOTDIR') throw new AppError(ErrorCode.NotADirectory, `'${requested}' goes through a file as if it were a folder`);
    throw error;
  }
}
