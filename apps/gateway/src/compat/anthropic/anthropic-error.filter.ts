import { type ArgumentsHost, Catch, type ExceptionFilter, Inject } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from '@weft/contracts';
import { LOGGER } from '../../infra/tokens';
import { type CompatError, sendCompatError } from '../compat-error';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'invalid_request_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** `{ type: 'error', error: { type, message } }`, as Anthropic answers. */
export function anthropicErrorBody(error: CompatError) {
  return { type: 'error', error: { type: TYPE_BY_STATUS[error.status] ?? 'api_error', message: error.message, weft_code: error.code } };
}

export function sendAnthropicError(exception: unknown, req: Request, res: Response, logger: Logger): void {
  sendCompatError(inAnthropicWords(exception), req, res, logger, { busyStatus: 529, body: anthropicErrorBody });
}

/**
 * A prompt over the context, worded as Anthropic's `prompt is too long: N tokens > M maximum`:
 * Claude Code reads the two numbers from these words to compact the conversation and retry.
 */
export function inAnthropicWords(exception: unknown): unknown {
  if (!(exception instanceof AppError) || exception.code !== ErrorCode.ContextLengthExceeded) return exception;
  const { promptTokens, contextSize } = exception.details ?? {};
  const message =
    typeof promptTokens === 'number' && typeof contextSize === 'number'
      ? `prompt is too long: ${promptTokens} tokens > ${contextSize} maximum`
      : `prompt is too long: ${exception.message}`;
  return new AppError(exception.code, message, exception.details, exception.retryable, { cause: exception });
}

@Catch()
export class AnthropicErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendAnthropicError(exception, http.getRequest<Request>(), http.getResponse<Response>(), this.logger);
  }
}
