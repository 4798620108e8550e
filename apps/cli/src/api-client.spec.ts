import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient } from './api-client';
import { ApiError, ConnectionError, ProtocolError, formatError } from './errors';
import type { FetchFn } from './gateway-http';

function replying(status: number, body: string, contentType = 'application/json'): FetchFn {
  return async () => new Response(body, { status, headers: { 'content-type': contentType } });
}

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('ApiClient error mapping', () => {
  it('turns the gateway error body into an ApiError with its code, message and status', async () => {
    const body = JSON.stringify({ error: { code: 'AGENT.TURN_IN_PROGRESS', message: 'a turn is already running', details: { turnId: 't1' } } });
    const client = new ApiClient('http://gw', 'k', replying(409, body));
    const error = await client.postMessage('ses_1', 'hi').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'AGENT.TURN_IN_PROGRESS', message: 'a turn is already running', details: { turnId: 't1' } });
    expect(formatError(error)).toBe('error: a turn is already running (AGENT.TURN_IN_PROGRESS)');
  });

  it('keeps the status of an error that is not JSON', async () => {
    const client = new ApiClient('http://gw', 'k', replying(502, '<html>Bad Gateway</html>', 'text/html'));
    await expect(client.me()).rejects.toMatchObject({ status: 502, code: 'HTTP_502' });
  });

  it('hints at logging in again on a 401', async () => {
    const body = JSON.stringify({ error: { code: 'AUTH.UNAUTHORIZED', message: 'unknown API key' } });
    const error = await new ApiClient('http://gw', 'k', replying(401, body)).me().catch((caught: unknown) => caught);
    expect(formatError(error)).toBe('error: unknown API key (AUTH.UNAUTHORIZED)\nhint: check the key, or run `weft login` again');
  });

  it('says when to try again from the Retry-After of a 429', async () => {
    const body = JSON.stringify({ error: { code: 'QUOTA.EXCEEDED', message: 'over 600 requests per minute' } });
    const fetchFn: FetchFn = async () => new Response(body, { status: 429, headers: { 'retry-after': '12' } });
    const error = await new ApiClient('http://gw', 'k', fetchFn).usage({ from: '2026-11-01' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 12 });
    expect(formatError(error)).toBe('error: over 600 requests per minute (QUOTA.EXCEEDED)\nhint: try again in 12 s');
  });

  it('names the URL when the connection is refused', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await new ApiClient(url, 'k').models().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(formatError(error)).toBe(`error: cannot reach the Weft gateway at ${url}: connection refused (is the gateway running?)`);
  });

  it('rejects a success body of the wrong shape', async () => {
    const client = new ApiClient('http://gw', 'k', replying(200, JSON.stringify({ models: 'none' })));
    await expect(client.models()).rejects.toBeInstanceOf(ProtocolError);
  });

  it('sends the key as a bearer token and the content as JSON', async () => {
    let seen: Request | undefined;
    const fetchFn: FetchFn = async (input, init) => {
      seen = new Request(input, init);
      return new Response(JSON.stringify({ turnId: 'turn_1' }), { status: 202 });
    };
    expect(await new ApiClient('http://gw', 'weft_k', fetchFn).postMessage('ses/1', 'hi')).toBe('turn_1');
    expect(seen?.url).toBe('http://gw/v1/sessions/ses%2F1/messages');
    expect(seen?.headers.get('authorization')).toBe('Bearer weft_k');
    expect(await seen?.json()).toEqual({ content: 'hi' });
  });
});
