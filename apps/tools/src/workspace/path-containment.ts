import { lstat, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { displayName } from './display-name';
import { describePathProblem, findPathProblem } from './path-syntax';

/** Matches the kernel's own limit on symlink hops before ELOOP. */
export const MAX_SYMLINK_HOPS = 40;

export interface ResolvedPath {
  /** Absolute path inside the root with every symlink already followed. */
  real: string;
  exists: boolean;
  /** The path ends in a symlink whose target does not exist. */
  danglingLink: boolean;
}

interface Step {
  name: string;
  fromLink: boolean;
}

/** Per-component containment: `/ws/u1-evil` is not inside `/ws/u1`. */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return candidate.startsWith(prefix);
}

/**
 * Resolves `requested` against `root` (which must already be a real path) one component at a
 * time, following symlinks itself so that every intermediate location is checked, not just the
 * end: a link that leaves the root and a later `..` that comes back is still refused.
 */
export async function resolveInside(root: string, requested: string): Promise<ResolvedPath> {
  assertRelative(requested);
  const queue: Step[] = toSteps(requested, false);
  let current = root;
  let exists = true;
  let danglingLink = false;
  let hops = 0;

  while (queue.length > 0) {
    const step = queue.shift() as Step;
    if (step.name === '..') {
      current = dirname(current);
      assertContained(root, current, requested);
      continue;
    }
    const next = join(current, step.name);
    if (!exists) {
      current = next;
      continue;
    }
    const stats = await lstatOrNull(next, requested);
    if (stats === null) {
      exists = false;
      danglingLink = step.fromLink;
      current = next;
      continue;
    }
    if (stats.isSymbolicLink()) {
      if (++hops > MAX_SYMLINK_HOPS) {
        throw new AppError(ErrorCode.PathOutsideWorkspace, `Too many symbolic links while resolving '${requested}'`);
      }
      const target = await readLinkOrRaced(next, requested);
      queue.unshift(...linkSteps(root, target, requested));
      if (isAbsolute(target)) current = root;
      continue;
    }
    if (queue.length > 0 && !stats.isDirectory()) {
      throw new AppError(ErrorCode.NotADirectory, `'${requested}' goes through '${relativeName(root, next)}', which is not a folder`);
    }
    current = next;
  }
  assertContained(root, current, requested);
  return { real: current, exists, danglingLink: danglingLink && !exists };
}

/**
 * Relative paths only, written the way the model or a client would write them, and ones the
 * filesystem can hold: checked here, before any system call, so nothing is made on the way.
 */
export function assertRelative(requested: string): void {
  const problem = findPathProblem(requested);
  if (problem) {
    const details = problem.kind === 'name-too-long' ? { problem: problem.kind, name: displayName(problem.name) } : { problem: problem.kind };
    throw new AppError(ErrorCode.InvalidPath, `'${displayName(requested)}' cannot be used as a path: ${describePathProblem(problem)}`, details);
  }
  if (isAbsolute(requested) || /^[a-zA-Z]:[\\/]/.test(requested) || requested.startsWith('\\')) {
    throw new AppError(
      ErrorCode.PathOutsideWorkspace,
      `'${requested}' is an absolute path; use a path relative to the workspace root, such as 'src/index.ts'`,
    );
  }
}

export function relativeName(root: string, absolute: string): string {
  return absolute === root ? '.' : absolute.slice(root.length + 1);
}

function toSteps(path: string, fromLink: boolean): Step[] {
  return path
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .map((name) => ({ name, fromLink }));
}

/** An absolute link target is accepted only when it names a place under the root, verbatim. */
function linkSteps(root: string, target: string, requested: string): Step[] {
  if (!isAbsolute(target)) return toSteps(target, true);
  const rootParts = root.split('/').filter(Boolean);
  const targetParts = target.split('/').filter((p) => p !== '' && p !== '.');
  const underRoot = rootParts.every((part, i) => targetParts[i] === part);
  if (!underRoot) throw outside(requested);
  return targetParts.slice(rootParts.length).map((name) => ({ name, fromLink: true }));
}

function assertContained(root: string, candidate: string, requested: string): void {
  if (!isInside(root, candidate)) throw outside(requested);
}

function outside(requested: string): AppError {
  return new AppError(
    ErrorCode.PathOutsideWorkspace,
    `'${requested}' leads outside the workspace; only paths inside the workspace root can be used`,
  );
}

async function lstatOrNull(path: string, requested: string) {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') {
      throw new AppError(ErrorCode.NotADirectory, `'${requested}' goes through a file as if it were a folder`);
    }
    throw error;
  }
}

/** The link was replaced between lstat and readlink: a concurrent change, not a bad path. */
async function readLinkOrRaced(path: string, requested: string): Promise<string> {
  try {
    return await readlink(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EINVAL') throw error;
    throw new AppError(ErrorCode.Conflict, `'${requested}' changed while it was being resolved; try again`, { cause: error });
  }
}
