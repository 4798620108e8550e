import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, ErrorCode, Routes, type GenerateChunk, type GenerateRequest, type WorkerHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient, NatsEventBus, type RpcClient } from '@weft/messaging';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNats, startRedis, type StartedService } from '../../../../test/support/containers';
import { rpcInferencePort } from '../agent/rpc-ports';
import { FakeFleetWorker } from './fake-fleet-worker';
import { FleetEmbeddings } from './fleet-embeddings.client';
import { FleetInferenceClient } from './fleet-inference.client';
import { FleetKeys } from './fleet-keys';
import { FleetRegistry } from './fleet-registry';
import { FleetRouter } from './fleet-router';
import { RedisFleetStore } from './redis-fleet.store';

const log = createLogger('fleet-test', 'silent');

describe('inference fleet routing over NATS and Redis', () => {
  let nats: StartedService;
  let redisService: StartedService;
  let redis: Redis;
  let rpc: { client: RpcClient; close: () => Promise<void> };
  let bus: NatsEventBus;
  let keys: FleetKeys;
  let store: RedisFleetStore;
  let registry: FleetRegistry;
  let fleet: FleetInferenceClient;
  let embeddings: FleetEmbeddings;
  let workers: FakeFleetWorker[] = [];
  const cancels: string[] = [];

  beforeAll(async () => {
    [nats, redisService] = await Promise.all([startNats(), startRedis()]);
    redis = new Redis(redisService.url);
    rpc = await connectRpcClient(nats.url, 10_000);
    bus = await NatsEventBus.connect(nats.url, 'gateway-fleet', log);
    keys = new FleetKeys(`test-${randomBytes(4).toString('hex')}:`);
    store = new RedisFleetStore(redis, keys);
    registry = new FleetRegistry(store, log);
    bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => registry.apply(hb));
    bus.subscribe(Routes.inferenceCancel, ({ requestId }) => cancels.push(requestId));
    await bus.flush();
    fleet = new FleetInferenceClient(rpc.client, bus, registry, new FleetRouter(registry, store, log), store, log);
    embeddings = new FleetEmbeddings(rpc.client, bus, registry, new FleetRouter(registry, store, log), log);
  });

  afterEach(async () => {
    for (const worker of workers) await worker.close().catch(() => undefined);
    workers = [];
    await waitFor(() => registry.workers().length === 0);
  });

  afterAll(async () => {
    registry?.close();
    await bus?.close();
    await rpc?.close();
    redis?.disconnect();
    await Promise.all([nats?.stop(), redisService?.stop()]);
  });

  async function start(id: string, options?: Parameters<typeof FakeFleetWorker.start>[2]) {
    const worker = await FakeFleetWorker.start(nats.url, `${id}-${randomBytes(2).toString('hex')}`, options);
    workers.push(worker);
    if (options?.announce !== false) await waitFor(() => registry.get(worker.workerId) !== undefined);
    return worker;
  }

  async function run(request: Partial<GenerateRequest> = {}, signal?: AbortSignal) {
    const chunks: GenerateChunk[] = [];
    for await (const chunk of fleet.generate({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], ...request }, { timeoutMs: 10_000, signal })) {
      chunks.push(chunk);
    }
    const done = chunks.at(-1);
    return { chunks, result: done?.type === 'done' ? done.result : undefined };
  }

  it('records the serving worker as the session affinity and routes the follow-up there', async () => {
    // Beats a second apart (dropped after three missed): a loaded machine's pause of a second
    // must not drop the serving worker mid-test, which would rightly send the session elsewhere.
    const a = await start('a', { intervalMs: 1000 });
    const b = await start('b', { intervalMs: 1000 });
    const first = await run({ sessionId: 'sticky' });
    const served = first.result?.workerId;
    expect([a.workerId, b.workerId]).toContain(served);
    expect(await redis.get(keys.affinity('sticky'))).toBe(served);
    for (let i = 0; i < 5; i++) expect((await run({ sessionId: 'sticky' })).result?.workerId).toBe(served);
    const other = served === a.workerId ? b : a;
    expect(other.requests.filter((r) => r.sessionId === 'sticky')).toHaveLength(0);
  });

  it('skips a worker that answers BUSY and gets the turn done by another', async () => {
    const busy = await start('busy');
    const free = await start('free');
    busy.behaviour = { busy: true };
    await redis.set(keys.affinity('wants-busy'), busy.workerId);
    const { result } = await run({ sessionId: 'wants-busy' });
    expect(result?.workerId).toBe(free.workerId);
    expect(busy.requests).toHaveLength(1);
    expect(await redis.get(keys.affinity('wants-busy'))).toBe(free.workerId);
  });

  it("waits, through the agent's inference port, while the only worker is busy, and streams once it takes the request", async () => {
    const only = await start('only');
    only.behaviour = { busy: true };
    const port = rpcInferencePort(rpc.client, 10_000, () => undefined, fleet, 30_000);
    setTimeout(() => (only.behaviour = {}), 1500);
    const chunks: GenerateChunk[] = [];
    for await (const chunk of port.generate({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }] })) chunks.push(chunk);
    expect(chunks.at(-1)).toMatchObject({ type: 'done', result: { workerId: only.workerId } });
    // Asked again with pauses, not once per millisecond.
    expect(only.requests.length).toBeGreaterThan(1);
    expect(only.requests.length).toBeLessThan(15);
  });

  it("waits, through the agent's inference port, while no worker is up, and streams once a new one starts (a worker's node died)", async () => {
    expect(registry.workers()).toEqual([]);
    const port = rpcInferencePort(rpc.client, 10_000, () => undefined, fleet, 30_000);
    const chunks: GenerateChunk[] = [];
    const generation = (async () => {
      for await (const chunk of port.generate({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }] })) chunks.push(chunk);
    })();
    // Its replacement comes up after the generation has found no responders at least once.
    await sleep(1500);
    expect(chunks).toEqual([]);
    const replacement = await start('replacement');
    await generation;
    expect(chunks.at(-1)).toMatchObject({ type: 'done', result: { workerId: replacement.workerId } });
  });

  it('falls back to the queue group when no worker has announced itself', async () => {
    const silent = await start('silent', { announce: false });
    expect(registry.workers()).toEqual([]);
    const { result } = await run({ sessionId: 'no-fleet' });
    expect(result?.workerId).toBe(silent.workerId);
  });

  it('drops a worker that stops heartbeating, and fails its in-flight stream with WORKER_LOST instead of hanging', async () => {
    const doomed = await start('doomed');
    doomed.behaviour = { hang: true };
    const started = performance.now();
    const outcome = run({ sessionId: 'doomed-session' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitFor(() => doomed.requests.length === 1);
    await doomed.kill();
    const error = await outcome;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.WorkerLost);
    // Within a few heartbeat intervals (1 s floor), nowhere near the 10 s stream timeout.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(registry.get(doomed.workerId)).toBeUndefined();
    expect(await redis.zscore(keys.workers(), doomed.workerId)).toBeNull();
    workers = workers.filter((w) => w !== doomed);
  });

  describe('a generation whose worker dies mid-stream', () => {
    const reply = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over.'];
    let resuming: FleetInferenceClient;
    beforeAll(() => {
      resuming = new FleetInferenceClient(rpc.client, bus, registry, new FleetRouter(registry, store, log), store, log, 20_000);
    });

    function follow(request: Partial<GenerateRequest>) {
      const chunks: GenerateChunk[] = [];
      const resumed: { streamedChars: number; pausedMs: number }[] = [];
      const body = { model: 'tiny', messages: [{ role: 'user' as const, content: 'hi' }], temperature: 0, seed: 7, ...request };
      const done = (async () => {
        for await (const chunk of resuming.generate(body, { timeoutMs: 10_000, onResumed: (info) => resumed.push(info) })) chunks.push(chunk);
      })();
      const deltas = () => chunks.flatMap((c) => (c.type === 'delta' ? [c.text] : []));
      return { chunks, resumed, done, deltas };
    }

    it('goes on on another worker from the text already streamed, with each delta once and the same sampling', async () => {
      const first = await start('first');
      const second = await start('second');
      first.behaviour = { reply, stallAfter: 3 };
      second.behaviour = { reply };
      await redis.set(keys.affinity('moving'), first.workerId);
      const requestId = randomUUID();
      const generation = follow({ sessionId: 'moving', requestId });
      await waitFor(() => generation.deltas().length === 3);
      await first.kill();
      workers = workers.filter((w) => w !== first);
      await generation.done;

      expect(generation.deltas()).toEqual(reply);
      expect(generation.chunks.at(-1)).toMatchObject({ type: 'done', result: { text: reply.join(''), workerId: second.workerId } });
      expect(generation.resumed).toEqual([{ streamedChars: 'The quick brown '.length, pausedMs: expect.any(Number) }]);
      const taken = second.requests[0];
      expect(taken).toMatchObject({ continueFrom: 'The quick brown ', temperature: 0, seed: 7, sessionId: 'moving' });
      expect(taken?.requestId).not.toBe(requestId);
      // A worker only silent, not dead, would stop the lost run.
      await waitFor(() => cancels.includes(requestId));
      expect(await redis.get(keys.affinity('moving'))).toBe(second.workerId);
    });

    it('goes on on the worker that restarted within the wait when it was the only one', async () => {
      const only = await start('only-one');
      only.behaviour = { reply, stallAfter: 2 };
      const generation = follow({});
      await waitFor(() => generation.deltas().length === 2);
      await only.kill();
      workers = workers.filter((w) => w !== only);
      // The restarted process comes up after the generation found no worker at least once.
      await sleep(600);
      expect(generation.resumed).toEqual([]);
      const restarted = await start('restarted');
      restarted.behaviour = { reply };
      await generation.done;

      expect(generation.deltas()).toEqual(reply);
      expect(generation.chunks.at(-1)).toMatchObject({ type: 'done', result: { workerId: restarted.workerId } });
      expect(generation.resumed).toHaveLength(1);
      expect(restarted.requests[0]?.continueFrom).toBe('The quick ');
    });

    it('is not continued when text streamed under a JSON Schema: the grammar cannot pick up mid-value', async () => {
      const doomed = await start('json-doomed');
      const other = await start('json-other');
      doomed.behaviour = { reply: ['{"a":', '1}'], stallAfter: 1 };
      other.behaviour = { reply: ['{"a":', '1}'] };
      await redis.set(keys.affinity('json'), doomed.workerId);
      const generation = follow({ sessionId: 'json', jsonSchema: { type: 'object' } });
      const outcome = generation.done.then(() => undefined, (error: unknown) => error);
      await waitFor(() => generation.deltas().length === 1);
      await doomed.kill();
      workers = workers.filter((w) => w !== doomed);
      expect(await outcome).toMatchObject({ code: ErrorCode.WorkerLost });
      expect(other.requests).toHaveLength(0);
    });
  });

  it('tells the worker to stop when the caller gives up mid-stream', async () => {
    const worker = await start('slow');
    worker.behaviour = { hang: true };
    const abort = new AbortController();
    const requestId = randomUUID();
    const running = run({ requestId }, abort.signal);
    await waitFor(() => worker.requests.length === 1);
    abort.abort();
    await running;
    await waitFor(() => cancels.includes(requestId) && worker.cancelled.includes(requestId));
  });

  describe('embeddings', () => {
    const embed = (signal?: AbortSignal, requestId = randomUUID()) =>
      embeddings.embed({ model: 'tiny', input: ['a', 'b'], requestId }, { timeoutMs: 10_000, signal }).then(
        (result) => result,
        (error: unknown) => error,
      );

    it('skips a worker that answers BUSY and gets them from another', async () => {
      const busy = await start('embed-busy');
      busy.behaviour = { busy: true };
      const free = await start('embed-free');
      expect(await embed()).toMatchObject({ embeddings: [[1], [1]], workerId: free.workerId });
    });

    it('fails them with WORKER_LOST when their worker stops heartbeating, instead of waiting for the timeout', async () => {
      const doomed = await start('embed-doomed');
      doomed.behaviour = { hang: true };
      const outcome = embed();
      await waitFor(() => doomed.embedRequests.length === 1);
      await doomed.kill();
      expect(await outcome).toMatchObject({ code: ErrorCode.WorkerLost });
      workers = workers.filter((w) => w !== doomed);
    });

    it('tells the worker to stop when the caller gives up', async () => {
      const worker = await start('embed-slow');
      worker.behaviour = { hang: true };
      const abort = new AbortController();
      const requestId = randomUUID();
      const outcome = embed(abort.signal, requestId);
      await waitFor(() => worker.embedRequests.length === 1);
      abort.abort();
      expect(await outcome).toMatchObject({ name: 'AbortError' });
      await waitFor(() => cancels.includes(requestId) && worker.cancelled.includes(requestId));
    });
  });

  it('mirrors the fleet in Redis with an expiry, for replicas that have not heard a heartbeat yet', async () => {
    const worker = await start('mirrored', { models: ['tiny', 'big'] });
    const fresh = new FleetRegistry(store, log);
    const snapshot: WorkerHeartbeat[] = await fresh.snapshot();
    expect(snapshot.map((w) => w.workerId)).toContain(worker.workerId);
    expect(snapshot.find((w) => w.workerId === worker.workerId)?.models.map((m) => m.id)).toEqual(['tiny', 'big']);
    expect(await redis.pttl(keys.worker(worker.workerId))).toBeGreaterThan(0);
    fresh.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}
