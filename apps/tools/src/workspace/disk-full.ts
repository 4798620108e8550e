import { AppError, ErrorCode } from '@weft/contracts';

/** errno codes of a filesystem that has no room left: out of blocks or inodes, or over a disk quota. */
const NO_ROOM = new Set(['ENOSPC', 'EDQUOT']);

/** Whether `error`, or an error it was caused by (node-tar wraps them), says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (NO_ROOM.has((current as NodeJS.ErrnoException).code ?? '')) return true;
  }
  return false;
}

/**
 * The server's disk, not the caller, is at fault: retryable once an administrator frees space.
 * Every writer that can hit it leaves the workspace as it was (see `replaceFile`, the upload's
 * clean-up and the sync's journal), so the message can promise that nothing was changed.
 */
export function workspaceDiskFull(cause: unknown, what?: string): AppError {
  const subject = what === undefined ? '' : ` ${what} was not written;`;
  return new AppError(
    ErrorCode.WorkspaceDiskFull,
    `The server's workspace disk is full:${subject} nothing was changed. Try again once space has been freed (this is for the server's administrator).`,
    undefined,
    true,
    { cause },
  );
}

/** `error` as WORKSPACE.DISK_FULL when the disk is full; as it is otherwise. */
export function diskFullOr(error: unknown, what?: string): unknown {
  return error instanceof AppError || !isDiskFull(error) ? error : workspaceDiskFull(error, what);
}
