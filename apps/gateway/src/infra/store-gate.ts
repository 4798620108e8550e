import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { NextFunction, Request, Response } from 'express';
import { sendHttpError } from '../common/app-exception.filter';
import { sendAnthropicError } from '../compat/anthropic/anthropic-error.filter';
import { sendOpenAiError } from '../compat/openai/openai-error.filter';
import { RedisAvailability } from './redis-availability';
import { LOGGER } from './tokens';

/** What a client is told to wait before retrying while the store is down. */
export const STORE_RETRY_AFTER_S = 5;

/** The API's routes: each authenticates against Redis. Probes, metrics, docs and the web page do not. */
const STORE_PREFIXES = ['/v1/', '/openai/', '/anthropic/'];

export function storeUnavailable(): AppError {
  return new AppError(ErrorCode.StoreUnavailable, "Weft's store (Redis) is unreachable; try again shortly", { retryAfterSeconds: STORE_RETRY_AFTER_S }, true);
}

/**
 * Answers 503 `STORE.UNAVAILABLE` with `Retry-After` while Redis is down, instead of letting a
 * request wait on the client's offline queue (ioredis retries a command for ~10 s, then a 500) or
 * hang on a Redis that stopped answering. A request already in flight when Redis goes down is
 * answered the same way at once; its commands may still run when Redis is back. The queue itself is
 * kept: the turn workers share the client and ride out a Redis restart on it.
 */
@Injectable()
export class StoreGate implements NestMiddleware {
  constructor(
    private readonly availability: RedisAvailability,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const path = req.originalUrl.split('?')[0] ?? '';
    if (!STORE_PREFIXES.some((prefix) => path.startsWith(prefix))) return next();
    if (!this.availability.up) return this.refuse(path, req, res);
    const forget = this.availability.onceDown(() => this.refuse(path, req, res));
    res.once('close', forget);
    next();
  }

  /** In the error shape of the API the client speaks; a stream already under way just ends. */
  private refuse(path: string, req: Request, res: Response): void {
    const error = storeUnavailable();
    if (path.startsWith('/openai/')) sendOpenAiError(error, req, res, this.logger);
    else if (path.startsWith('/anthropic/')) sendAnthropicError(error, req, res, this.logger);
    else sendHttpError(error, req, res, this.logger);
  }
}
