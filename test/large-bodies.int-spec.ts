import { performance, monitorEventLoopDelay } from 'node:perf_hooks';
import { Module } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN, type GatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';

/** Every refusal here happens before inference: no workers. */
@Module({})
class NoWorkers {}

/**
 * The longest the loop may stall: JSON.parse of 15 MB alone takes a few hundred ms on a busy CI
 * core; validating the 450,000 messages took over a second more here even without a worker (9 s
 * in production, through translation, hashing and the worker's payload).
 */
const STALL_BOUND_MS = 1_000;
/** A /healthz probe also waits behind the 15 MB upload on the same cores. */
const HEALTHZ_BOUND_MS = 2_000;

const messages = (n: number) => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'hi' }));

describe('large request bodies on the compatible APIs (#29 finding 9)', () => {
  let gateway: GatewayUnderTest;
  let key: string;

  beforeAll(async () => {
    gateway = await startGatewayUnderTest(NoWorkers);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    // The gateway answers before its Redis client has connected: a 503 then says to try again.
    let created = await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: '{"name":"large"}' });
    for (let i = 0; i < 50 && created.status === 503; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      created = await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: '{"name":"large"}' });
    }
    const user = (await created.json()) as { id: string };
    key = ((await (await fetch(`${gateway.base}/v1/admin/users/${user.id}/keys`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${gateway.base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error: { message: string; param?: string | null; type: string } } };
  };

  it('refuses 450,000 short messages (15 MB) quickly, and /healthz answers meanwhile', async () => {
    const body = JSON.stringify({ model: 'tiny', messages: messages(450_000) });
    expect(body.length).toBeGreaterThan(13 * 2 ** 20);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const healthz: number[] = [];
    let done = false;
    loop.enable();
    const refused = post('/openai/v1/chat/completions', body).finally(() => (done = true));
    // The gateway runs in this process: a stalled loop delays these probes exactly as it delays other clients.
    const probes = (async () => {
      while (!done) {
        const t = performance.now();
        expect((await fetch(`${gateway.base}/healthz`)).status).toBe(200);
        healthz.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const { status, body: error } = await refused;
    await probes;
    loop.disable();
    const stallMs = loop.max / 1e6;
    expect(status).toBe(400);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    expect(error.error.message).toBe('messages has 450000 items: at most 10000 are accepted in one request');
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    expect(healthz.length).toBeGreaterThan(0);
    expect(Math.max(...healthz)).toBeLessThan(HEALTHZ_BOUND_MS);
  });

  it('takes 10,000 messages, the limit itself, on to the model lookup', async () => {
    const { status, body } = await post('/openai/v1/chat/completions', { model: 'tiny', messages: messages(10_000) });
    // No worker runs here: past the limits, the fleet's answer (none serves the model) is what comes back.
    expect(status).toBe(503);
    expect(body.error.param ?? null).toBeNull();
  });

  it('refuses more than 50,000 content parts over the messages, naming where the count passed the limit', async () => {
    const parts = Array.from({ length: 30_000 }, () => ({ type: 'text', text: 'x' }));
    const { status, body } = await post('/openai/v1/chat/completions', { model: 'tiny', messages: [{ role: 'user', content: parts }, { role: 'user', content: parts }] });
    expect(status).toBe(400);
    expect(body.error.param).toBe('messages[1].content');
    expect(body.error.message).toMatch(/more than 50000 content blocks/);
  });

  it('refuses an overlong list in any top-level field of a completion', async () => {
    const { status, body } = await post('/openai/v1/completions', { model: 'tiny', prompt: 'x', stop: Array.from({ length: 10_001 }, () => 's') });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ param: 'stop', message: 'stop has 10001 items: at most 10000 are accepted in one request' });
  });

  it('refuses more than 10,000 Responses input items, for input_tokens too', async () => {
    const input = messages(10_001).map((m) => ({ type: 'message', ...m }));
    for (const path of ['/openai/v1/responses', '/openai/v1/responses/input_tokens']) {
      const { status, body } = await post(path, { model: 'tiny', input });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'input', message: 'input has 10001 items: at most 10000 are accepted in one request' });
    }
  });

  it("refuses more than 10,000 Anthropic messages in Anthropic's words, for count_tokens too", async () => {
    for (const path of ['/anthropic/v1/messages', '/anthropic/v1/messages/count_tokens']) {
      const { status, body } = await post(path, { model: 'tiny', max_tokens: 8, messages: messages(10_001) });
      expect(status).toBe(400);
      expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: List should have at most 10000 items after validation, not 10001' } });
    }
  });

  it('counts blocks nested in Anthropic tool results', async () => {
    const nested = Array.from({ length: 50_001 }, () => ({ type: 'text', text: 'r' }));
    const { status, body } = await post('/anthropic/v1/messages', {
      model: 'tiny',
      max_tokens: 8,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: nested }] }],
    });
    expect(status).toBe(400);
    expect(body.error.message).toMatch(/^messages\.0\.content: messages hold more than 50000 content blocks/);
  });
});
