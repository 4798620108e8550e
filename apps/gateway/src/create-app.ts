import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type Logger, PinoNestLogger, createLogger } from '@weft/logging';
import { httpServerTracing } from '@weft/telemetry';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppModule } from './app.module';
import { AppExceptionFilter, sendHttpError } from './common/app-exception.filter';
import { answerClientErrorsAsJson } from './common/client-error';
import { requestLogging } from './common/request-logging';
import { sendAnthropicError } from './compat/anthropic/anthropic-error.filter';
import { sendOpenAiError } from './compat/openai/openai-error.filter';
import type { GatewaySettings } from './config';
import { StoreGate } from './infra/store-gate';
import { SYNC_BODY_PATH, syncBodyLimit } from './workspaces/workspace-sync-body';
import { GZIP_TYPES } from './workspaces/workspace-upload';

const JSON_BODY_LIMIT = '1mb';
/** Stateless clients resend the whole conversation, tool definitions and all, on every request. */
const COMPAT_PREFIXES = ['/openai', '/anthropic'];
/** Probes and scrapes, every few seconds: not worth a trace each. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface CreateGatewayOptions {
  logger?: Logger;
}

/** Builds the gateway (not yet listening), so tests can boot it in-process on port 0. */
export async function createGatewayApp(
  config: GatewaySettings,
  options: CreateGatewayOptions = {},
): Promise<NestExpressApplication> {
  const logger = options.logger ?? createLogger('gateway', config.LOG_LEVEL);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logger), {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
  });
  app.use(httpServerTracing((path) => UNTRACED_PATHS.has(path)));
  app.use(requestLogging(logger));
  // Plain Express middleware, not Nest's `forRoutes`: that would add a route of every method to
  // the router, which the route table (api-fuzz) and /openapi.json must not see.
  const storeGate = app.get(StoreGate);
  app.use((req: Request, res: Response, next: NextFunction) => storeGate.use(req, res, next));
  app.use('/v1/workspaces', express.raw({ type: GZIP_TYPES, limit: config.WORKSPACE_UPLOAD_MAX_BYTES }));
  app.use(SYNC_BODY_PATH, express.json({ limit: syncBodyLimit(config) }));
  app.use(COMPAT_PREFIXES, express.json({ limit: config.COMPAT_BODY_MAX_BYTES }));
  app.use(express.json({ limit: JSON_BODY_LIMIT }));
  // Body-parser failures (malformed JSON, too large) happen before Nest's filters see the request;
  // the compatible APIs answer them in their own error shape.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (req.path.startsWith('/openai/')) sendOpenAiError(error, req, res, logger);
    else if (req.path.startsWith('/anthropic/')) sendAnthropicError(error, req, res, logger);
    else sendHttpError(error, req, res, logger);
  });
  app.useGlobalFilters(new AppExceptionFilter(logger));
  answerClientErrorsAsJson(app.getHttpServer());
  app.enableShutdownHooks();
  return app;
}
