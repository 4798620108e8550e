import { AppError, ErrorCode } from '@weft/contracts';

/** Why a pull failed; in `details.reason`, so clients branch on it without reading the message. */
export type PullFailure = 'source' | 'unreachable' | 'http-status' | 'interrupted' | 'size' | 'checksum' | 'disk-full' | 'not-gguf' | 'id-taken';

/** A pull that cannot go on: the message names the source and what to do. */
export function pullFailed(reason: PullFailure, message: string, details: Record<string, unknown> = {}, cause?: unknown): AppError {
  const code = reason === 'source' ? ErrorCode.InvalidRequest : reason === 'id-taken' ? ErrorCode.Conflict : ErrorCode.ModelDownloadFailed;
  return new AppError(code, message, { reason, ...details }, reason === 'unreachable' || reason === 'interrupted', cause === undefined ? undefined : { cause });
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
