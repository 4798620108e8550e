import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmbeddingWorkersModule, TOKENS_PER_INPUT, embeddingWorld } from '../test/embedding-workers';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../test/gateway-under-test';
import { sessionApi } from '../test/session-api';

/**
 * Every compatible route that spends inference, embeddings included, under the same quota, model
 * rules, usage and cancellation as agent turns: real Redis and NATS, the gateway in-process, a
 * stand-in worker that records what reaches it.
 */
let gateway: GatewayUnderTest;
let redis: Redis;
let api: ReturnType<typeof sessionApi>['api'];

interface TestUser {
  userId: string;
  key: string;
}

async function newUser(name: string): Promise<TestUser> {
  const userId = String((await api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name })).json.id);
  const key = String((await api('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN)).json.key);
  return { userId, key };
}

const setLimits = (u: TestUser, limits: Record<string, number>) => api('PUT', `/v1/admin/users/${u.userId}/limits`, TEST_ADMIN_TOKEN, limits);
const tokensUsedToday = async (u: TestUser) => (await api('GET', '/v1/me/limits', u.key)).json.tokensUsedToday;
const embed = (u: TestUser, model: string, input: string[]) => api('POST', '/openai/v1/embeddings', u.key, { model, input });

/** What the identity provider's groups would store at sign-in (WEFT_OIDC_GROUP_MODELS). */
async function denyModels(u: TestUser, deny: string[]): Promise<void> {
  await redis.hset(`${gateway.redisKeyPrefix}oidc:model-access:${u.userId}`, { allow: JSON.stringify(null), deny: JSON.stringify(deny) });
}

/** Each inference route with a body for `model`. */
const ROUTES: Array<[string, string, (model: string) => unknown]> = [
  ['embeddings', '/openai/v1/embeddings', (model) => ({ model, input: ['alpha'] })],
  ['chat completions', '/openai/v1/chat/completions', (model) => ({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })],
  ['legacy completions', '/openai/v1/completions', (model) => ({ model, prompt: 'def f(', max_tokens: 5 })],
  ['responses', '/openai/v1/responses', (model) => ({ model, input: 'hi', max_output_tokens: 16 })],
  ['anthropic messages', '/anthropic/v1/messages', (model) => ({ model, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })],
  ['anthropic count_tokens', '/anthropic/v1/messages/count_tokens', (model) => ({ model, messages: [{ role: 'user', content: 'hi' }] })],
];

/** Whether any request of this user reached a worker. */
const reachedWorker = (u: TestUser) => [...embeddingWorld.embeds, ...embeddingWorld.generates].some((r) => r.user?.id === u.userId);

beforeAll(async () => {
  gateway = await startGatewayUnderTest(EmbeddingWorkersModule, { INFERENCE_TIMEOUT_MS: '20000' });
  redis = new Redis(gateway.redisUrl);
  api = sessionApi(gateway.base).api;
});

afterAll(async () => {
  redis?.disconnect();
  await gateway?.stop();
});

beforeEach(() => {
  embeddingWorld.embeds.length = 0;
  embeddingWorld.generates.length = 0;
});

describe('embeddings', () => {
  it("count in the user's usage and tokens for the day, and reach the worker with the user's fair-share weight", async () => {
    const u = await newUser('embed-usage');
    await setLimits(u, { weight: 3 });
    const answered = await embed(u, 'tiny', ['one', 'two']);
    expect(answered).toMatchObject({ status: 200, json: { usage: { prompt_tokens: 2 * TOKENS_PER_INPUT }, data: [{ index: 0 }, { index: 1 }] } });
    expect(embeddingWorld.embeds.at(-1)).toMatchObject({ user: { id: u.userId, weight: 3 }, requestId: expect.any(String) });
    expect(await tokensUsedToday(u)).toBe(2 * TOKENS_PER_INPUT);
    const today = new Date().toISOString().slice(0, 10);
    expect((await api('GET', '/v1/me/usage', u.key)).json.rows).toEqual([
      expect.objectContaining({ date: today, model: 'tiny', generations: 1, promptTokens: 10, evaluatedTokens: 10, completionTokens: 0 }),
    ]);
  });

  it('are refused with 429 once the tokens for the day are spent, before any worker hears of them', async () => {
    const u = await newUser('embed-quota');
    await setLimits(u, { tokensPerDay: 10 });
    // The one request that may cross the line, as a generation may.
    expect((await embed(u, 'tiny', ['a', 'b', 'c'])).status).toBe(200);
    expect(await tokensUsedToday(u)).toBe(3 * TOKENS_PER_INPUT);
    embeddingWorld.embeds.length = 0;
    for (let i = 0; i < 2; i++) {
      const refused = await embed(u, 'tiny', ['d']);
      expect(refused).toMatchObject({ status: 429, json: { error: { code: 'QUOTA.EXCEEDED', message: expect.stringContaining('10 tokens per day') } } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(reachedWorker(u)).toBe(false);
    expect(await tokensUsedToday(u)).toBe(3 * TOKENS_PER_INPUT);
  });

  it('are cancelled on the worker when the client goes away, and give their reservation back', async () => {
    const u = await newUser('embed-cancel');
    await setLimits(u, { tokensPerDay: 1000 });
    const client = new AbortController();
    const request = fetch(`${gateway.base}/openai/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', input: ['hold'] }),
      signal: client.signal,
    });
    const gone = request.catch((error: unknown) => error);
    await vi.waitFor(() => expect(embeddingWorld.embeds.filter((r) => r.user?.id === u.userId)).toHaveLength(1));
    const requestId = embeddingWorld.embeds.find((r) => r.user?.id === u.userId)?.requestId;
    client.abort();
    expect(await gone).toMatchObject({ name: 'AbortError' });
    await vi.waitFor(() => expect(embeddingWorld.cancelled).toContain(requestId));
    expect(await tokensUsedToday(u)).toBe(0);
    // The whole quota is there again: a request bounded by 997 tokens fits beside no reservation.
    await vi.waitFor(async () => expect((await embed(u, 'tiny', ['z'.repeat(993)])).status).toBe(200));
  });

  it('name only the models the user may use when the model is unknown or embeds nothing', async () => {
    const u = await newUser('embed-models');
    await denyModels(u, ['secret']);
    const unknown = await embed(u, 'nope', ['a']);
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'model_not_found', message: 'Unknown model "nope"; known models: tiny, chat-only, ghost' } } });
    expect(unknown.text).not.toContain('secret');
    const chatOnly = await embed(u, 'chat-only', ['a']);
    expect(chatOnly).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('models that do: tiny, ghost') } } });
    expect(chatOnly.text).not.toContain('secret');
    const other = await newUser('embed-models-free');
    expect((await embed(other, 'nope', ['a'])).text).toContain('secret');
  });
});

describe('every inference route', () => {
  it.each(ROUTES)('%s: refuses a model the user’s groups deny with 403 before any worker hears of it', async (name, path, body) => {
    const u = await newUser(`denied-${name.replace(/\W+/g, '-')}`);
    await denyModels(u, ['secret']);
    expect(await api('POST', path, u.key, body('secret'))).toMatchObject({ status: 403, text: expect.stringContaining('secret') });
    expect(reachedWorker(u)).toBe(false);
    expect((await api('POST', path, u.key, body('tiny'))).status).toBe(200);
  });

  it.each(ROUTES)('%s: refuses a user whose tokens for the day are spent with 429 before any worker hears of it', async (name, path, body) => {
    const u = await newUser(`spent-${name.replace(/\W+/g, '-')}`);
    await setLimits(u, { tokensPerDay: 4 });
    expect((await embed(u, 'tiny', ['a'])).status).toBe(200);
    embeddingWorld.embeds.length = 0;
    expect(await api('POST', path, u.key, body('tiny'))).toMatchObject({ status: 429, text: expect.stringContaining('4 tokens per day') });
    expect(reachedWorker(u)).toBe(false);
  });

  it.each(ROUTES)('%s: names only the models the user may use for an unknown model, the gateway\'s answer or a worker\'s', async (name, path, body) => {
    const u = await newUser(`unknown-${name.replace(/\W+/g, '-')}`);
    await denyModels(u, ['secret']);
    for (const model of ['nope', 'ghost']) {
      const refused = await api('POST', path, u.key, body(model));
      expect(refused).toMatchObject({ status: 404, text: expect.stringContaining('tiny') });
      expect(refused.text).not.toContain('secret');
    }
  });
});
