import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, startWorker, type StartedWorker } from '../apps/inference/src/testing/worker-harness';
import { FleetKeys } from '../apps/gateway/src/fleet/fleet-keys';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN, type GatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';

/** The gateway is under test with a real inference worker: no stand-ins for tools or sandbox. */
@Module({})
class NoOtherWorkers {}

/** Five words, 100 ms apart: every request of a burst is still generating when the last one arrives. */
const SLOW_SCRIPT = { turns: [{ text: 'one two three four five', delayMs: 100 }] };
const MODEL = 'scripted/slow';
const TOKENS_PER_DAY = 30;

/**
 * The tokens-per-day quota under concurrency, through the official OpenAI client: a generation
 * reserves its bound before it starts, so a burst cannot all pass a check that sees only the
 * generations already finished. Real gateway, real inference worker (a scripted model), real
 * Redis and NATS.
 */
describe('tokens per day under a burst of compatible-API calls', () => {
  let dir: string;
  let gateway: GatewayUnderTest;
  let worker: StartedWorker | undefined;
  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

  async function userWithQuota(name: string): Promise<{ key: string; openai: OpenAI; usedToday: () => Promise<number> }> {
    const user = (await (await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ name }) })).json()) as { id: string };
    const key = ((await (await fetch(`${gateway.base}/v1/admin/users/${user.id}/keys`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
    const limits = await fetch(`${gateway.base}/v1/admin/users/${user.id}/limits`, { method: 'PUT', headers: admin, body: JSON.stringify({ tokensPerDay: TOKENS_PER_DAY }) });
    expect(limits.status).toBe(200);
    const usedToday = async () =>
      ((await (await fetch(`${gateway.base}/v1/me/limits`, { headers: { authorization: `Bearer ${key}` } })).json()) as { tokensUsedToday: number }).tokensUsedToday;
    return { key, openai: new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: key, maxRetries: 0 }), usedToday };
  }

  beforeAll(async () => {
    dir = await makeTempDir('weft-quota-');
    await mkdir(join(dir, 'scripts'), { recursive: true });
    await writeFile(join(dir, 'scripts', 'slow.json'), JSON.stringify(SLOW_SCRIPT));
    gateway = await startGatewayUnderTest(NoOtherWorkers);
    worker = await startWorker(gateway.natsUrl, dir, { models: [], scripted: { dir: join(dir, 'scripts') } });
    const redis = new Redis(gateway.redisUrl);
    const fleetWorkers = new FleetKeys(gateway.redisKeyPrefix).workers();
    for (let i = 0; i < 200 && (await redis.zcard(fleetWorkers)) < 1; i++) await sleep(100);
    expect(await redis.zcard(fleetWorkers)).toBe(1);
    redis.disconnect();
  });

  afterAll(async () => {
    await worker?.close().catch(() => undefined);
    await gateway?.stop();
    await removeDir(dir);
  });

  it('serves one of 20 parallel completions with a quota of 30 tokens and refuses the others up front with 429, QUOTA.EXCEEDED and Retry-After', async () => {
    const { openai, usedToday } = await userWithQuota('burst');
    const calls = Array.from({ length: 20 }, (_, i) => openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: `hello ${i}` }] }));
    const outcomes = await Promise.allSettled(calls);

    const served = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    // Each generation reserves its prompt plus its reply bound (no max_tokens: the model's
    // context), more than the whole quota: only one may run, alone, and cross the line.
    expect(served).toHaveLength(1);
    expect(refused).toHaveLength(19);
    for (const error of refused) {
      expect(error).toBeInstanceOf(OpenAI.APIError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).toBe(429);
      expect(apiError.message).toContain(`Over your quota of ${TOKENS_PER_DAY} tokens per day`);
      expect(Number(apiError.headers?.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await usedToday()).toBe(served[0]?.usage?.total_tokens);
  });

  it('ends the day at most one generation past the quota when calls come one after another', async () => {
    const { openai, usedToday } = await userWithQuota('one-by-one');
    const perGeneration: number[] = [];
    for (;;) {
      const reply = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], max_tokens: 10 }).catch((error: unknown) => error);
      if (reply instanceof OpenAI.APIError) {
        expect(reply.status).toBe(429);
        break;
      }
      perGeneration.push((reply as OpenAI.ChatCompletion).usage?.total_tokens ?? 0);
    }
    const used = await usedToday();
    expect(used).toBe(perGeneration.reduce((a, b) => a + b, 0));
    // The last one served started below the quota; nothing was served once it was spent.
    expect(used - (perGeneration.at(-1) ?? 0)).toBeLessThan(TOKENS_PER_DAY);
    expect(used).toBeGreaterThanOrEqual(TOKENS_PER_DAY);
  });
});
