import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppError, ErrorCode } from '@weft/contracts';
import { type Logger, redactUrl } from '@weft/logging';
import type { Express, Request, Response } from 'express';
import { LOGGER } from '../../infra/tokens';
import { sendOpenAiError } from './openai-error.filter';

/**
 * Every other path under `/openai/v1`, any method: a 404 in OpenAI's shape, so a client probing
 * for a route Weft lacks reads the error it knows. A plain Express handler mounted once the
 * routes are (module init runs after them, before Nest's own 404): a controller's `@All` would
 * add a route for every HTTP method to the route table the contract is held to.
 */
@Injectable()
export class OpenAiNotFound implements OnModuleInit {
  constructor(
    private readonly adapter: HttpAdapterHost,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const app = this.adapter.httpAdapter.getInstance<Express>();
    app.use('/openai/v1', (req: Request, res: Response) => {
      const url = redactUrl(`${req.baseUrl}${req.path}`);
      sendOpenAiError(new AppError(ErrorCode.NotFound, `Unknown request URL: ${req.method} ${url}. Weft serves models, chat/completions, completions, embeddings and responses here.`), req, res, this.logger);
    });
  }
}
