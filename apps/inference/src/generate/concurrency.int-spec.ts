import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, Routes } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';
import { validateJson } from '../tool-calls/validate-json';
import { InferenceService } from './inference.service';

/** A chat template override: a preamble, then `role: content` lines. */
const TEMPLATE =
  "Conversation log of a careful assistant follows.\n{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}";

describe('concurrency, queueing and sampling', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;

  beforeAll(async () => {
    dir = await makeTempDir('weft-concurrency-');
    await makeTestModel(dir);
    nats = await startNats();
    const tiny = { provider: 'llama', path: 'tiny.gguf', contextSize: 2048, threads: 1, gpuLayers: 0 };
    worker = await startWorker(nats.url, dir, {
      models: [
        { ...tiny, id: 'tiny', sequences: 4, maxQueue: 8 },
        { ...tiny, id: 'narrow', sequences: 1, maxQueue: 1 },
        { ...tiny, id: 'single', sequences: 1, maxQueue: 8 },
        { ...tiny, id: 'trim', sequences: 3 },
        { ...tiny, id: 'templated', sequences: 1, chatTemplate: { jinja: TEMPLATE }, sampling: { temperature: 1, seed: 5 } },
      ],
    });
    client = await connectClient(nats.url);
    // Load these models now, so timings below are of generation alone.
    await Promise.all(['tiny', 'narrow', 'single', 'trim'].map((model) => client.collect({ model, messages: [{ role: 'user', content: 'warm up' }], maxTokens: 1 })));
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  it('decodes several sessions in one context at once and completes them all', async () => {
    const started = performance.now();
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((s) => client.collect({ model: 'tiny', sessionId: `conc-${s}`, messages: [{ role: 'user', content: `Hello ${s}` }], maxTokens: 64 })),
    );
    const wall = performance.now() - started;
    expect(results.map((r) => r.result.usage.completionTokens)).toEqual([64, 64, 64, 64]);
    // Batched, not one after another: nobody waited for a sequence.
    expect(results.every((r) => (r.result.timings.queuedMs ?? 0) < 50)).toBe(true);
    const serial = results.reduce((sum, r) => sum + r.result.timings.totalMs, 0);
    expect(wall).toBeLessThan(serial);
  });

  it('queues up to maxQueue requests beyond the sequences and answers INFERENCE.BUSY past that', async () => {
    const ask = (n: number) => client.codeOf({ model: 'narrow', messages: [{ role: 'user', content: `request ${n}` }], maxTokens: 400 });
    const first = ask(1);
    const second = ask(2);
    const third = ask(3);
    expect(await third).toBe(ErrorCode.InferenceBusy);
    expect(await first).toBeUndefined();
    expect(await second).toBeUndefined();
  });

  it('serves a user with one waiting request before the rest of a user with many', async () => {
    const service = worker.app.get(InferenceService);
    const single = async () => (await service.status()).find((m) => m.id === 'single');
    const alice = { id: 'alice' };
    const finished: string[] = [];
    const ask = (user: { id: string }, label: string) =>
      client.collect({ model: 'single', user, messages: [{ role: 'user', content: label }], maxTokens: 4 }).then(() => finished.push(label));

    // Alice's first request holds the one sequence (no maxTokens: the whole context) until it is
    // cancelled, so the queue is built in a known order while nothing is served.
    const blockerId = randomUUID();
    const blocker = client.codeOf({ model: 'single', requestId: blockerId, user: alice, messages: [{ role: 'user', content: 'block' }] });
    await vi.waitFor(async () => expect(await single()).toMatchObject({ freeSequences: 0 }));
    const alices = ['a1', 'a2', 'a3', 'a4', 'a5'].map((label) => ask(alice, label));
    await vi.waitFor(async () => expect(await single()).toMatchObject({ queued: 5 }));
    const bob = ask({ id: 'bob' }, 'bob');
    await vi.waitFor(async () => expect(await single()).toMatchObject({ queued: 6 }));

    client.bus.publish(Routes.inferenceCancel, { requestId: blockerId });
    expect(await blocker).toBe(ErrorCode.GenerationCancelled);
    await Promise.all([...alices, bob]);
    // In arrival order Bob would be last. Fairly, he is served with the next free sequence or the
    // one after: whether his first request ties with Alice's first waiting one or goes before it
    // depends on how much of the blocker's service was counted when it was cancelled (timing).
    expect(finished.indexOf('bob')).toBeLessThanOrEqual(1);
    expect(finished.filter((label) => label !== 'bob')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('starts a session whose sequence must be trimmed while other sessions generate, not after they end', async () => {
    // node-llama-cpp holds the context's lock for as long as any sequence has a decode queued, and
    // trimming a sequence's cache takes that lock: without the lock patch (llama/context-lock-patch),
    // the second turn below waited for both long replies to end.
    await client.collect({ model: 'trim', sessionId: 'trim-b', messages: [{ role: 'user', content: 'A first question' }], maxTokens: 4 });
    const long = ['la', 'lb'].map((id) => {
      const requestId = randomUUID();
      let markStarted = () => undefined as void;
      const run = { requestId, ended: false, started: new Promise<void>((resolve) => (markStarted = resolve)), code: Promise.resolve<string | undefined>(undefined) };
      // No maxTokens: each reply may run to the end of its context, until it is cancelled.
      run.code = client
        .collect({ model: 'trim', sessionId: `trim-${id}`, requestId, messages: [{ role: 'user', content: `Write on, ${id}` }] }, () => markStarted())
        .then(
          () => undefined,
          (error: unknown) => (error instanceof AppError ? error.code : String(error)),
        )
        .finally(() => (run.ended = true));
      return run;
    });
    await Promise.all(long.map((run) => run.started));

    // The same session with a different last message: its sequence holds the first question and
    // reply, which must be erased before the new one is evaluated.
    const second = await client.collect({ model: 'trim', sessionId: 'trim-b', messages: [{ role: 'user', content: 'Another question entirely' }], maxTokens: 4 });
    expect(second.result.usage.cachedTokens).toBeGreaterThan(0);
    expect(second.result.usage.completionTokens).toBe(4);
    expect(long.map((run) => run.ended)).toEqual([false, false]);

    for (const run of long) client.bus.publish(Routes.inferenceCancel, { requestId: run.requestId });
    expect(await Promise.all(long.map((run) => run.code))).toEqual([ErrorCode.GenerationCancelled, ErrorCode.GenerationCancelled]);
  });

  it('is reproducible for a seed and varies across seeds at temperature 1', async () => {
    const sample = (seed: number) =>
      client.collect({ model: 'tiny', messages: [{ role: 'user', content: 'Tell a story' }], maxTokens: 24, temperature: 1, seed, topK: 40, topP: 0.95, minP: 0.01, repeatPenalty: 1.1 });
    const [a, b, c] = await Promise.all([sample(7), sample(7), sample(8)]);
    expect(a.result.text).toBe(b.result.text);
    expect(a.result.text).not.toBe(c.result.text);
  });

  it('stops before a stop sequence and reports stop', async () => {
    const messages = [{ role: 'user' as const, content: 'Write something' }];
    const free = await client.collect({ model: 'tiny', messages, maxTokens: 40, temperature: 0 });
    const text = free.result.text;
    const stop = text.slice(20, 24);
    const before = text.slice(0, text.indexOf(stop));
    const stopped = await client.collect({ model: 'tiny', messages, maxTokens: 40, temperature: 0, stop: [stop] });
    expect(stopped.result.finishReason).toBe('stop');
    expect(stopped.result.text).toBe(before);
  });

  it('constrains the reply to a JSON Schema: every sample parses and validates', async () => {
    const schema = {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        ratio: { type: 'number' },
        label: { type: 'string', maxLength: 12 },
        mode: { enum: ['fast', 'slow'] },
        tags: { type: 'array', items: { type: 'string', maxLength: 6 }, maxItems: 3 },
      },
      required: ['count', 'ratio', 'label', 'mode', 'tags'],
    };
    for (let seed = 1; seed <= 12; seed++) {
      const { result } = await client.collect({
        model: 'tiny',
        messages: [{ role: 'user', content: 'Describe the job as JSON' }],
        maxTokens: 200,
        temperature: 1,
        seed,
        jsonSchema: schema,
      });
      expect(result.finishReason).toBe('stop');
      const value: unknown = JSON.parse(result.text);
      expect(validateJson(value, schema)).toEqual([]);
    }
  });

  it('renders prompts with a model\'s chat template override and its sampling defaults', async () => {
    const messages = [{ role: 'user' as const, content: 'Hello there' }];
    const chatml = await client.collect({ model: 'tiny', messages, maxTokens: 8, temperature: 0 });
    const custom = await client.collect({ model: 'templated', messages, maxTokens: 8 });
    const again = await client.collect({ model: 'templated', messages, maxTokens: 8 });
    const reseeded = await client.collect({ model: 'templated', messages, maxTokens: 8, seed: 6 });
    // Same conversation, different rendering: the preamble costs tokens ChatML does not spend.
    expect(custom.result.usage.promptTokens).toBeGreaterThan(chatml.result.usage.promptTokens);
    // Temperature 1 and seed 5 from the model's defaults: the same reply every time, unless the
    // request brings its own seed.
    expect(again.result.text).toBe(custom.result.text);
    expect(reseeded.result.text).not.toBe(custom.result.text);
  });

  it('refuses jsonSchema together with tools as INFERENCE.INVALID_REQUEST', async () => {
    const code = await client.codeOf({
      model: 'tiny',
      messages: [{ role: 'user', content: 'x' }],
      jsonSchema: { type: 'object', properties: {} },
      tools: [{ name: 'noop', description: 'nothing', parameters: { type: 'object', properties: {} } }],
    });
    expect(code).toBe(ErrorCode.InvalidRequest);
  });
});
