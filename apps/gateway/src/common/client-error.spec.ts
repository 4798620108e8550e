import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendBytes } from '../test/raw-request';
import { answerClientErrorsAsJson } from './client-error';

describe('answerClientErrorsAsJson', () => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function serve(): Promise<Server> {
    server = createServer((_req, res) => res.end('ok'));
    answerClientErrorsAsJson(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return server;
  }

  it.each([
    ['a broken request line', 'GARBAGE\r\n\r\n', 400, 'Malformed HTTP request'],
    ['headers past the limit', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431, 'Request headers, the URL included, are larger than the server accepts'],
  ])('answers %s with a JSON error', async (_what, request, status, message) => {
    const { port } = (await serve()).address() as AddressInfo;
    const answer = await sendBytes(`http://127.0.0.1:${port}`, request, 5000);
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(body)).toEqual({ error: { code: 'COMMON.VALIDATION_FAILED', message } });
  });
});
