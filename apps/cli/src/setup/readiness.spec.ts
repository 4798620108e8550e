import { describe, expect, it } from 'vitest';
import { ConnectionError, ProtocolError } from '../errors';
import type { FetchFn } from '../gateway-http';
import { probeReadiness } from './readiness';

const answering = (status: number, body: unknown): FetchFn => async () => new Response(JSON.stringify(body), { status });

describe('probeReadiness', () => {
  it('reads a ready gateway and one whose dependency is down', async () => {
    expect(await probeReadiness('http://gw', answering(200, { status: 'ok', checks: { redis: 'up', nats: 'up' } }))).toEqual({
      ready: true,
      checks: { redis: 'up', nats: 'up' },
      down: [],
    });
    const down = await probeReadiness('http://gw', answering(503, { status: 'unavailable', down: ['nats'], checks: { redis: 'up', nats: 'down' } }));
    expect(down).toEqual({ ready: false, checks: { redis: 'up', nats: 'down' }, down: ['nats'] });
  });

  it('asks whether the URL is a Weft gateway when it answers something else', async () => {
    await expect(probeReadiness('http://gw', answering(404, { message: 'nope' }))).rejects.toThrow(ProtocolError);
    await expect(probeReadiness('http://gw', async () => new Response('<html>', { status: 200 }))).rejects.toThrow(/is this a Weft gateway\?/);
  });

  it('reports a refused connection as the gateway being unreachable', async () => {
    const refused: FetchFn = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    };
    const error = await probeReadiness('http://gw', refused).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe('cannot reach the Weft gateway at http://gw: connection refused (is the gateway running?)');
  });
});
