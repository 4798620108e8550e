import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@weft/config';
import type { StoredSessionEvent } from '@weft/contracts';
import { createParser } from 'eventsource-parser';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewaySettingsSchema } from '../config';
import { createGatewayApp } from '../create-app';
import { RedisKeys } from '../infra/redis-keys';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule } from '../test/scripted-workers';
import { type SessionFixture, sessionApi } from '../test/session-api';
import { EVENT_FIELD, encodeEvent } from './event-codec';

/**
 * An open event stream lasts only as long as its key: revoked, or its user disabled, through the
 * API of one replica, the stream served by another ends within seconds and gets none of the
 * events appended after. Two gateway replicas on one real Redis and NATS.
 */
let gateway: GatewayUnderTest;
let replica: INestApplication;
let replicaBase: string;
let redis: Redis;
let keys: RedisKeys;
let client: ReturnType<typeof sessionApi>;

/** How long a stream may take to end after its key stops: "within seconds". */
const ENDS_WITHIN_MS = 3_000;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule);
  replica = await createGatewayApp(
    loadConfig(gatewaySettingsSchema, {
      REDIS_URL: gateway.redisUrl,
      NATS_URL: gateway.natsUrl,
      WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      REDIS_KEY_PREFIX: gateway.redisKeyPrefix,
      LOG_LEVEL: 'silent',
    }),
  );
  await replica.listen(0, '127.0.0.1');
  replicaBase = await replica.getUrl();
  redis = new Redis(gateway.redisUrl);
  keys = new RedisKeys(gateway.redisKeyPrefix);
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  redis?.disconnect();
  await replica?.close();
  await gateway?.stop();
});

interface OpenStream {
  events: StoredSessionEvent[];
  comments: string[];
  /** Resolves when the server ends the response. */
  ended: Promise<void>;
  /** Resolves at the first event whose text is `text`. */
  received(text: string): Promise<void>;
  abort(): void;
}

/** Follows the session's events on the replica with `key`, from now on. */
async function openStream(f: SessionFixture, key: string): Promise<OpenStream> {
  const after = String((await client.api('GET', `/v1/sessions/${f.sessionId}`, f.key)).json.lastEventId);
  const controller = new AbortController();
  const response = await fetch(`${replicaBase.replace('[::1]', '127.0.0.1')}/v1/sessions/${f.sessionId}/events?after=${after}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const events: StoredSessionEvent[] = [];
  const comments: string[] = [];
  const waiting = new Map<string, () => void>();
  const parser = createParser({
    onEvent: (message) => {
      const event = JSON.parse(message.data) as StoredSessionEvent;
      events.push(event);
      if (event.type === 'message.delta') waiting.get(event.text)?.();
    },
    onComment: (comment) => comments.push(comment.trim()),
  });
  const ended = (async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  })().catch(() => undefined);
  return {
    events,
    comments,
    ended,
    received: (text) =>
      events.some((e) => e.type === 'message.delta' && e.text === text) ? Promise.resolve() : new Promise((resolve) => waiting.set(text, resolve)),
    abort: () => controller.abort(),
  };
}

/** Appends to the session's log as a turn does (any replica's stream reads the same Redis stream). */
async function append(f: SessionFixture, text: string): Promise<void> {
  await redis.xadd(keys.sessionEvents(f.sessionId), '*', EVENT_FIELD, encodeEvent({ type: 'message.delta', turnId: 'turn_revocation', text }));
}

async function endsWithin(stream: OpenStream, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([stream.ended.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
    stream.abort();
  }
}

const texts = (stream: OpenStream) => stream.events.flatMap((e) => (e.type === 'message.delta' ? [e.text] : []));

describe('event streams end with their key', () => {
  it("ends a stream when its key is revoked through another replica's API, before any later event", async () => {
    const f = await client.fixture('stream-revoked');
    const laptop = await client.api('POST', '/v1/me/keys', f.key, { name: 'laptop' });
    const stream = await openStream(f, String(laptop.json.key));
    await append(f, 'before');
    await stream.received('before');

    expect((await client.api('DELETE', `/v1/me/keys/${String(laptop.json.id)}`, f.key)).status).toBe(204);
    await append(f, 'after');

    expect(await endsWithin(stream, ENDS_WITHIN_MS)).toBe(true);
    expect(texts(stream)).toEqual(['before']);
    expect(stream.comments).toContainEqual(expect.stringContaining('was revoked'));
  });

  it('ends the streams of a user the admin disables, before any later event', async () => {
    const f = await client.fixture('stream-disabled');
    const stream = await openStream(f, f.key);
    await append(f, 'before');
    await stream.received('before');

    expect((await client.api('PATCH', `/v1/admin/users/${f.userId}`, TEST_ADMIN_TOKEN, { disabled: true })).status).toBe(200);
    await append(f, 'after');

    expect(await endsWithin(stream, ENDS_WITHIN_MS)).toBe(true);
    expect(texts(stream)).toEqual(['before']);
    expect(stream.comments).toContainEqual(expect.stringContaining('disabled'));
  });

  it('reads the key again before writing, so a revocation whose notice was missed still stops the next event', async () => {
    const f = await client.fixture('stream-unannounced');
    const stream = await openStream(f, f.key);
    await append(f, 'before');
    await stream.received('before');

    // As if the replica's subscriber had been reconnecting when the notice went out.
    await redis.hdel(keys.userKeys(f.userId), ...(await redis.hkeys(keys.userKeys(f.userId))));
    await append(f, 'after');

    expect(await endsWithin(stream, ENDS_WITHIN_MS)).toBe(true);
    expect(texts(stream)).toEqual(['before']);
  });

  it('keeps a stream whose key is fine open through other users’ revocations', async () => {
    const f = await client.fixture('stream-unaffected');
    const other = await client.fixture('stream-neighbour');
    const spare = await client.api('POST', '/v1/me/keys', other.key, { name: 'spare' });
    const stream = await openStream(f, f.key);
    expect((await client.api('DELETE', `/v1/me/keys/${String(spare.json.id)}`, other.key)).status).toBe(204);
    expect((await client.api('PATCH', `/v1/admin/users/${other.userId}`, TEST_ADMIN_TOKEN, { disabled: true })).status).toBe(200);
    await append(f, 'still here');
    await stream.received('still here');
    stream.abort();
    expect(texts(stream)).toEqual(['still here']);
  });
});
