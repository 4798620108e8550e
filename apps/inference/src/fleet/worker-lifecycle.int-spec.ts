import { createServer } from 'node:net';
import { ErrorCode, Routes, type WorkerHeartbeat } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { drainAndClose } from '../app';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client } from '../testing/worker-harness';

const tiny = { provider: 'llama', path: 'tiny.gguf', contextSize: 2048, threads: 1, gpuLayers: 0 };

describe('worker heartbeat, metrics, drain and model sources', () => {
  let dir: string;
  let nats: StartedService;
  let client: Client;
  const heartbeats: WorkerHeartbeat[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('weft-lifecycle-');
    await makeTestModel(dir);
    nats = await startNats();
    client = await connectClient(nats.url);
    client.bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => heartbeats.push(hb));
    await client.bus.flush();
  });

  afterAll(async () => {
    await client?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  /** The next heartbeat of `workerId` that satisfies `test`. */
  function nextBeat(workerId: string, test: (hb: WorkerHeartbeat) => boolean = () => true): Promise<WorkerHeartbeat> {
    return new Promise((resolve) => {
      const sub = client.bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => {
        if (hb.workerId !== workerId || !test(hb)) return;
        sub.unsubscribe();
        resolve(hb);
      });
    });
  }

  it('announces its models and free sequences on the heartbeat subject', async () => {
    const worker = await startWorker(nats.url, dir, { models: [{ ...tiny, id: 'tiny', sequences: 3, maxQueue: 5, roles: ['junior'] }] });
    try {
      const beat = await nextBeat(worker.workerId);
      expect(beat).toMatchObject({ status: 'ready', intervalMs: 200, inFlight: 0 });
      expect(beat.models).toEqual([
        { id: 'tiny', provider: 'llama', contextSize: 2048, sequences: 3, roles: ['junior'], loaded: false, freeSequences: 3, queued: 0, maxQueue: 5, cachedSessions: [], state: 'unloaded', pinned: false },
      ]);
    } finally {
      await worker.close();
    }
  });

  it('announces a model load at once, not at its next beat', async () => {
    // A beat every ten minutes: a beat that says `loaded` can only be the announcement of the load.
    const worker = await startWorker(nats.url, dir, { models: [{ ...tiny, id: 'tiny', sequences: 1 }] }, { HEARTBEAT_INTERVAL_MS: '600000' });
    try {
      const loaded = nextBeat(worker.workerId, (hb) => hb.models.some((model) => model.id === 'tiny' && model.state === 'loaded'));
      await client.collect({ model: 'tiny', sessionId: 'announce', messages: [{ role: 'user', content: 'hello' }], maxTokens: 2 });
      expect((await loaded).models).toEqual([expect.objectContaining({ id: 'tiny', state: 'loaded', loaded: true })]);
    } finally {
      await worker.close();
    }
  });

  it('serves Prometheus metrics: tokens, cache, latency histograms, queue, busy rejections, load time', async () => {
    const port = await freePort();
    const worker = await startWorker(nats.url, dir, { models: [{ ...tiny, id: 'tiny', sequences: 1, maxQueue: 0 }] }, { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' });
    try {
      const messages = [{ role: 'user' as const, content: 'hello there' }];
      const first = await client.collect({ model: 'tiny', sessionId: 'm', messages, maxTokens: 6 });
      await client.collect({ model: 'tiny', sessionId: 'm', messages: [...messages, { role: 'assistant', content: first.result.text }, { role: 'user', content: 'more' }], maxTokens: 6 });
      const long = client.codeOf({ model: 'tiny', messages, maxTokens: 300 });
      const busy = await client.codeOf({ model: 'tiny', messages, maxTokens: 3 });
      expect(busy).toBe(ErrorCode.InferenceBusy);
      await long;

      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*model="tiny"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(value('weft_inference_tokens_generated_total')).toBe(6 + 6 + 300);
      expect(value('weft_inference_tokens_cached_total')).toBeGreaterThan(0);
      expect(value('weft_inference_tokens_evaluated_total')).toBeLessThan(value('weft_inference_prompt_tokens_total'));
      expect(value('weft_inference_busy_rejections_total')).toBe(1);
      expect(value('weft_inference_time_to_first_token_seconds_count')).toBe(3);
      expect(value('weft_inference_inter_token_seconds_count')).toBeGreaterThan(100);
      expect(value('weft_inference_queue_depth')).toBe(0);
      expect(value('weft_inference_free_sequences')).toBe(1);
      expect(value('weft_inference_model_load_seconds')).toBeGreaterThan(0);
      expect(text).toMatch(/worker="[^"]+"/);
    } finally {
      await worker.close();
    }
  });

  it('drains on shutdown: announces draining, refuses new work as BUSY, finishes what runs, then says stopped', async () => {
    const worker = await startWorker(nats.url, dir, { models: [{ ...tiny, id: 'tiny', sequences: 2 }] });
    await client.collect({ model: 'tiny', messages: [{ role: 'user', content: 'load' }], maxTokens: 1 });
    // A beat taken while the warm-up request was still counted says inFlight 1 as well, and
    // draining on it could refuse the long request before it arrives: wait for the count to fall.
    await nextBeat(worker.workerId, (hb) => hb.inFlight === 0);
    const running = client.collect({ model: 'tiny', messages: [{ role: 'user', content: 'a long one' }], maxTokens: 1500 });
    await nextBeat(worker.workerId, (hb) => hb.inFlight === 1);
    const draining = nextBeat(worker.workerId, (hb) => hb.status === 'draining');
    const stopped = nextBeat(worker.workerId, (hb) => hb.status === 'stopped');
    const closing = drainAndClose(worker.app);
    await draining;
    expect(await client.codeOf({ model: 'tiny', messages: [{ role: 'user', content: 'too late' }], maxTokens: 2 })).toBe(ErrorCode.InferenceBusy);
    const finished = await running;
    expect(finished.result.usage.completionTokens).toBe(1500);
    await closing;
    await stopped;
  });

  it('fails a model whose download source is unreachable with MODEL_DOWNLOAD_FAILED, and keeps serving', async () => {
    const closedPort = await freePort();
    const worker = await startWorker(nats.url, dir, {
      models: [
        { ...tiny, id: 'tiny' },
        { id: 'from-url', provider: 'llama', source: `http://127.0.0.1:${closedPort}/model.gguf`, gpuLayers: 0 },
        { id: 'from-hf', provider: 'llama', source: 'hf:weft-test/does-not-exist:Q4_K_M', gpuLayers: 0 },
      ],
    });
    try {
      for (const model of ['from-url', 'from-hf']) {
        const error = await client.collect({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: ErrorCode.ModelDownloadFailed, retryable: true, message: expect.stringMatching(/could not be downloaded/) });
      }
      const { result } = await client.collect({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], maxTokens: 2 });
      expect(result.usage.completionTokens).toBe(2);
    } finally {
      await worker.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
