import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Routes, type AppError, type WorkerHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { NatsEventBus } from '@weft/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { FleetRegistry, type FleetStore } from './fleet-registry';

const log = createLogger('fleet-liveness-test', 'silent');
const root = resolve(__dirname, '../../../..');

/** The registry's Redis mirror is not what these tests are about. */
const noMirror: FleetStore = { save: async () => undefined, remove: async () => undefined, load: async () => [] };

/**
 * A worker's heartbeats from another process, so that they keep arriving in this process's
 * socket while its loop is blocked (as a gateway's is by a large request).
 */
async function beatFromAnotherProcess(natsUrl: string, workerId: string, intervalMs: number): Promise<ChildProcess> {
  const now = new Date().toISOString();
  const heartbeat: WorkerHeartbeat = { workerId, status: 'ready', intervalMs, startedAt: now, sentAt: now, inFlight: 1, models: [] };
  const script = `
    const { connect } = require('nats');
    (async () => {
      const nc = await connect({ servers: process.env.NATS_URL });
      const heartbeat = JSON.parse(process.env.HEARTBEAT);
      const beat = () => nc.publish(process.env.SUBJECT, JSON.stringify({ ...heartbeat, sentAt: new Date().toISOString() }));
      beat();
      setInterval(beat, heartbeat.intervalMs);
      process.stdout.write('beating\\n');
    })();`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: root,
    env: { ...process.env, NATS_URL: natsUrl, SUBJECT: Routes.inferenceWorkerAnnounced.subject, HEARTBEAT: JSON.stringify(heartbeat) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout!, 'data');
  return child;
}

/** Keeps this process's loop busy, as a synchronous parse of a huge request does. */
function blockLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy on purpose
  }
}

describe('fleet liveness when the gateway itself stalls', () => {
  let nats: StartedService;
  let bus: NatsEventBus;
  let registry: FleetRegistry;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    nats = await startNats();
    bus = await NatsEventBus.connect(nats.url, 'gateway-liveness', log);
    registry = new FleetRegistry(noMirror, log);
    bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => registry.apply(hb));
    await bus.flush();
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    registry?.close();
    await bus?.close();
    await nats?.stop();
  });

  /** Resolves with the next heartbeat of `workerId` that this registry applies. */
  function nextBeat(workerId: string): Promise<WorkerHeartbeat> {
    return new Promise((resolve) => {
      const sub = bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => {
        if (hb.workerId !== workerId) return;
        sub.unsubscribe();
        resolve(hb);
      });
    });
  }

  it('keeps a worker whose heartbeats waited in the socket while this gateway was blocked for three times the TTL, and drops it within the TTL once it is killed', async () => {
    const workerId = `stalled-${randomBytes(2).toString('hex')}`;
    const joined = nextBeat(workerId);
    const child = await beatFromAnotherProcess(nats.url, workerId, 100);
    children.push(child);
    await joined;
    const ttlMs = 1000; // three beats of 100 ms, raised to the registry's 1 s floor
    const losses: AppError[] = [];
    registry.onLost(workerId, (error) => losses.push(error));

    blockLoop(3 * ttlMs);
    await nextBeat(workerId);
    expect(losses).toEqual([]);
    expect(registry.get(workerId)).toBeDefined();

    const lost = new Promise<number>((resolve) => registry.onLost(workerId, () => resolve(performance.now())));
    const killedAt = performance.now();
    child.kill('SIGKILL');
    // Within the TTL plus one beat of grace, and the slack a loaded 2-core machine needs.
    expect((await lost) - killedAt).toBeLessThan(ttlMs + 100 + 1500);
    expect(registry.get(workerId)).toBeUndefined();
  });
});
