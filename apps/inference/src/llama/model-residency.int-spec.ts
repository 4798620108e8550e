import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode, Routes, type GenerateChunk, type WorkerHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { llamaModelSchema } from '../registry/models-config.schema';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';
import { LlamaRuntime } from './llama-runtime';
import { estimateModelBytes } from './memory-estimate';

const base = { provider: 'llama', contextSize: 512, sequences: 1, threads: 1, gpuLayers: 0 } as const;
/** Three GGUFs of different sizes (a model's memory is its weights plus its context's KV cache). */
const FILES = {
  small: ['small.gguf', []],
  medium: ['medium.gguf', ['--layers', '4', '--embedding', '128', '--feed-forward', '256']],
  other: ['other.gguf', ['--layers', '4', '--embedding', '128', '--feed-forward', '256', '--seed', '7']],
  huge: ['huge.gguf', ['--layers', '6', '--embedding', '256', '--feed-forward', '512']],
} as const;
type Name = keyof typeof FILES;

describe('models on demand within a memory budget', () => {
  let dir: string;
  let nats: StartedService;
  let client: Client;
  const bytes = {} as Record<Name, number>;
  const workers: StartedWorker[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('weft-residency-');
    for (const [file, flags] of Object.values(FILES)) await makeTestModel(dir, file, [...flags]);
    await writeFile(join(dir, 'broken.gguf'), 'GGUF but not really a model');
    // A copy cut short: its header reads, its tensors are not all there.
    await writeFile(join(dir, 'truncated.gguf'), (await readFile(join(dir, FILES.medium[0]))).subarray(0, 100_000));
    // The budgets below come from the worker's own estimator, so they hold whatever it counts.
    const backend = await new LlamaRuntime(createLogger('estimate', 'silent')).get();
    for (const name of Object.keys(FILES) as Name[]) {
      const config = llamaModelSchema.parse({ ...base, id: name, path: join(dir, FILES[name][0]) });
      bytes[name] = await estimateModelBytes(backend, { ...config, path: join(dir, FILES[name][0]) });
    }
    nats = await startNats();
    client = await connectClient(nats.url);
  });

  async function stop(worker: StartedWorker | undefined): Promise<void> {
    if (!worker || !workers.includes(worker)) return;
    workers.splice(workers.indexOf(worker), 1);
    await worker.close();
  }

  afterAll(async () => {
    for (const worker of [...workers]) await stop(worker);
    await client?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  async function start(models: unknown[], budgetBytes: number, env: Record<string, string> = {}): Promise<StartedWorker> {
    const worker = await startWorker(nats.url, dir, { models }, { MODELS_MAX_LOADED_BYTES: String(budgetBytes), ...env });
    workers.push(worker);
    return worker;
  }

  /** The worker's next heartbeat that satisfies `test` (its figures are refreshed every 200 ms). */
  function beat(workerId: string, test: (hb: WorkerHeartbeat) => boolean): Promise<WorkerHeartbeat> {
    return new Promise((resolve) => {
      const sub = client.bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => {
        if (hb.workerId !== workerId || !test(hb)) return;
        sub.unsubscribe();
        resolve(hb);
      });
    });
  }

  const loadedOf = (hb: WorkerHeartbeat) => hb.models.filter((m) => m.state === 'loaded').map((m) => m.id).sort();
  const ask = (model: string, sessionId?: string) =>
    client.collect({ model, messages: [{ role: 'user', content: `Say something, ${model}.` }], maxTokens: 4, temperature: 0, ...(sessionId ? { sessionId } : {}) });
  const failureOf = (model: string) =>
    ask(model).then(
      () => undefined,
      (error: unknown) => (error instanceof AppError ? { code: error.code, message: error.message } : { code: String(error), message: '' }),
    );

  describe('a worker whose budget fits two of its three models', () => {
    let worker: StartedWorker;

    beforeAll(async () => {
      const models = (['small', 'medium', 'other', 'huge'] as const).map((id) => ({ ...base, id, path: FILES[id][0] }));
      models.push({ ...base, id: 'broken', path: 'broken.gguf' } as never, { ...base, id: 'truncated', path: 'truncated.gguf' } as never);
      // medium + other fit; small beside both does not.
      worker = await start(models, bytes.medium + bytes.other + Math.floor(bytes.small / 2), { KV_STATE_DIR: join(dir, 'kv') });
    });

    // Requests go to the workers' shared queue group: one worker at a time.
    afterAll(() => stop(worker));

    it('loads a model on its first request, telling the request it loads, and announces it loaded with its memory', async () => {
      const before = await beat(worker.workerId, () => true);
      expect(before.models.find((m) => m.id === 'small')).toMatchObject({ loaded: false, state: 'unloaded' });
      const chunks: GenerateChunk[] = [];
      const { result } = await client.collect(
        { model: 'small', sessionId: 'returning', messages: [{ role: 'user', content: 'Say something, small.' }], maxTokens: 4, temperature: 0 },
        (chunk) => chunks.push(chunk),
      );
      expect(result.usage.completionTokens).toBeGreaterThan(0);
      // The load is told first, before any text.
      expect(chunks[0]).toMatchObject({ type: 'model.loading', model: 'small' });
      const reports = chunks.filter((c) => c.type === 'model.loading');
      for (const report of reports) expect(report.progress).toBeGreaterThanOrEqual(0);
      expect(chunks.findIndex((c) => c.type !== 'model.loading')).toBe(reports.length);
      // Loaded now: the next request hears of no load.
      const again: GenerateChunk[] = [];
      await client.collect({ model: 'small', messages: [{ role: 'user', content: 'Once more.' }], maxTokens: 2, temperature: 0 }, (c) => again.push(c));
      expect(again.some((c) => c.type === 'model.loading')).toBe(false);
      const after = await beat(worker.workerId, (hb) => loadedOf(hb).includes('small'));
      expect(after.models.find((m) => m.id === 'small')).toMatchObject({ state: 'loaded', memoryBytes: bytes.small });
      expect(after.memory).toEqual({ budgetBytes: bytes.medium + bytes.other + Math.floor(bytes.small / 2), usedBytes: bytes.small });
    });

    it('unloads the least recently used idle model to make room, saving its sessions first', async () => {
      await ask('medium');
      expect(loadedOf(await beat(worker.workerId, (hb) => loadedOf(hb).length === 2))).toEqual(['medium', 'small']);
      await ask('other');
      // small was used longest ago: it goes, medium stays.
      const after = await beat(worker.workerId, (hb) => loadedOf(hb).includes('other'));
      expect(loadedOf(after)).toEqual(['medium', 'other']);
      expect(after.memory?.usedBytes).toBe(bytes.medium + bytes.other);
      // Loading small again unloads medium now (other was used last), and the session's KV state comes back.
      const { result } = await client.collect({
        model: 'small',
        sessionId: 'returning',
        messages: [
          { role: 'user', content: 'Say something, small.' },
          { role: 'assistant', content: 'x' },
          { role: 'user', content: 'Again.' },
        ],
        maxTokens: 4,
        temperature: 0,
      });
      expect(result.usage.cachedTokens).toBeGreaterThan(0);
      expect(loadedOf(await beat(worker.workerId, (hb) => loadedOf(hb).includes('small')))).toEqual(['other', 'small']);
    });

    it('serves requests that arrive while their model loads, and requests for the loaded ones beside it', async () => {
      const replies = await Promise.all([ask('medium'), ask('medium'), ask('other')]);
      for (const { result } of replies) expect(result.usage.completionTokens).toBeGreaterThan(0);
      expect(loadedOf(await beat(worker.workerId, (hb) => loadedOf(hb).includes('medium')))).toEqual(['medium', 'other']);
    });

    it('refuses a model that does not fit the budget, naming the sizes, and keeps the loaded ones', async () => {
      const failure = await failureOf('huge');
      expect(failure?.code).toBe(ErrorCode.ModelLoadFailed);
      expect(failure?.message).toMatch(/does not fit in this worker's model memory: it needs [\d.]+ MiB and the budget is [\d.]+ MiB/);
      expect(loadedOf(await beat(worker.workerId, () => true))).toEqual(['medium', 'other']);
    });

    it('keeps serving the other models after loads that fail on bad files, without unloading any', async () => {
      expect(await failureOf('broken')).toMatchObject({ code: ErrorCode.ModelLoadFailed, message: expect.stringContaining('unsupported GGUF version') });
      expect(await failureOf('truncated')).toMatchObject({ code: ErrorCode.ModelLoadFailed, message: expect.stringContaining('the GGUF is truncated') });
      // Heartbeats leave from a thread of their own on a NATS connection of their own, so one put
      // together while a load was still failing can arrive after the failure's reply (seen once in
      // CI: 'broken' still 'loading'); the first one with no load under way
      // shows where they settled, and a model stuck loading would time the test out.
      const hb = await beat(worker.workerId, (b) => !b.models.some((m) => m.state === 'loading'));
      expect(loadedOf(hb)).toEqual(['medium', 'other']);
      expect(hb.models.find((m) => m.id === 'broken')).toMatchObject({ state: 'unloaded' });
      expect(hb.models.find((m) => m.id === 'truncated')).toMatchObject({ state: 'unloaded' });
      const { result } = await ask('other');
      expect(result.usage.completionTokens).toBeGreaterThan(0);
    });
  });

  describe('a worker with a pinned model', () => {
    it('never unloads the pinned model, though it was used longest ago', async () => {
      const worker = await start(
        [
          { ...base, id: 'pinned', path: FILES.small[0], pinned: true },
          { ...base, id: 'medium', path: FILES.medium[0] },
          { ...base, id: 'other', path: FILES.other[0] },
        ],
        bytes.small + bytes.medium + Math.floor(bytes.other / 2),
      );
      await ask('pinned');
      await ask('medium');
      await ask('other');
      const hb = await beat(worker.workerId, (b) => loadedOf(b).includes('other'));
      expect(loadedOf(hb)).toEqual(['other', 'pinned']);
      expect(hb.models.find((m) => m.id === 'pinned')).toMatchObject({ pinned: true, state: 'loaded' });
      await stop(worker);
    });

    it('unloads an idle model after the TTL, but not a pinned one', async () => {
      const worker = await start(
        [
          { ...base, id: 'pinned', path: FILES.small[0], pinned: true },
          { ...base, id: 'medium', path: FILES.medium[0] },
        ],
        bytes.small + bytes.medium,
        { MODELS_IDLE_TTL_MS: '1500' },
      );
      await Promise.all([ask('pinned'), ask('medium')]);
      await beat(worker.workerId, (b) => loadedOf(b).length === 2);
      const hb = await beat(worker.workerId, (b) => b.models.find((m) => m.id === 'medium')?.state === 'unloaded');
      expect(loadedOf(hb)).toEqual(['pinned']);
    });
  });
});
