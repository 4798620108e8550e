import { AppError, ErrorCode } from '@weft/contracts';
import { type Logger, redactUrl } from '@weft/logging';
import type { Request, Response } from 'express';
import { asJsonError } from '../common/app-exception.filter';
import { toHttpError } from '../common/http-error';

/** An error as the compatible APIs report it, before each API gives it its own shape. */
export interface CompatError {
  status: number;
  code: string;
  message: string;
  /** The request field at fault, where known (`messages[2].content`). */
  param?: string;
  /** Seconds, for a `Retry-After` header. */
  retryAfter?: number;
  /** Set for a 500: logged with the error. */
  errorId?: string;
}

/** Seconds a client should wait before retrying a request refused because every sequence was busy. */
const BUSY_RETRY_AFTER_S = 1;
const NO_WORKER_RETRY_AFTER_S = 5;

/**
 * Weft's errors with the statuses these APIs' clients act on: an unknown model is a 404 (the
 * SDKs' NotFoundError), a full fleet a 429 (`overloaded` is the caller's choice: Anthropic uses
 * 529), each with `Retry-After` so the SDKs' own retry waits the right time.
 */
export function toCompatError(exception: unknown, busyStatus: 429 | 529): CompatError {
  const { status, body, errorId } = toHttpError(exception);
  const { code, message, details } = body.error;
  const param = typeof details?.param === 'string' ? details.param : undefined;
  const base = { code, message, ...(param ? { param } : {}), ...(errorId ? { errorId } : {}) };
  if (code === ErrorCode.UnknownModel) return { ...base, status: 404 };
  if (code === ErrorCode.InferenceBusy) return { ...base, status: busyStatus, retryAfter: BUSY_RETRY_AFTER_S };
  // No worker answered at all: the fleet is down or starting, not merely full.
  if (code === ErrorCode.NoResponders) return { ...base, status: 503, retryAfter: NO_WORKER_RETRY_AFTER_S };
  const retryAfter = typeof details?.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined;
  return { ...base, status, ...(retryAfter !== undefined ? { retryAfter } : {}) };
}

/** A request these APIs refuse, naming the field (`param`) the way the API's docs spell it. */
export function badRequest(message: string, param?: string): AppError {
  return new AppError(ErrorCode.InvalidRequest, message, param ? { param } : undefined);
}

/**
 * Answers a failed request in one API's error shape: logs a 500 with its id, sets `Retry-After`
 * where the error has one, and ends a response whose headers already went out.
 */
export function sendCompatError(
  exception: unknown,
  req: Request,
  res: Response,
  logger: Logger,
  api: { busyStatus: 429 | 529; body: (error: CompatError) => unknown },
): void {
  const error = toCompatError(exception, api.busyStatus);
  if (error.errorId) logger.error({ err: exception, errorId: error.errorId, method: req.method, url: redactUrl(req.originalUrl) }, 'unexpected error');
  if (res.headersSent) {
    res.end();
    return;
  }
  if (error.retryAfter !== undefined) res.setHeader('Retry-After', String(error.retryAfter));
  asJsonError(res);
  res.status(error.status).json(api.body(error));
}
