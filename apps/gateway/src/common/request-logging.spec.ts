import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { createLogger } from '@weft/logging';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { requestLogging } from './request-logging';

const KEY = 'weft_Zm9yLXRoZS1sb2ctdGVzdC1vbmx5LW5vdC1hLXJlYWwta2V5';

/** The gateway's own logger and request logging on a bare express app, its lines kept in memory. */
async function serveWithCapturedLog(): Promise<{ base: string; server: Server; lines: string[]; completed: Promise<void> }> {
  const lines: string[] = [];
  let done!: () => void;
  const completed = new Promise<void>((resolve) => (done = resolve));
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      if (chunk.toString('utf8').includes('request completed')) done();
      callback();
    },
  });
  const app = express();
  app.use(requestLogging(createLogger('gateway', 'info', destination)));
  app.get('/v1/me', (_req, res) => void res.status(401).json({ error: { code: 'AUTH.UNAUTHORIZED' } }));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, lines, completed };
}

describe('request logging', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it.each(['api_key', 'key', 'token'])('logs a request with ?%s=<key> without the key', async (name) => {
    const served = await serveWithCapturedLog();
    server = served.server;
    const response = await fetch(`${served.base}/v1/me?${name}=${KEY}&limit=5`, {
      headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY },
    });
    expect(response.status).toBe(401);
    await served.completed;
    const log = served.lines.join('');
    expect(log).toContain(`/v1/me?${name}=[REDACTED]&limit=5`);
    expect(log).not.toContain(KEY);
    expect(log).not.toContain(KEY.slice(5, 25));
  });
});
