import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode, Routes, inferenceWorkerGenerateSubject, type PullProgress } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { type ModelFileServer, startModelFileServer } from '../../../../test/support/model-file-server';
import { type Client, connectClient, makeTempDir, makeTestModel, removeDir, type StartedWorker, startWorker } from '../testing/worker-harness';

/**
 * `weft admin models` at the worker: two real inference workers on real NATS share one models
 * folder; one pulls the generated GGUF from a local HTTP server standing in for the hub, and both
 * serve it without a restart.
 */
let nats: StartedService;
let modelsDir: string;
let sourceDir: string;
let server: ModelFileServer;
let first: StartedWorker;
let second: StartedWorker;
let client: Client;

async function pull(body: { source: string; id?: string; sha256?: string }): Promise<PullProgress[]> {
  const messages: PullProgress[] = [];
  for await (const message of client.rpc.stream(Routes.inferenceModelsPull, body, { timeoutMs: 30_000 })) messages.push(message);
  return messages;
}

/** A generation on one worker's own subject: whether that worker serves the model. */
async function generateOn(worker: StartedWorker, model: string): Promise<string> {
  const chunks = [];
  try {
    for await (const chunk of client.rpc.stream({ ...Routes.inferenceGenerate, subject: inferenceWorkerGenerateSubject(worker.workerId) }, { model, messages: [{ role: 'user', content: 'hi' }], maxTokens: 4 })) chunks.push(chunk);
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
  return chunks.at(-1)?.type ?? 'nothing';
}

/** Waits (without a fixed sleep) until `check` holds; the other worker hears of a change by event. */
async function eventually<T>(check: () => Promise<T>, want: T, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await check();
  while (last !== want && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await check();
  }
  return last;
}

beforeAll(async () => {
  [nats, modelsDir, sourceDir] = await Promise.all([startNats(), makeTempDir('weft-registry-'), makeTempDir('weft-source-')]);
  server = await startModelFileServer(await makeTestModel(sourceDir, 'tiny.gguf'), 'tiny.gguf');
  const env = { HF_ENDPOINT: server.base };
  [first, second] = await Promise.all([startWorker(nats.url, modelsDir, { models: [] }, env), startWorker(nats.url, modelsDir, { models: [] }, env)]);
  client = await connectClient(nats.url);
});

afterAll(async () => {
  await client?.close();
  await Promise.all([first?.close(), second?.close()]);
  await nats?.stop();
  await server?.close();
  await Promise.all([removeDir(modelsDir), removeDir(sourceDir)]);
});

describe('the registry of pulled models', () => {
  it('refuses a wrong SHA-256 and registers nothing', async () => {
    const failure = await pull({ source: 'hf:weft/tiny-GGUF/tiny.gguf', id: 'wrong', sha256: 'a'.repeat(64) }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe(ErrorCode.ModelDownloadFailed);
    expect((failure as AppError).details).toMatchObject({ reason: 'checksum', expected: 'a'.repeat(64), sha256: server.sha256 });
    expect((await client.rpc.request(Routes.inferenceModelsList, {})).models).toEqual([]);
    expect((await readdir(modelsDir)).filter((name) => name.includes('tiny') || name === 'weft-models.json')).toEqual([]);
  });

  it('pulls an hf: model, verified against the hub, and every worker serves it at once', async () => {
    expect(await generateOn(first, 'tiny')).toBe(ErrorCode.UnknownModel);
    const messages = await pull({ source: 'hf:weft/tiny-GGUF/tiny.gguf' });

    expect(messages[0]).toEqual({ type: 'started', id: 'tiny', url: `${server.base}/weft/tiny-GGUF/resolve/main/tiny.gguf`, file: 'tiny.gguf', totalBytes: server.size, resumedFrom: 0, checksum: 'hub' });
    expect(messages.some((m) => m.type === 'verifying')).toBe(true);
    const done = messages.at(-1);
    expect(done).toMatchObject({
      type: 'done',
      model: { id: 'tiny', origin: 'pulled', provider: 'llama', contextSize: 2048, file: 'tiny.gguf', sha256: server.sha256, sizeBytes: server.size, gguf: { architecture: 'llama', trainedContextSize: 2048, chatTemplate: true, toolCalls: false, fim: true } },
    });
    const registry = JSON.parse(await readFile(join(modelsDir, 'weft-models.json'), 'utf8')) as { models: { id: string }[] };
    expect(registry.models.map((m) => m.id)).toEqual(['tiny']);

    expect(await eventually(() => generateOn(first, 'tiny'), 'done')).toBe('done');
    expect(await eventually(() => generateOn(second, 'tiny'), 'done')).toBe('done');
    const listed = (await client.rpc.request(Routes.inferenceModelsList, {})).models;
    expect(listed.map((m) => [m.id, m.origin])).toEqual([['tiny', 'pulled']]);
  });

  it('refuses to pull over an id that is taken', async () => {
    const failure = (await pull({ source: `${server.base}/files/tiny.gguf`, id: 'tiny' }).catch((error: unknown) => error)) as AppError;
    expect(failure.code).toBe(ErrorCode.Conflict);
    expect(failure.message).toBe('A pulled model is already registered as "tiny": remove it first (weft admin models remove tiny) or pull under another --id');
    const sameFile = (await pull({ source: `${server.base}/files/tiny.gguf`, id: 'again' }).catch((error: unknown) => error)) as AppError;
    expect(sameFile.code).toBe(ErrorCode.Conflict);
    expect(sameFile.message).toBe('tiny.gguf is pulled already, as "tiny": give that model other settings with weft admin models set tiny');
  });

  it('changes settings and removes a model on every worker', async () => {
    const changed = await client.rpc.request(Routes.inferenceModelsSet, { id: 'tiny', settings: { contextSize: 1024, sequences: 1 } });
    expect(changed.settings).toMatchObject({ contextSize: 1024, sequences: 1 });
    expect(changed.contextSize).toBe(1024);
    expect(await generateOn(second, 'tiny')).toBe('done');

    expect(await client.rpc.request(Routes.inferenceModelsRemove, { id: 'tiny' })).toEqual({ id: 'tiny', fileRemoved: true });
    expect(await eventually(() => generateOn(first, 'tiny'), ErrorCode.UnknownModel)).toBe(ErrorCode.UnknownModel);
    expect(await eventually(() => generateOn(second, 'tiny'), ErrorCode.UnknownModel)).toBe(ErrorCode.UnknownModel);
    expect((await readdir(modelsDir)).filter((name) => name.endsWith('.gguf'))).toEqual([]);
    const missing = (await client.rpc.request(Routes.inferenceModelsRemove, { id: 'tiny' }).catch((error: unknown) => error)) as AppError;
    expect(missing.code).toBe(ErrorCode.UnknownModel);
  });
  it('lets a reply that is running finish when its model is removed', async () => {
    await pull({ source: `${server.base}/files/tiny.gguf`, id: 'brief' });
    // The pull went to either worker; the other serves it once it has re-read the registry.
    expect(await eventually(() => generateOn(first, 'brief'), 'done')).toBe('done');
    const stream = client.rpc.stream({ ...Routes.inferenceGenerate, subject: inferenceWorkerGenerateSubject(first.workerId) }, { model: 'brief', messages: [{ role: 'user', content: 'hi' }], maxTokens: 400 });
    // Past the load reports of the model's first request, to its first text.
    let firstChunk = await stream.next();
    while (firstChunk.value?.type === 'model.loading') firstChunk = await stream.next();
    expect(firstChunk.value?.type).toBe('delta');
    expect(await client.rpc.request(Routes.inferenceModelsRemove, { id: 'brief' })).toEqual({ id: 'brief', fileRemoved: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)).toMatchObject({ type: 'done', result: { finishReason: 'length' } });
    expect(await generateOn(first, 'brief')).toBe(ErrorCode.UnknownModel);
  });
});
