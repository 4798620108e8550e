import { All, Controller, Req, UseFilters } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';
import { OpenAiErrorFilter } from './openai-error.filter';

/**
 * Every other path under `/openai/v1`, any method: a 404 in OpenAI's shape, so a client probing
 * for a route Weft lacks reads the error it knows. Registered after every other controller.
 */
@Controller('openai/v1')
@UseFilters(OpenAiErrorFilter)
export class OpenAiNotFoundController {
  @All(['', '*path'])
  notFound(@Req() req: Request): never {
    throw new AppError(ErrorCode.NotFound, `Unknown request URL: ${req.method} ${req.path}. Weft serves OpenAI's models, chat/completions, completions, embeddings and responses routes here.`);
  }
}
