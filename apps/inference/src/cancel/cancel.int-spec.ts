import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, Routes, inferenceWorkerGenerateSubject } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';

/** Cancelled generations must end well inside this (a full one takes many seconds). */
const PROMPT_MS = 1_000;

describe('cancelling a generation', () => {
  let dir: string;
  let nats: StartedService;
  let workers: StartedWorker[] = [];
  let client: Client;

  beforeAll(async () => {
    dir = await makeTempDir('weft-cancel-');
    await makeTestModel(dir, 'long.gguf', ['--context', '8192']);
    nats = await startNats();
    const registry = { models: [{ id: 'long', provider: 'llama', path: 'long.gguf', contextSize: 8192, threads: 1, gpuLayers: 0, sequences: 1 }] };
    // Two replicas: the cancel reaches both, only the one running the request acts on it.
    workers = [await startWorker(nats.url, dir, registry), await startWorker(nats.url, dir, registry)];
    client = await connectClient(nats.url);
  });

  afterAll(async () => {
    await client?.close();
    for (const worker of workers) await worker.close();
    await nats?.stop();
    await removeDir(dir);
  });

  it('stops a long generation promptly and frees its sequence for the next request', async () => {
    const requestId = randomUUID();
    let deltas = 0;
    let cancelledAt = 0;
    const outcome = client
      .collect({ model: 'long', requestId, sessionId: 'cancel-me', messages: [{ role: 'user', content: 'Go on forever.' }], maxTokens: 8000 }, (chunk) => {
        if (chunk.type !== 'delta') return;
        deltas++;
        if (deltas === 5) {
          cancelledAt = performance.now();
          client.bus.publish(Routes.inferenceCancel, { requestId });
        }
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const error = await outcome;
    const tookMs = performance.now() - cancelledAt;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.GenerationCancelled);
    expect(tookMs).toBeLessThan(PROMPT_MS);
    expect(deltas).toBeLessThan(1000);

    // Each worker has one sequence; asked on its own subject, each must have it free at once
    // (the cancelled one would otherwise hold it for the rest of an 8000-token reply).
    for (const worker of workers) {
      const route = { ...Routes.inferenceGenerate, subject: inferenceWorkerGenerateSubject(worker.workerId) };
      const chunks = [];
      for await (const chunk of client.rpc.stream(route, { model: 'long', messages: [{ role: 'user', content: 'next' }], maxTokens: 4 })) chunks.push(chunk);
      const done = chunks.at(-1);
      expect(done?.type === 'done' && done.result).toMatchObject({ workerId: worker.workerId, usage: { completionTokens: 4 } });
      expect(done?.type === 'done' && (done.result.timings.queuedMs ?? 0)).toBeLessThan(50);
    }
  });

  it('ignores a cancel for a request nobody runs', async () => {
    client.bus.publish(Routes.inferenceCancel, { requestId: 'never-started' });
    await client.bus.flush();
    const { result } = await client.collect({ model: 'long', messages: [{ role: 'user', content: 'still here?' }], maxTokens: 3 });
    expect(result.usage.completionTokens).toBe(3);
  });
});
