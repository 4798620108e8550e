import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { loadConfig } from '@weft/config';
import { ErrorCode } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { createNatsMicroservice } from '@weft/messaging';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestImages, type StartedService, startNats } from '../../../test/support/containers';
import { gatewaySettingsSchema } from './config';
import { createGatewayApp } from './create-app';
import { TEST_ADMIN_TOKEN } from './test/gateway-under-test';
import { ScriptedWorkersModule, script } from './test/scripted-workers';
import { type SessionFixture, sessionApi } from './test/session-api';

/**
 * Redis stops answering (the container paused: the connection stays open, nothing replies, the
 * hardest case to notice): the API answers 503 `STORE.UNAVAILABLE` with `Retry-After` within
 * seconds, in each API's error shape, readiness says so, and once Redis is back everything works
 * again without a restart, turns (BullMQ) included.
 */
const docker = promisify(execFile);
/** "Promptly": a request answered within this, never a hang on the client's offline queue. */
const ANSWERS_WITHIN_MS = 3_000;

let redis: StartedTestContainer;
let nats: StartedService;
let workers: INestMicroservice;
let app: INestApplication;
let client: ReturnType<typeof sessionApi>;
let f: SessionFixture;

beforeAll(async () => {
  [redis, nats] = await Promise.all([
    new GenericContainer(TestImages.redis).withExposedPorts(6379).withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/)).start(),
    startNats(),
  ]);
  workers = await createNatsMicroservice(ScriptedWorkersModule, { nats: nats.url, queue: 'store-outage-workers', logger: createLogger('test-workers', 'silent') });
  await workers.listen();
  app = await createGatewayApp(
    loadConfig(gatewaySettingsSchema, {
      REDIS_URL: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
      NATS_URL: nats.url,
      WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      REDIS_KEY_PREFIX: 'store-outage:',
      LOG_LEVEL: 'silent',
    }),
  );
  await app.listen(0, '127.0.0.1');
  client = sessionApi((await app.getUrl()).replace('[::1]', '127.0.0.1'));
  f = await client.fixture('outage');
});

afterAll(async () => {
  await docker('docker', ['unpause', redis.getId()]).catch(() => undefined);
  await app?.close();
  await workers?.close();
  await Promise.all([redis?.stop(), nats?.stop()]);
});

/** A request with a stopwatch. */
async function timed(method: string, path: string, token: string, body?: unknown) {
  const started = Date.now();
  const answer = await client.api(method, path, token, body);
  return { ...answer, ms: Date.now() - started };
}

/** Polls readiness (it answers at once either way) until it says `want`. */
async function readiness(want: 'up' | 'down') {
  for (;;) {
    const answer = await client.api('GET', '/readyz');
    if ((answer.json.checks as { redis: string }).redis === want) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a Redis that stops answering', () => {
  it('is answered 503 with Retry-After at once, in each API shape, and recovered from without a restart', { timeout: 60_000 }, async () => {
    await docker('docker', ['pause', redis.getId()]);

    // Sent straight after the pause, before anything noticed: answered when the gateway notices.
    const session = await timed('GET', '/v1/sessions', f.key);
    expect(session.status, session.text).toBe(503);
    expect(session.ms).toBeLessThan(ANSWERS_WITHIN_MS);
    expect(session.headers.get('retry-after')).toBe('5');
    expect(session.json.error?.code).toBe(ErrorCode.StoreUnavailable);
    expect(session.json.error?.message).toBe("Weft's store (Redis) is unreachable; try again shortly");

    const down = await readiness('down');
    expect(down.status).toBe(503);
    expect(down.json.down).toEqual(['redis']);

    const admin = await timed('GET', '/v1/admin/users', TEST_ADMIN_TOKEN);
    expect(admin.status).toBe(503);
    expect(admin.ms).toBeLessThan(ANSWERS_WITHIN_MS);
    expect(admin.headers.get('retry-after')).toBe('5');

    const openai = await timed('POST', '/openai/v1/chat/completions', f.key, { model: 'tiny', messages: [{ role: 'user', content: 'hi' }] });
    expect(openai.status).toBe(503);
    expect(openai.ms).toBeLessThan(ANSWERS_WITHIN_MS);
    expect(openai.headers.get('retry-after')).toBe('5');
    expect(openai.json.error).toMatchObject({ type: 'server_error', code: ErrorCode.StoreUnavailable });

    const anthropic = await timed('POST', '/anthropic/v1/messages', f.key, { model: 'tiny', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(anthropic.status).toBe(503);
    expect(anthropic.headers.get('retry-after')).toBe('5');
    expect(anthropic.json).toMatchObject({ type: 'error', error: { type: 'api_error', weft_code: ErrorCode.StoreUnavailable } });

    // Liveness is not readiness: the process itself is fine.
    expect((await client.api('GET', '/healthz')).status).toBe(200);

    await docker('docker', ['unpause', redis.getId()]);
    await readiness('up');

    expect((await client.api('GET', '/v1/sessions', f.key)).status).toBe(200);
    expect((await client.api('GET', '/v1/admin/users', TEST_ADMIN_TOKEN)).status).toBe(200);
    // The turn workers (BullMQ) lived through it: a turn posted now runs to its end.
    script(f.sessionId, [{ text: 'back again' }]);
    const posted = await client.start(f, '/messages', { content: 'are you there?' });
    const events = await client.follow(f, posted.after);
    expect(events.at(-1)?.type).toBe('turn.completed');
  });
});
