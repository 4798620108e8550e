import { assertUnreachable } from '@weft/contracts';
import { displayName } from './display-name';

/** Linux's NAME_MAX: the longest name of one file or folder, in bytes. */
export const MAX_NAME_BYTES = 255;
/** Linux's PATH_MAX (4096) less its terminating NUL: the longest path a system call takes. */
export const MAX_PATH_BYTES = 4095;

export type PathProblem =
  | { kind: 'nul-byte' }
  | { kind: 'name-too-long'; name: string; bytes: number }
  | { kind: 'path-too-long'; bytes: number };

/**
 * What makes `path` (relative, `/`-separated) one the filesystem cannot hold, checked before any
 * system call sees it; null when it can be used.
 */
export function findPathProblem(path: string): PathProblem | null {
  if (path.includes('\0')) return { kind: 'nul-byte' };
  // The long name first: it says what to shorten.
  for (const name of path.split('/')) {
    const nameBytes = Buffer.byteLength(name, 'utf8');
    if (nameBytes > MAX_NAME_BYTES) return { kind: 'name-too-long', name, bytes: nameBytes };
  }
  const bytes = Buffer.byteLength(path, 'utf8');
  return bytes > MAX_PATH_BYTES ? { kind: 'path-too-long', bytes } : null;
}

/** The problem in words, for the person or model that sent the path. */
export function describePathProblem(problem: PathProblem): string {
  switch (problem.kind) {
    case 'nul-byte':
      return 'it contains a NUL byte';
    case 'name-too-long':
      return `the name '${displayName(problem.name, 60)}' is ${problem.bytes} bytes long; a file or folder name can be at most ${MAX_NAME_BYTES} bytes`;
    case 'path-too-long':
      return `it is ${problem.bytes} bytes long; a path can be at most ${MAX_PATH_BYTES} bytes`;
    default:
      return assertUnreachable(problem);
  }
}
