import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppError, ErrorCode } from '@weft/contracts';
import { type Logger, redactUrl } from '@weft/logging';
import type { Express, Request, Response } from 'express';
import { LOGGER } from '../../infra/tokens';
import { sendAnthropicError } from './anthropic-error.filter';

/**
 * Every other path under `/anthropic`, any method: a 404 `not_found_error` in Anthropic's shape,
 * so a client probing for a route Weft lacks reads the error it knows. A plain Express handler
 * mounted once the routes are, as for `/openai/v1` (an `@All` route would enter the route table).
 */
@Injectable()
export class AnthropicNotFound implements OnModuleInit {
  constructor(
    private readonly adapter: HttpAdapterHost,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const app = this.adapter.httpAdapter.getInstance<Express>();
    app.use('/anthropic', (req: Request, res: Response) => {
      const url = redactUrl(`${req.baseUrl}${req.path}`);
      const served = 'v1/messages, v1/messages/count_tokens, v1/models and api/hello';
      sendAnthropicError(new AppError(ErrorCode.NotFound, `Unknown request URL: ${req.method} ${url}. Weft serves ${served} here.`), req, res, this.logger);
    });
  }
}
