import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ArchiveUnreadable } from '../archive/archive-unreadable';
import { EntryRejected } from '../archive/entry-policy';
import { diskFullOr, isDiskFull } from './disk-full';

/** Runs `work` on an uploaded archive; a rejected entry or an unreadable archive becomes ARCHIVE_REJECTED (400), logged once. */
export async function rejectingArchive<T>(log: Logger, workspaceId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw archiveRejection(log, workspaceId, error);
  }
}

/**
 * A rejected entry or an unreadable archive as ARCHIVE_REJECTED; a full disk (node-tar reports it
 * as a failed entry) as WORKSPACE.DISK_FULL, the server's fault and not the archive's; any other
 * error as it is.
 */
export function archiveRejection(log: Logger, workspaceId: string, error: unknown): unknown {
  if (isDiskFull(error)) return diskFullOr(error);
  if (!(error instanceof EntryRejected || error instanceof ArchiveUnreadable)) return error;
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  log.warn({ workspaceId, reason: error.message, cause }, 'workspace archive rejected');
  const entry = error instanceof EntryRejected ? { entry: error.entry } : {};
  return new AppError(ErrorCode.ArchiveRejected, `Archive rejected: ${error.message}`, { reason: error.message, ...entry });
}
