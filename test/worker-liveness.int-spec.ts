import { randomBytes } from 'node:crypto';
import { Routes, type AppError, type GenerateChunk, type WorkerHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { NatsEventBus } from '@weft/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetRegistry, heartbeatTtlMs, type FleetStore } from '../apps/gateway/src/fleet/fleet-registry';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../apps/inference/src/testing/worker-harness';
import { startNats, type StartedService } from './support/containers';

const log = createLogger('worker-liveness-test', 'silent');
/** The registry's Redis mirror is not what this test is about. */
const noMirror: FleetStore = { save: async () => undefined, remove: async () => undefined, load: async () => [] };

/** Keeps the main loop busy, as a long synchronous step of a request would. */
function blockLoop(ms: number): { from: number; to: number } {
  const from = Date.now();
  while (Date.now() < from + ms) {
    // busy on purpose
  }
  return { from, to: Date.now() };
}

describe('a worker whose main loop is busy', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;
  let bus: NatsEventBus;
  let registry: FleetRegistry;

  beforeAll(async () => {
    dir = await makeTempDir('weft-liveness-');
    await makeTestModel(dir);
    nats = await startNats();
    bus = await NatsEventBus.connect(nats.url, 'gateway-liveness', log);
    registry = new FleetRegistry(noMirror, log);
    bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => registry.apply(hb));
    await bus.flush();
    client = await connectClient(nats.url);
    worker = await startWorker(nats.url, dir, { models: [{ id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 2048, threads: 1, gpuLayers: 0, sequences: 1 }] });
    await client.collect({ model: 'tiny', messages: [{ role: 'user', content: 'warm up' }], maxTokens: 1 });
  });

  afterAll(async () => {
    await worker?.close();
    registry?.close();
    await client?.close();
    await bus?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  /** Resolves with the first heartbeat of the worker that `test` accepts. */
  function beatWhere(test: (hb: WorkerHeartbeat) => boolean): Promise<WorkerHeartbeat> {
    return new Promise((resolve) => {
      const sub = bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => {
        if (hb.workerId !== worker.workerId || !test(hb)) return;
        sub.unsubscribe();
        resolve(hb);
      });
    });
  }

  it('keeps beating while its loop is blocked for three times the TTL mid-generation, is not dropped, and the generation completes', async () => {
    const first = await beatWhere(() => true);
    const ttlMs = heartbeatTtlMs(first);
    const losses: AppError[] = [];
    registry.onLost(worker.workerId, (error) => losses.push(error));
    const beats: WorkerHeartbeat[] = [];
    bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => hb.workerId === worker.workerId && beats.push(hb));

    let streaming!: () => void;
    const started = new Promise<void>((resolve) => (streaming = resolve));
    const generation = client.collect(
      { model: 'tiny', requestId: randomBytes(8).toString('hex'), messages: [{ role: 'user', content: 'a long answer' }], maxTokens: 1500 },
      (chunk: GenerateChunk) => chunk.type === 'delta' && streaming(),
    );
    await started;
    await beatWhere((hb) => hb.inFlight === 1);

    const blocked = blockLoop(3 * ttlMs);
    // The beats sent while the loop was blocked were waiting in the socket: read past them.
    await beatWhere((hb) => Date.parse(hb.sentAt) > blocked.to);

    const duringBlock = beats.filter((hb) => Date.parse(hb.sentAt) > blocked.from && Date.parse(hb.sentAt) < blocked.to);
    expect(duringBlock.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...duringBlock.map((hb) => hb.stalledMs ?? 0))).toBeGreaterThan(0);
    expect(duringBlock.every((hb) => hb.inFlight === 1)).toBe(true);
    expect(losses).toEqual([]);
    expect(registry.get(worker.workerId)).toBeDefined();

    const { result } = await generation;
    expect(result.usage.completionTokens).toBe(1500);
    expect(losses).toEqual([]);
  });
});
