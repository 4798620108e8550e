import { connect } from 'nats';
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, startRedis, type StartedService } from './containers';

describe('test containers', () => {
  let redis: StartedService;
  let nats: StartedService;
  beforeAll(async () => {
    [redis, nats] = await Promise.all([startRedis(), startNats()]);
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), nats?.stop()]);
  });

  it('starts a Redis that answers PING', async () => {
    const client = new Redis(redis.url);
    await expect(client.ping()).resolves.toBe('PONG');
    client.disconnect();
  });

  it('starts a NATS that delivers a request to a subscriber', async () => {
    const nc = await connect({ servers: nats.url });
    const sub = nc.subscribe('weft.test.echo');
    void (async () => {
      for await (const msg of sub) msg.respond(msg.data);
    })();
    const reply = await nc.request('weft.test.echo', new TextEncoder().encode('hi'), { timeout: 2000 });
    expect(new TextDecoder().decode(reply.data)).toBe('hi');
    await nc.close();
  });

  it('reaches both at their network address too, past the published port', async () => {
    const client = new Redis(redis.networkUrl);
    await expect(client.ping()).resolves.toBe('PONG');
    client.disconnect();
    const nc = await connect({ servers: nats.networkUrl });
    expect(nc.info?.port).toBe(4222);
    await nc.close();
  });
});
