import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { type Logger, redactUrl } from '@weft/logging';
import type { Request, Response } from 'express';
import { toHttpError } from './http-error';

/** Every HTTP error leaves through here, as `{ error: { code, message, details? } }`. */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendHttpError(exception, http.getRequest<Request>(), http.getResponse<Response>(), this.logger);
  }
}

/** Shared with the express error handler that catches body-parser failures. */
export function sendHttpError(exception: unknown, req: Request, res: Response, logger: Logger): void {
  const { status, body, errorId } = toHttpError(exception);
  if (errorId) logger.error({ err: exception, errorId, method: req.method, url: redactUrl(req.originalUrl) }, 'unexpected error');
  if (res.headersSent) {
    res.end();
    return;
  }
  // A quota or a busy fleet says when to come back.
  const retryAfter = body.error.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  asJsonError(res);
  res.status(status).json(body);
}

/**
 * A handler may have prepared a download (`Content-Type`, `Content-Disposition`, set by `@Header`
 * before its pipes even ran) and then failed: the error goes out as JSON all the same.
 */
export function asJsonError(res: Response): void {
  res.removeHeader('Content-Disposition');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
}
