import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '@weft/config';
import { AppError, ErrorCode, type GenerateChunk, type GenerateRequest, type GenerateResult } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type StartedService } from '../../../../test/support/containers';
import { gatewaySettingsSchema } from '../config';
import type { FleetGenerateOptions, FleetInference } from '../fleet/fleet-inference.client';
import { RedisKeys } from '../infra/redis-keys';
import { MeteredFleet } from './metered-fleet';
import { QuotaReservations } from './quota-reservations';
import { QuotaService } from './quota.service';
import { UsageMetrics } from './usage-metrics';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

type Usage = GenerateResult['usage'];

/** A fleet whose generations stream `deltas` deltas `gapMs` apart, then wait to be finished (with a usage) or aborted. */
class HeldFleet implements FleetInference {
  readonly finishers: Array<(usage: Usage) => void> = [];
  deltas = 1;
  gapMs = 0;

  async *generate(_request: GenerateRequest, options: FleetGenerateOptions): AsyncGenerator<GenerateChunk> {
    const finished = new Promise<Usage | undefined>((resolve) => {
      this.finishers.push(resolve);
      options.signal?.addEventListener('abort', () => resolve(undefined));
    });
    for (let i = 0; i < this.deltas; i++) {
      if (i > 0) await sleep(this.gapMs);
      yield { type: 'delta', text: 'hi' };
    }
    const usage = await finished;
    // Aborted: the stream ends without a result, as the fleet client's does.
    if (!usage) return;
    yield { type: 'done', result: { text: 'hi', toolCalls: [], finishReason: 'stop', usage, timings: { totalMs: 1 } } };
  }
}

const CONTEXT = 80;
const MODEL = 'tiny';

/** MeteredFleet's token reservations on real Redis, each test under its own key prefix and user. */
let redis: StartedService;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

function world(env: Record<string, string> = {}) {
  const prefix = `test-${randomBytes(4).toString('hex')}:`;
  const keys = new RedisKeys(prefix);
  const config = loadConfig(gatewaySettingsSchema, { REDIS_URL: redis.url, NATS_URL: 'nats://127.0.0.1:4222', WEFT_ADMIN_TOKEN: 'admin-token-for-tests-0123456789', ...env });
  const metrics = new UsageMetrics();
  const limits = new UserLimitsRepository(client, keys, config);
  const usage = new UsageService(client, keys, config, metrics);
  const quotas = new QuotaService(client, keys, limits, usage, metrics, new QuotaReservations(client, keys), config);
  const fleet = new HeldFleet();
  const models = { list: async () => ({ models: [{ id: MODEL, provider: 'scripted' as const, contextSize: CONTEXT }] }) };
  const metered = new MeteredFleet(fleet, limits, quotas, usage, models, createLogger('test', 'silent'));
  const userId = `usr_${randomBytes(4).toString('hex')}`;
  const generate = (signal?: AbortSignal) =>
    metered.generate({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], user: { id: userId } }, { timeoutMs: 1000, signal })[Symbol.asyncIterator]();
  const held = async () => (await client.hvals(`${keys.user(userId)}:reserved-tokens`)).map((entry) => Number(entry.split(' ')[0]));
  return { fleet, limits, usage, userId, generate, held };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(ErrorCode.QuotaExceeded);
  return error as AppError;
}

describe('token reservations', () => {
  it("holds a generation's bound while it runs, then replaces it with its usage", async () => {
    const w = world();
    await w.limits.replace(w.userId, { tokensPerDay: 1000 });
    const a = w.generate();
    expect(await a.next()).toMatchObject({ value: { type: 'delta' } });
    // No max_tokens: the reply may fill the context, so the reservation is the context.
    expect(await w.held()).toEqual([CONTEXT]);
    w.fleet.finishers[0]?.({ promptTokens: 4, completionTokens: 2 });
    expect(await a.next()).toMatchObject({ value: { type: 'done' } });
    expect(await w.held()).toEqual([]);
    expect(await w.usage.quotaTokensToday(w.userId)).toBe(6);
  });

  it('refuses a generation that does not fit beside a running one, and takes it once the running one is cancelled', async () => {
    const w = world();
    await w.limits.replace(w.userId, { tokensPerDay: 100 });
    const abort = new AbortController();
    const a = w.generate(abort.signal);
    await a.next();
    const refused = await refusal(w.generate().next());
    expect(refused.message).toBe(`Over your quota of 100 tokens per day (0 used, ${CONTEXT} held by generations still running); it starts again at 00:00 UTC`);
    expect(refused.details).toMatchObject({ quota: 'tokensPerDay', limit: 100, used: 0, reserved: CONTEXT, retryAfterSeconds: expect.any(Number) });

    abort.abort();
    expect(await a.next()).toMatchObject({ done: true });
    // A cancelled generation has no figure from its worker: all of its reservation comes back.
    expect(await w.held()).toEqual([]);
    expect(await w.usage.quotaTokensToday(w.userId)).toBe(0);
    const b = w.generate();
    expect(await b.next()).toMatchObject({ value: { type: 'delta' } });
    await b.return(undefined);
  });

  it('gives the reservation back when the caller stops reading (a client gone)', async () => {
    const w = world();
    await w.limits.replace(w.userId, { tokensPerDay: 100 });
    const a = w.generate();
    await a.next();
    await a.return(undefined);
    expect(await w.held()).toEqual([]);
  });

  it('lets a reservation whose gateway died expire after twice INFERENCE_TIMEOUT_MS', async () => {
    const w = world({ INFERENCE_TIMEOUT_MS: '100' });
    await w.limits.replace(w.userId, { tokensPerDay: 100 });
    // Started and abandoned: neither finished nor returned, as when its process is killed.
    await w.generate().next();
    await refusal(w.generate().next());
    await sleep(250);
    const b = w.generate();
    expect(await b.next()).toMatchObject({ value: { type: 'delta' } });
    // The dead one's entry was dropped when the next reservation was taken.
    expect(await w.held()).toEqual([CONTEXT]);
    await b.return(undefined);
  });

  it('keeps a streaming generation\'s reservation alive past its ttl', async () => {
    const w = world({ INFERENCE_TIMEOUT_MS: '100' });
    await w.limits.replace(w.userId, { tokensPerDay: 100 });
    w.fleet.deltas = 10;
    w.fleet.gapMs = 50;
    const a = w.generate();
    // Ten deltas 50 ms apart: over twice the 200 ms ttl.
    for (let i = 0; i < 10; i++) expect(await a.next()).toMatchObject({ value: { type: 'delta' } });
    expect(await w.held()).toEqual([CONTEXT]);
    await refusal(w.generate().next());
    await a.return(undefined);
  });
});
