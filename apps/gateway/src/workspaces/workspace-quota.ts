import { AppError, ErrorCode } from '@weft/contracts';

/**
 * What an upload may still add to a user's workspaces. Measured on disk by the tools worker, so
 * files written by the agent count too; the archive is then checked against it before unpacking.
 */
export function quotaLeft(quotaBytes: number, usedBytes: number): number {
  const left = quotaBytes - usedBytes;
  if (left <= 0) {
    throw new AppError(
      ErrorCode.PayloadTooLarge,
      `Workspace quota reached: your workspaces hold ${usedBytes} bytes of ${quotaBytes}; delete files or workspaces before uploading more`,
      { quotaBytes, usedBytes },
    );
  }
  return left;
}
