import { AppError, ErrorCode, assertUnreachable } from '@weft/contracts';

/** Why a pull failed; in `details.reason`, so clients branch on it without reading the message. */
export type PullFailure = 'source' | 'unreachable' | 'http-status' | 'interrupted' | 'size' | 'oversize' | 'too-large' | 'checksum' | 'disk-full' | 'not-gguf' | 'id-taken';

/** A pull that cannot go on: the message names the source and what to do. */
export function pullFailed(reason: PullFailure, message: string, details: Record<string, unknown> = {}, cause?: unknown): AppError {
  return new AppError(codeOf(reason), message, { reason, ...details }, reason === 'unreachable' || reason === 'interrupted', cause === undefined ? undefined : { cause });
}

function codeOf(reason: PullFailure): ErrorCode {
  switch (reason) {
    case 'source':
      return ErrorCode.InvalidRequest;
    case 'id-taken':
      return ErrorCode.Conflict;
    case 'too-large':
      return ErrorCode.ModelTooLarge;
    case 'disk-full':
      return ErrorCode.ModelsDiskFull;
    case 'not-gguf':
      return ErrorCode.ModelFileInvalid;
    case 'unreachable':
    case 'http-status':
    case 'interrupted':
    case 'size':
    case 'oversize':
    case 'checksum':
      return ErrorCode.ModelDownloadFailed;
    default:
      return assertUnreachable(reason);
  }
}

/** Failures a later pull cannot mend by resuming: their `.part` file is deleted. */
export function keepsPartFile(error: unknown): boolean {
  const reason = reasonOf(error);
  return reason === 'interrupted' || reason === 'unreachable';
}

export function reasonOf(error: unknown): PullFailure | undefined {
  if (!(error instanceof AppError)) return undefined;
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? (reason as PullFailure) : undefined;
}

/** `fetch failed: ECONNREFUSED` rather than undici's bare `fetch failed`. */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ? `${error.message}: ${cause.code}` : cause?.message ? `${error.message}: ${cause.message}` : error.message;
}
