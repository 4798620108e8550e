import { randomUUID } from 'node:crypto';
import type { GenerateChunk } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';
import { InferenceService } from './inference.service';

describe('a retried request id on the worker that runs it', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;

  beforeAll(async () => {
    dir = await makeTempDir('weft-retry-');
    await makeTestModel(dir);
    nats = await startNats();
    // One sequence and no queue: a second, separate generation would be refused as BUSY.
    worker = await startWorker(nats.url, dir, { models: [{ id: 'single', provider: 'llama', path: 'tiny.gguf', contextSize: 2048, threads: 1, gpuLayers: 0, sequences: 1, maxQueue: 0 }] });
    client = await connectClient(nats.url);
    await client.collect({ model: 'single', messages: [{ role: 'user', content: 'warm up' }], maxTokens: 1 });
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  it('joins the running generation: one generation, both callers get its whole text and the same result, nothing cancelled', async () => {
    const request = { model: 'single', requestId: randomUUID(), messages: [{ role: 'user' as const, content: 'tell a long story' }], maxTokens: 600 };
    let firstDelta!: () => void;
    const streaming = new Promise<void>((resolve) => (firstDelta = resolve));
    const first = client.collect(request, (chunk: GenerateChunk) => chunk.type === 'delta' && firstDelta());
    await streaming;
    const retry = await client.collect(request);
    const original = await first;
    expect(retry.result).toEqual(original.result);
    expect(retry.result.finishReason).toBe('length');
    expect(retry.result.usage.completionTokens).toBe(600);
    expect(retry.deltas.join('')).toBe(original.deltas.join(''));
    expect(worker.app.get(InferenceService).running).toBe(0);
  });

  it('starts afresh once the first run has ended', async () => {
    const request = { model: 'single', requestId: randomUUID(), messages: [{ role: 'user' as const, content: 'again' }], maxTokens: 4 };
    const first = await client.collect(request);
    const second = await client.collect(request);
    expect(second.result.usage.completionTokens).toBe(4);
    expect(second.result.timings.totalMs).not.toBe(first.result.timings.totalMs);
  });
});
