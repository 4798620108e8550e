import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Routes, ToolsSubjects } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient, NatsEventBus, natsConnectOptions, type NatsServer, type RpcClient } from '@weft/messaging';
import { connect, type NatsConnection } from 'nats';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetInferenceClient } from '../apps/gateway/src/fleet/fleet-inference.client';
import { FleetKeys } from '../apps/gateway/src/fleet/fleet-keys';
import { FleetRegistry } from '../apps/gateway/src/fleet/fleet-registry';
import { FleetRouter } from '../apps/gateway/src/fleet/fleet-router';
import { describeWorker } from '../apps/gateway/src/fleet/fleet.controller';
import { RedisFleetStore } from '../apps/gateway/src/fleet/redis-fleet.store';
import { makeTempDir, removeDir, startWorker, type StartedWorker } from '../apps/inference/src/testing/worker-harness';
import { startNats, startRedis, type NatsPasswords, type StartedService } from './support/containers';

const log = createLogger('fleet-auth-test', 'silent');
const passwords: NatsPasswords = { services: 'services-0123456789', workers: 'workers-0123456789' };
const script = { turns: [{ text: 'served over an authenticated NATS' }] };

/**
 * NATS as the compose stack runs it (docker/nats-auth.conf): the central services log in as
 * `weft`, inference workers (here or on a GPU host elsewhere) as `inference`, which may use the
 * inference subjects only.
 */
describe('an inference fleet on NATS with users', () => {
  let nats: StartedService;
  let redisService: StartedService;
  let redis: Redis;
  let dir: string;
  let rpc: { client: RpcClient; close: () => Promise<void> };
  let bus: NatsEventBus;
  let registry: FleetRegistry;
  let fleet: FleetInferenceClient;
  const workers: StartedWorker[] = [];
  const services = (): NatsServer => ({ url: nats.url, user: 'weft', password: passwords.services });
  const asWorker = (password = passwords.workers) => ({ NATS_USER: 'inference', NATS_PASSWORD: password });

  beforeAll(async () => {
    [nats, redisService] = await Promise.all([startNats(passwords), startRedis()]);
    redis = new Redis(redisService.url);
    dir = await makeTempDir('weft-fleet-auth-');
    await writeFile(join(dir, 'scripts', 'hello.json'), JSON.stringify(script));
    rpc = await connectRpcClient(services(), 10_000);
    bus = await NatsEventBus.connect(services(), 'gateway-fleet', log);
    const store = new RedisFleetStore(redis, new FleetKeys(`test-${randomBytes(4).toString('hex')}:`));
    registry = new FleetRegistry(store, log);
    bus.subscribe(Routes.inferenceWorkerAnnounced, (heartbeat) => registry.apply(heartbeat));
    await bus.flush();
    fleet = new FleetInferenceClient(rpc.client, bus, registry, new FleetRouter(registry, store, log), store, log);
  });

  afterAll(async () => {
    for (const worker of workers) await worker.close().catch(() => undefined);
    registry?.close();
    await bus?.close();
    await rpc?.close();
    redis?.disconnect();
    await removeDir(dir);
    await Promise.all([nats?.stop(), redisService?.stop()]);
  });

  async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await sleep(50);
    }
  }

  it('a worker with the workers\' credentials joins the fleet, is listed with its host, and serves', async () => {
    const worker = await startWorker(nats.url, dir, { models: [], scripted: { dir: join(dir, 'scripts') } }, asWorker());
    workers.push(worker);
    await waitFor(() => registry.workers().some((w) => w.workerId === worker.workerId));
    const listed = describeWorker(registry.workers().find((w) => w.workerId === worker.workerId)!);
    expect(listed).toMatchObject({ workerId: worker.workerId, host: expect.any(String), status: 'ready', inFlight: 0 });
    expect(listed.models.map((m) => m.id)).toContain('scripted/hello');

    let text = '';
    for await (const chunk of fleet.generate({ requestId: randomBytes(8).toString('hex'), model: 'scripted/hello', messages: [{ role: 'user', content: 'hi' }] }, { timeoutMs: 10_000 })) {
      if (chunk.type === 'delta') text += chunk.text;
    }
    expect(text).toBe('served over an authenticated NATS');
  });

  it('a worker with a wrong password, or none, is refused by NATS and never appears in the fleet', async () => {
    const before = registry.workers().length;
    await expect(startWorker(nats.url, dir, { models: [] }, asWorker('not-the-password'))).rejects.toThrow(/Authorization Violation/i);
    await expect(startWorker(nats.url, dir, { models: [] })).rejects.toThrow(/Authorization Violation/i);
    await sleep(500);
    expect(registry.workers()).toHaveLength(before);
  });

  it('the workers\' user can neither read replies nor reach the tools\' or sandbox\'s subjects', async () => {
    const worker = await connect({ ...natsConnectOptions({ url: nats.url, user: 'inference', password: passwords.workers }), name: 'rogue-worker' });
    const central = await connect({ ...natsConnectOptions(services()), name: 'tools-stand-in' });
    try {
      const refused = (subject: string) =>
        new Promise<string>((resolve) => {
          worker.subscribe(subject, { callback: (error) => resolve(error ? error.message : 'delivered') });
        });
      const [inboxes, tools] = await Promise.all([refused('_INBOX.>'), refused(ToolsSubjects.call), worker.flush()]);
      expect(inboxes).toMatch(/Permissions Violation/i);
      expect(tools).toMatch(/Permissions Violation/i);

      // A tools worker stand-in hears the central services' requests, never one from a worker.
      const heard: string[] = [];
      central.subscribe(ToolsSubjects.call, { callback: (_error, message) => heard.push(new TextDecoder().decode(message.data)) });
      await central.flush();
      worker.publish(ToolsSubjects.call, new TextEncoder().encode('from a worker'));
      await worker.flush();
      central.publish(ToolsSubjects.call, new TextEncoder().encode('from the gateway'));
      await central.flush();
      await waitFor(() => heard.length > 0);
      await sleep(200);
      expect(heard).toEqual(['from the gateway']);
    } finally {
      await closeQuietly(worker);
      await closeQuietly(central);
    }
  });
});

async function closeQuietly(connection: NatsConnection): Promise<void> {
  await connection.close().catch(() => undefined);
}
