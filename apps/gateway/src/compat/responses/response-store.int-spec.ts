import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type StartedService } from '../../../../../test/support/containers';
import type { GatewaySettings } from '../../config';
import { RedisKeys } from '../../infra/redis-keys';
import { responseEcho, responseObject } from './response-object';
import { ResponseStore } from './response-store.repository';
import { responsesRequestSchema } from './responses-request';

describe('ResponseStore on real Redis', () => {
  let service: StartedService;
  let redis: Redis;
  let store: ResponseStore;

  beforeAll(async () => {
    service = await startRedis();
    redis = new Redis(service.url);
    store = new ResponseStore(redis, new RedisKeys(`test:${Date.now()}:`), { OPENAI_RESPONSES_TTL_DAYS: 30 } as GatewaySettings);
  });

  afterAll(async () => {
    redis?.disconnect();
    await service?.stop();
  });

  const record = (id: string) => ({
    response: responseObject(responseEcho(id, responsesRequestSchema.parse({ model: 'm', input: 'x' })), { status: 'completed', output: [] }),
    conversation: [{ role: 'user' as const, content: 'x' }],
    inputItems: [{ id: 'item_1', type: 'message' }],
  });

  it("keeps a response for its owner only: another user's lookup and delete find nothing", async () => {
    await store.save('usr_a', record('resp_1'));
    expect((await store.get('usr_a', 'resp_1'))?.conversation).toEqual([{ role: 'user', content: 'x' }]);
    expect(await store.get('usr_b', 'resp_1')).toBeUndefined();
    expect(await store.delete('usr_b', 'resp_1')).toBe(false);
    expect(await store.get('usr_a', 'resp_1')).toBeDefined();
    expect(await store.delete('usr_a', 'resp_1')).toBe(true);
    expect(await store.get('usr_a', 'resp_1')).toBeUndefined();
  });

  it('lets every record expire after the configured days', async () => {
    await store.save('usr_a', record('resp_2'));
    const [key] = await redis.keys('test:*:response:resp_2');
    const ttl = await redis.ttl(key!);
    expect(ttl).toBeGreaterThan(30 * 86_400 - 60);
    expect(ttl).toBeLessThanOrEqual(30 * 86_400);
  });
});
