import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, ErrorCode } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { sendHttpError } from './app-exception.filter';

describe('sendHttpError', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('sends an error as JSON after the handler had set up a download', async () => {
    const app = express();
    app.get('/export', (_req, res, next) => {
      res.attachment('ses_x.jsonl').type('application/x-ndjson');
      next(new AppError(ErrorCode.NotFound, 'Session ses_x not found'));
    });
    const logger = createLogger('gateway', 'silent');
    app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => sendHttpError(error, req, res, logger));
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/export`, { signal: AbortSignal.timeout(5000) });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBeNull();
    expect(await response.json()).toEqual({ error: { code: ErrorCode.NotFound, message: 'Session ses_x not found' } });
  });
});
