import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * One structured logger per process. Secrets never reach it: the redact list covers the places
 * where keys and tokens travel.
 */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: ['req.headers.authorization', 'authorization', 'key', 'token', '*.key', '*.token'],
  });
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
