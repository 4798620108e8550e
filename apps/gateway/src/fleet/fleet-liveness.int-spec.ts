import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Routes, inferenceWorkerAliveSubject, type AppError, type WorkerHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { NatsEventBus } from '@weft/messaging';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { FleetRegistry, type FleetStore } from './fleet-registry';
import { natsWorkerProbe } from './worker-probe';

const log = createLogger('fleet-liveness-test', 'silent');
const root = resolve(__dirname, '../../../..');

/** The registry's Redis mirror is not what these tests are about. */
const noMirror: FleetStore = { save: async () => undefined, remove: async () => undefined, load: async () => [] };

/**
 * A worker's heartbeats from another process, so that they keep arriving in this process's
 * socket while its loop is blocked (as a gateway's is by a large request).
 */
async function beatFromAnotherProcess(natsUrl: string, workerId: string, intervalMs: number, answerProbes = false): Promise<ChildProcess> {
  const now = new Date().toISOString();
  const heartbeat: WorkerHeartbeat = { workerId, status: 'ready', intervalMs, startedAt: now, sentAt: now, inFlight: 1, models: [] };
  const script = `
    const { connect } = require('nats');
    (async () => {
      const nc = await connect({ servers: process.env.NATS_URL });
      const heartbeat = JSON.parse(process.env.HEARTBEAT);
      const beat = () => nc.publish(process.env.SUBJECT, JSON.stringify({ ...heartbeat, sentAt: new Date().toISOString() }));
      beat();
      const beating = setInterval(beat, heartbeat.intervalMs);
      // "silence" on stdin: no more beats, as when they queue behind everything on a starved box.
      process.stdin.on('data', () => clearInterval(beating));
      if (process.env.PROBE_SUBJECT) nc.subscribe(process.env.PROBE_SUBJECT, { callback: (_e, m) => m.respond(JSON.stringify({ alive: true, stalledMs: 0 })) });
      await nc.flush();
      process.stdout.write('beating\\n');
    })();`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: root,
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      SUBJECT: Routes.inferenceWorkerAnnounced.subject,
      HEARTBEAT: JSON.stringify(heartbeat),
      ...(answerProbes ? { PROBE_SUBJECT: inferenceWorkerAliveSubject(workerId) } : {}),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
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

/**
 * Silence is not death on a starved box: the soak (`bench:fairness`, load average 30 on two
 * cores) lost generations to a worker dropped while it ran them. With a probe, the gateway asks
 * a silent worker before it drops it.
 */
describe('fleet liveness with a probe: silent is not dead', () => {
  let nats: StartedService;
  let bus: NatsEventBus;
  let probeConnection: NatsConnection;
  let registry: FleetRegistry;
  const maxSilenceMs = 3_000;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    nats = await startNats();
    bus = await NatsEventBus.connect(nats.url, 'gateway-probe', log);
    probeConnection = await connect({ servers: nats.url });
    registry = new FleetRegistry(noMirror, log, undefined, { probe: natsWorkerProbe(probeConnection, 500), maxSilenceMs });
    bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => registry.apply(hb));
    await bus.flush();
  });

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    registry?.close();
    await probeConnection?.close();
    await bus?.close();
    await nats?.stop();
  });

  async function joinedWorker(workerId: string): Promise<ChildProcess> {
    const joined = new Promise<void>((resolve) => {
      const sub = bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => {
        if (hb.workerId !== workerId) return;
        sub.unsubscribe();
        resolve();
      });
    });
    const child = await beatFromAnotherProcess(nats.url, workerId, 100, true);
    children.push(child);
    await joined;
    return child;
  }

  it('keeps a worker whose beats stopped while it answers probes, then drops it once it answers nothing either', async () => {
    const workerId = `starved-${randomBytes(2).toString('hex')}`;
    const child = await joinedWorker(workerId);
    const losses: AppError[] = [];
    registry.onLost(workerId, (error) => losses.push(error));
    child.stdin!.write('silence\n');
    const silencedAt = performance.now();
    // Twice the TTL (1 s) without a beat: asked, it answered, so its generations go on.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(losses).toEqual([]);
    expect(registry.get(workerId)).toBeDefined();

    // Frozen: its connection stays open (NATS keeps its subscription) but nothing answers.
    child.kill('SIGSTOP');
    const lost = new Promise<number>((resolve) => registry.onLost(workerId, () => resolve(performance.now())));
    const droppedAfter = (await lost) - silencedAt;
    expect(droppedAfter).toBeGreaterThanOrEqual(maxSilenceMs);
    expect(losses[0]?.message).toContain('answered no probe');
  });

  it('drops a killed worker within the TTL: no process answers its probe', async () => {
    const workerId = `killed-${randomBytes(2).toString('hex')}`;
    const child = await joinedWorker(workerId);
    const lost = new Promise<{ at: number; error: AppError }>((resolve) => registry.onLost(workerId, (error) => resolve({ at: performance.now(), error })));
    const killedAt = performance.now();
    child.kill('SIGKILL');
    const { at, error } = await lost;
    // The TTL (1 s) plus one beat of grace, well before maxSilenceMs: death is not waited out.
    expect(at - killedAt).toBeLessThan(maxSilenceMs);
    expect(error.message).toContain('no process answers for it');
  });
});
