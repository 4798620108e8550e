import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { loadConfig } from '@weft/config';
import type { StoredSessionEvent } from '@weft/contracts';
import { WireErrorFilter, natsConnectOptions } from '@weft/messaging';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestImages, type StartedService, startRedis } from '../../../../test/support/containers';
import { gatewaySettingsSchema } from '../config';
import { createGatewayApp } from '../create-app';
import { TEST_ADMIN_TOKEN } from '../test/gateway-under-test';
import { ScriptedWorkersModule, script } from '../test/scripted-workers';
import { ofType, sessionApi } from '../test/session-api';

/**
 * NATS stops and comes back while a slow model streams: the deltas the worker sent before the
 * gateway had reconnected are lost (core NATS, at most once). The log says so with a
 * `message.resync` carrying the generation's whole text, and a client that follows the stream
 * by the documented rule ends with exactly the stored answer.
 */
const docker = promisify(execFile);

let nats: StartedTestContainer;
let natsUrl: string;
let redis: StartedService;
let workers: INestMicroservice;
let app: INestApplication;
let client: ReturnType<typeof sessionApi>;

/** A fixed host port, so the restarted NATS is found at the same address. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  const config = join(resolve(__dirname, '../../../../docker'), 'nats.conf');
  [nats, redis] = await Promise.all([
    new GenericContainer(TestImages.nats)
      .withCopyContentToContainer([{ content: readFileSync(config), target: '/etc/nats/nats.conf' }])
      .withCommand(['-c', '/etc/nats/nats.conf'])
      .withExposedPorts({ container: 4222, host: port })
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
    startRedis(),
  ]);
  natsUrl = `nats://127.0.0.1:${port}`;
  // The worker reconnects at once, the gateway after nats.js's default 2 s: what the worker sends
  // in between has no subscriber and is dropped, as in the outage seen on the compose stack.
  workers = await NestFactory.createMicroservice<MicroserviceOptions>(ScriptedWorkersModule, {
    transport: Transport.NATS,
    options: { ...natsConnectOptions(natsUrl), queue: 'delta-resync-workers', reconnectTimeWait: 50 },
    logger: false,
  });
  workers.useGlobalFilters(new WireErrorFilter(() => undefined));
  await workers.listen();
  app = await createGatewayApp(
    loadConfig(gatewaySettingsSchema, {
      REDIS_URL: redis.url,
      NATS_URL: natsUrl,
      WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      REDIS_KEY_PREFIX: 'delta-resync:',
      LOG_LEVEL: 'silent',
    }),
  );
  await app.listen(0, '127.0.0.1');
  client = sessionApi((await app.getUrl()).replace('[::1]', '127.0.0.1'));
});

afterAll(async () => {
  await app?.close();
  await workers?.close();
  await Promise.all([nats?.stop(), redis?.stop()]);
});

/** What a client shows of a thread's reply: deltas appended, a resync replacing the generation's text. */
function reconstruct(events: StoredSessionEvent[]): string {
  let text = '';
  for (const event of events) {
    if (event.type === 'message.delta') text += event.text;
    else if (event.type === 'message.resync') text = event.text;
  }
  return text;
}

describe('deltas lost in a NATS outage', () => {
  it('are signalled by message.resync, and the reply pieced together from the stream is the stored one', { timeout: 90_000 }, async () => {
    const f = await client.fixture('resync');
    const chunks = Array.from({ length: 120 }, (_, i) => `w${i} `);
    script(f.sessionId, [{ chunks, chunkDelayMs: 50 }]);
    const posted = await client.start(f, '/messages', { content: 'tell me a long story' });
    let stopped: Promise<void> | undefined;
    const events = await client.follow(f, posted.after, (event) => {
      // At the first delta: NATS away for a moment, the generation going on meanwhile.
      if (event.type === 'message.delta' && !stopped) {
        stopped = (async () => {
          await docker('docker', ['stop', '-t', '0', nats.getId()]);
          await docker('docker', ['start', nats.getId()]);
        })();
      }
      return event.type === 'turn.completed' || event.type === 'turn.failed';
    });
    await stopped;
    expect(events.at(-1)?.type, JSON.stringify(events.at(-1))).toBe('turn.completed');
    const stored = ofType(events, 'message.completed')[0]?.content;
    expect(stored).toBe(chunks.join(''));
    // Some deltas were lost (else this test proves nothing), and the log said so.
    expect(ofType(events, 'message.delta').map((e) => e.text).join('')).not.toBe(stored);
    expect(ofType(events, 'message.resync')).toHaveLength(1);
    expect(reconstruct(events)).toBe(stored);
  });
});
