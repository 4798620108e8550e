import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { loadConfig } from '@weft/config';
import { ErrorCode, type StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { createNatsMicroservice } from '@weft/messaging';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestImages, type StartedService, startNats } from '../../../test/support/containers';
import { gatewaySettingsSchema } from './config';
import { createGatewayApp } from './create-app';
import { STORE_REFUSAL_RETRY_AFTER_S } from './infra/store-refusal';
import { TEST_ADMIN_TOKEN } from './test/gateway-under-test';
import { ScriptedWorkersModule, script } from './test/scripted-workers';
import { type SessionFixture, sessionApi, turnEnded } from './test/session-api';

/**
 * Redis refuses writes but answers: its disk is full (a real 8 MiB tmpfs under its AOF, as
 * compose runs it: `MISCONF`) or it is out of memory (`maxmemory` under `noeviction`: `OOM`).
 * Writes are answered 503 with a typed code and `Retry-After` in each API's shape, reads go on,
 * nothing stored is lost, and the next write after space is freed works without a restart.
 */
let redis: StartedTestContainer;
let nats: StartedService;
let workers: INestMicroservice;
let app: INestApplication;
let client: ReturnType<typeof sessionApi>;
let f: SessionFixture;
let firstTurn: StoredSessionEvent[];

beforeAll(async () => {
  [redis, nats] = await Promise.all([
    new GenericContainer(TestImages.redis)
      .withCommand(['redis-server', '--appendonly', 'yes', '--maxmemory-policy', 'noeviction', '--protected-mode', 'no'])
      // Root, to write to the tmpfs (root's own) in this image and the official one alike.
      .withUser('0:0')
      .withTmpFs({ '/data': 'rw,size=8m' })
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start(),
    startNats(),
  ]);
  workers = await createNatsMicroservice(ScriptedWorkersModule, { nats: nats.url, queue: 'store-full-workers', logger: createLogger('test-workers', 'silent') });
  await workers.listen();
  app = await createGatewayApp(
    loadConfig(gatewaySettingsSchema, {
      REDIS_URL: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
      NATS_URL: nats.url,
      WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      REDIS_KEY_PREFIX: 'store-full:',
      // A turn cut off by the refusal is resumed once its lock lapses: sooner than compose's 30 s.
      AGENT_JOB_LOCK_MS: '3000',
      LOG_LEVEL: 'silent',
    }),
  );
  await app.listen(0, '127.0.0.1');
  client = sessionApi((await app.getUrl()).replace('[::1]', '127.0.0.1'));
  f = await client.fixture('full');
  script(f.sessionId, [{ text: 'stored before the disk filled' }]);
  const posted = await client.start(f, '/messages', { content: 'remember this' });
  firstTurn = await client.follow(f, posted.after);
  expect(firstTurn.at(-1)?.type).toBe('turn.completed');
}, 120_000);

afterAll(async () => {
  await app?.close();
  await workers?.close();
  await Promise.all([redis?.stop(), nats?.stop()]);
});

const redisCli = async (...args: string[]) => (await redis.exec(['redis-cli', ...args])).output.trim();

/** Writes until Redis says it refuses them: it learns of a full disk at its next AOF flush. */
async function untilRefused(prefix: string): Promise<void> {
  for (let i = 0; ; i++) {
    if ((await redisCli('set', `probe:${i}`, 'x'.repeat(4096))).startsWith(prefix)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function fillDisk(): Promise<void> {
  await redis.exec(['sh', '-c', 'dd if=/dev/zero of=/data/ballast bs=64k 2>/dev/null; true']);
  await untilRefused('MISCONF');
}

async function freeDisk(): Promise<void> {
  await redis.exec(['rm', '-f', '/data/ballast']);
  await untilWritable();
}

/** Polls until Redis takes writes again (it retries its AOF every second by itself). */
async function untilWritable(): Promise<void> {
  while ((await redisCli('set', 'probe:back', 'x')) !== 'OK') await new Promise((resolve) => setTimeout(resolve, 200));
}

/** Every way a client writes, each in its own API's error shape, refused with `code`; reads still served. */
async function expectWritesRefusedReadsServed(code: ErrorCode): Promise<void> {
  const retryAfter = String(STORE_REFUSAL_RETRY_AFTER_S);
  const message = await client.api('POST', `/v1/sessions/${f.sessionId}/messages`, f.key, { content: 'anything' });
  expect(message.status, message.text).toBe(503);
  expect(message.json.error?.code, message.text).toBe(code);
  expect(message.headers.get('retry-after')).toBe(retryAfter);
  expect(message.json.error?.message).toContain('reads still work');

  const admin = await client.api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: `refused-${code}` });
  expect(admin.status, admin.text).toBe(503);
  expect(admin.json.error?.code).toBe(code);

  const openai = await client.api('POST', '/openai/v1/chat/completions', f.key, { model: 'tiny', messages: [{ role: 'user', content: 'hi' }] });
  expect(openai.status, openai.text).toBe(503);
  expect(openai.headers.get('retry-after')).toBe(retryAfter);
  expect(openai.json.error).toMatchObject({ type: 'server_error', code });

  const anthropic = await client.api('POST', '/anthropic/v1/messages', f.key, { model: 'tiny', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
  expect(anthropic.status, anthropic.text).toBe(503);
  expect(anthropic.headers.get('retry-after')).toBe(retryAfter);
  expect(anthropic.json).toMatchObject({ type: 'error', error: { type: 'api_error', weft_code: code } });

  // Reads: the session with its history, and its whole event log.
  const session = await client.api('GET', `/v1/sessions/${f.sessionId}`, f.key);
  expect(session.status, session.text).toBe(200);
  expect(session.text).toContain('stored before the disk filled');
  const log = await client.follow(f, '0', turnEnded);
  // Read from the start up to the first turn's end: every event of it, under the same ids.
  expect(log.slice(-firstTurn.length)).toEqual(firstTurn);
}

async function expectWritesWorkAgain(reply: string): Promise<void> {
  script(f.sessionId, [{ text: reply }]);
  const posted = await client.start(f, '/messages', { content: 'again' });
  const events = await client.follow(f, posted.after);
  expect(events.at(-1)?.type).toBe('turn.completed');
  const history = await client.api('GET', `/v1/sessions/${f.sessionId}`, f.key);
  expect(history.text).toContain('stored before the disk filled');
  expect(history.text).toContain(reply);
}

describe('a Redis that refuses writes', () => {
  it('with its disk full: 503 STORE.READ_ONLY on writes, reads served, nothing lost, writes back once space is freed', { timeout: 90_000 }, async () => {
    try {
      await fillDisk();
      await expectWritesRefusedReadsServed(ErrorCode.StoreReadOnly);
    } finally {
      await freeDisk();
    }
    await expectWritesWorkAgain('written once the disk had room');
  });

  it('out of memory: 503 STORE.FULL on writes, reads served, nothing lost, writes back once memory is freed', { timeout: 90_000 }, async () => {
    try {
      await redisCli('config', 'set', 'maxmemory', '1');
      await untilRefused('OOM');
      await expectWritesRefusedReadsServed(ErrorCode.StoreFull);
    } finally {
      await redisCli('config', 'set', 'maxmemory', '0');
    }
    await expectWritesWorkAgain('written once memory was freed');
  });

  it('ends a turn in flight with one event once Redis takes writes again, and the session goes on', { timeout: 120_000 }, async () => {
    const chunks = Array.from({ length: 30 }, (_, i) => `part ${i} `);
    script(f.sessionId, [{ text: chunks.join(''), chunks, chunkDelayMs: 100 }, { text: 'answered after the refusal' }, { text: 'and the next turn' }]);
    const posted = await client.start(f, '/messages', { content: 'stream for a while' });
    const turnId = String(posted.json.turnId);
    await client.follow(f, posted.after, (e) => e.type === 'message.delta');
    try {
      await fillDisk();
      // The rest of the stream (3 s) meets the refusal: its deltas and the turn's end cannot be stored.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
    } finally {
      await freeDisk();
    }
    const events = await client.follow(f, posted.after);
    const end = events.at(-1);
    expect(end?.type === 'turn.completed' || (end?.type === 'turn.failed' && end.code.startsWith('STORE.')), JSON.stringify(end)).toBe(true);
    const exported = await client.api('GET', `/v1/sessions/${f.sessionId}/export`, f.key);
    const lines = exported.text.trim().split('\n').map((line) => JSON.parse(line) as { type: string; event?: StoredSessionEvent });
    const logged = lines.flatMap((line) => (line.type === 'event' && line.event ? [line.event] : []));
    expect(logged.filter((e) => turnEnded(e) && 'turnId' in e && e.turnId === turnId)).toHaveLength(1);
    await expectWritesWorkAgain('and the next turn');
  });
});
