import { type ArgumentsHost, Catch, type ExceptionFilter, Inject } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { Request, Response } from 'express';
import { LOGGER } from '../../infra/tokens';
import { type CompatError, sendCompatError } from '../compat-error';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** Weft's codes under the names OpenAI clients look for; the rest keep Weft's. */
const OPENAI_CODES: Record<string, string> = {
  'INFERENCE.UNKNOWN_MODEL': 'model_not_found',
  'INFERENCE.CONTEXT_LENGTH_EXCEEDED': 'context_length_exceeded',
  'AUTH.UNAUTHORIZED': 'invalid_api_key',
  'INFERENCE.BUSY': 'rate_limit_exceeded',
};

/** `{ error: { message, type, param, code } }`, as OpenAI answers. */
export function openAiErrorBody(error: CompatError) {
  return {
    error: {
      message: error.message,
      type: TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? 'server_error' : 'invalid_request_error'),
      param: error.param ?? null,
      code: OPENAI_CODES[error.code] ?? error.code,
    },
  };
}

export function sendOpenAiError(exception: unknown, req: Request, res: Response, logger: Logger): void {
  sendCompatError(exception, req, res, logger, { busyStatus: 429, body: openAiErrorBody });
}

@Catch()
export class OpenAiErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendOpenAiError(exception, http.getRequest<Request>(), http.getResponse<Response>(), this.logger);
  }
}
