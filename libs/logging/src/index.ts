import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';
export { REDACTED, redactUrl } from './redact-url';

/**
 * One structured logger per process. Secrets never reach it: the redact list covers the places
 * where keys and tokens travel. `destination` (stdout by default) lets a test read the lines.
 */
export function createLogger(service: string, level = 'info', destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name: service,
    level,
    base: { service },
    redact: [
      'req.headers.authorization',
      'req.headers["x-api-key"]',
      'req.headers.cookie',
      'authorization',
      '["x-api-key"]',
      'key',
      'token',
      '*.key',
      '*.token',
      '*.authorization',
      '*["x-api-key"]',
    ],
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Routes NestJS's own log lines into pino. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
  fatal(message: unknown, context?: string) {
    this.logger.fatal({ context }, String(message));
  }
}
