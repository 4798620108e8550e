import { AppError, ErrorCode, Routes, type GenerateChunk, type GenerateRequest, type WorkerHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import type { NatsEventBus, RequestOptions, RpcClient } from '@weft/messaging';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetInferenceClient } from './fleet-inference.client';
import { FleetRegistry, type FleetStore } from './fleet-registry';
import { FleetRouter } from './fleet-router';

const log = createLogger('fleet-client-test', 'silent');
const noMirror: FleetStore = { save: async () => undefined, remove: async () => undefined, load: async () => [] };
const noAffinity = { affinity: async () => undefined, recordAffinity: async () => undefined };

const beat = (startedAt: string): WorkerHeartbeat => ({
  workerId: 'only',
  status: 'ready',
  intervalMs: 1000,
  startedAt,
  sentAt: startedAt,
  inFlight: 0,
  models: [{ id: 'tiny', provider: 'llama', contextSize: 2048, loaded: true, freeSequences: 1, queued: 0, maxQueue: 0, cachedSessions: [] }],
});

const done: GenerateChunk = {
  type: 'done',
  result: { text: 'ok', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 }, timings: { totalMs: 1 }, workerId: 'only' },
};

/** Stands in for NATS: the first attempt prefills until the gateway gives up on it; `retry` answers the next. */
function fakeTransport(retry: () => AsyncGenerator<GenerateChunk>) {
  const subjects: string[] = [];
  const cancels: string[] = [];
  let attempts = 0;
  const rpc = {
    stream(route: { subject: string }, _body: GenerateRequest, options: RequestOptions = {}) {
      subjects.push(route.subject);
      if (attempts++ > 0) return retry();
      return (async function* prefilling(): AsyncGenerator<GenerateChunk> {
        await new Promise((resolve) => options.signal?.addEventListener('abort', resolve, { once: true }));
        yield* [];
      })();
    },
  } as unknown as RpcClient;
  const bus = {
    publish: (route: { subject: string }, payload: { requestId: string }) => {
      if (route.subject === Routes.inferenceCancel.subject) cancels.push(payload.requestId);
    },
  } as unknown as NatsEventBus;
  return { rpc, bus, subjects, cancels };
}

describe('FleetInferenceClient retries after a lost worker', () => {
  let registry: FleetRegistry;
  afterEach(() => registry.close());

  async function generateWhileLosingTheWorker(retry: () => AsyncGenerator<GenerateChunk>) {
    registry = new FleetRegistry(noMirror, log);
    registry.apply(beat('2025-01-01T00:00:00.000Z'));
    const transport = fakeTransport(retry);
    const client = new FleetInferenceClient(transport.rpc, transport.bus, registry, new FleetRouter(registry, noAffinity, log), noAffinity, log);
    const chunks: GenerateChunk[] = [];
    const outcome = (async () => {
      for await (const chunk of client.generate({ model: 'tiny', requestId: 'r-1', messages: [{ role: 'user', content: 'hi' }] }, { timeoutMs: 10_000 })) chunks.push(chunk);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setImmediate(resolve));
    // The gateway loses sight of the worker while it prefills (here: a new process under its id).
    registry.apply(beat('2025-01-01T00:00:09.000Z'));
    return { error: await outcome, chunks, ...transport };
  }

  it('gets the result when the retry joins the generation still running on that worker, and cancels nothing', async () => {
    const { error, chunks, subjects, cancels } = await generateWhileLosingTheWorker(async function* () {
      yield done;
    });
    expect(error).toBeUndefined();
    expect(chunks).toEqual([done]);
    expect(subjects).toHaveLength(2);
    expect(cancels).toEqual([]);
  });

  it('never cancels the running generation because a retry of its request id was refused', async () => {
    const { error, cancels } = await generateWhileLosingTheWorker(async function* () {
      yield* [];
      throw new AppError(ErrorCode.InvalidRequest, 'Request r-1 is already running', { requestId: 'r-1' });
    });
    expect(error).toMatchObject({ code: ErrorCode.InvalidRequest });
    expect(cancels).toEqual([]);
  });
});
