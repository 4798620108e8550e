import { HttpException } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { storeRefusal } from '../infra/store-refusal';
import { codeForStatus, statusForCode } from './error-status';
import { newId } from './ids';

export interface HttpErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown>; errorId?: string };
}

export interface HttpErrorResponse {
  status: number;
  body: HttpErrorBody;
  /** Set for a 500: the id is in the body and must be logged with the error. */
  errorId?: string;
}

/** Anything thrown while serving a request, as the status and `{ error }` body a client sees. */
export function toHttpError(thrown: unknown): HttpErrorResponse {
  // Redis refusing a write (out of memory, a full disk) is a 503 the client can wait out, not a 500.
  const exception = storeRefusal(thrown) ?? thrown;
  if (exception instanceof AppError) {
    const status = statusForCode(exception.code);
    if (status === 500) return internal();
    return { status, body: { error: { code: exception.code, message: exception.message, details: exception.details } } };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status >= 500) return internal();
    return { status, body: { error: { code: codeForStatus(status), message: httpMessage(exception) } } };
  }
  const bodyParserError = asBodyParserError(exception);
  if (bodyParserError) return bodyParserError;
  if (isUndecodableParam(exception)) {
    return { status: 400, body: { error: { code: ErrorCode.ValidationFailed, message: exception.message } } };
  }
  return internal();
}

/**
 * express's router could not percent-decode a path parameter (`/v1/workspaces/%/sync`). Nest's own
 * routes answer that themselves; a path-mounted middleware (the sync body's parser) passes the
 * router's URIError on. Its message is "Failed to decode param '…'".
 */
function isUndecodableParam(exception: unknown): exception is URIError {
  return exception instanceof URIError && (exception as { status?: unknown }).status === 400;
}

function internal(): HttpErrorResponse {
  const errorId = newId('err');
  return {
    status: 500,
    errorId,
    body: { error: { code: ErrorCode.Internal, message: `Internal error (errorId ${errorId})`, errorId } },
  };
}

function httpMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/**
 * body-parser's errors (http-errors) carry `status` and most a `type`; one it could not inflate
 * (`Content-Encoding: gzip` on a body that is not) carries only zlib's `code`. Their own messages
 * are not shown.
 */
function asBodyParserError(exception: unknown): HttpErrorResponse | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { type, status, limit, expose, code } = exception as { type?: unknown; status?: unknown; limit?: unknown; expose?: unknown; code?: unknown };
  if (typeof status !== 'number' || (typeof type !== 'string' && expose !== true)) return undefined;
  if (type === 'entity.too.large') {
    const code = ErrorCode.PayloadTooLarge;
    return { status: 413, body: { error: { code, message: `Request body is larger than ${String(limit)} bytes`, details: { limit } } } };
  }
  if (type === 'entity.parse.failed') {
    return { status: 400, body: { error: { code: ErrorCode.ValidationFailed, message: 'Malformed JSON in request body' } } };
  }
  if (status >= 400 && status < 500) {
    const what = typeof type === 'string' ? type : typeof code === 'string' && code.startsWith('Z_') ? 'it does not decode as its Content-Encoding says' : 'unknown';
    return { status, body: { error: { code: codeForStatus(status), message: `Unreadable request body (${what})` } } };
  }
  return undefined;
}
