import { AppError, ErrorCode } from '@weft/contracts';
import { isDiskFull, workspaceDiskFull } from './disk-full';
import { displayName } from './display-name';
import { MAX_NAME_BYTES, MAX_PATH_BYTES } from './path-syntax';
import { isInside, relativeName } from './path-containment';

interface Failure {
  code: ErrorCode;
  says: (name: string) => string;
}

/** How an error of a system call reads to the one who sent the path. */
const FAILURES = new Map<string, Failure>([
  [
    'ENAMETOOLONG',
    {
      code: ErrorCode.InvalidPath,
      says: (name) =>
        `'${name}' is too long for the filesystem: a file or folder name can be at most ${MAX_NAME_BYTES} bytes and a whole path at most ${MAX_PATH_BYTES}`,
    },
  ],
  ['ENOTDIR', { code: ErrorCode.NotADirectory, says: (name) => `'${name}' goes through a file as if it were a folder` }],
  ['ELOOP', { code: ErrorCode.PathOutsideWorkspace, says: (name) => `'${name}' goes through too many symbolic links, or a link where none may be followed` }],
  ['ENOENT', { code: ErrorCode.FileNotFound, says: (name) => `No file or folder at '${name}'` }],
  ['EISDIR', { code: ErrorCode.NotAFile, says: (name) => `'${name}' is a folder, not a file` }],
  ['EEXIST', { code: ErrorCode.Conflict, says: (name) => `'${name}' already exists` }],
  ['ENOTEMPTY', { code: ErrorCode.Conflict, says: (name) => `'${name}' is a folder that is not empty` }],
  ['EACCES', { code: ErrorCode.Forbidden, says: (name) => `'${name}' cannot be used: permission denied` }],
  ['EPERM', { code: ErrorCode.Forbidden, says: (name) => `'${name}' cannot be used: operation not permitted` }],
]);

/**
 * The safety net under the up-front checks: an error of a file system call on a workspace path
 * that reached a tool or a read, as the typed error the caller can act on, naming the path
 * relative to the workspace and never the server's own. A full disk is WORKSPACE.DISK_FULL (the
 * writes leave the workspace as it was). Undefined for anything else: other failures of the
 * server (an I/O error, a missing binary) and calls on paths outside the workspace stay internal
 * and are logged.
 */
export function fsFailure(error: unknown, root: string): AppError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (isDiskFull(error)) return workspaceDiskFull(error);
  const { code, path } = error as NodeJS.ErrnoException;
  const failure = code === undefined ? undefined : FAILURES.get(code);
  const name = path === undefined ? undefined : workspaceName(root, path);
  if (!failure || name === undefined) return undefined;
  return new AppError(failure.code, failure.says(name), undefined, false, { cause: error });
}

/**
 * What a client may see of a path a system call named: the part under the workspace root, or
 * the name after a pinned descriptor (`/proc/self/fd/<n>/<name>`, see safe-fs); undefined for
 * any other path.
 */
function workspaceName(root: string, path: string): string | undefined {
  if (isInside(root, path)) return displayName(relativeName(root, path));
  const pinned = /^\/proc\/self\/fd\/\d+\/(.+)$/.exec(path)?.[1];
  return pinned === undefined ? undefined : displayName(pinned);
}
