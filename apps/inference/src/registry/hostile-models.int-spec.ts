import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode, Routes, type PullModelBody, type PullProgress } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { type ModelFileServer, startModelFileServer } from '../../../../test/support/model-file-server';
import { hostileCorpus } from '../gguf-validation/testing/craft-gguf';
import { type Client, connectClient, makeTempDir, makeTestModel, removeDir, type StartedWorker, startWorker } from '../testing/worker-harness';

/**
 * Issue #46's hostile model files against a real worker on real NATS, which runs in this process:
 * a file that held its main thread would hang these tests. Each is refused at pull (from a local
 * HTTP host) and at load (placed in the models folder), while the worker answers for the valid model.
 */
const base = { provider: 'llama', contextSize: 512, sequences: 1, threads: 1, gpuLayers: 0 } as const;
const CORPUS = hostileCorpus().filter(({ name }) => ['tensors-2e62', 'entries-1e7', 'version-99', 'offset-past-end', 'truncated-in-tensor-list'].includes(name));

let nats: StartedService;
let modelsDir: string;
let sourceDir: string;
let worker: StartedWorker;
let client: Client;
const servers = new Map<string, ModelFileServer>();

async function pull(body: PullModelBody): Promise<PullProgress[]> {
  const messages: PullProgress[] = [];
  for await (const message of client.rpc.stream(Routes.inferenceModelsPull, body, { timeoutMs: 30_000 })) messages.push(message);
  return messages;
}

async function failureOf(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a coded failure, got ${String(error)}`);
  return error;
}

/** The valid model answers: the worker is serving. */
async function tinyAnswers(): Promise<number> {
  const { result } = await client.collect({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], maxTokens: 4, temperature: 0 });
  return result.usage.completionTokens;
}

beforeAll(async () => {
  [nats, modelsDir, sourceDir] = await Promise.all([startNats(), makeTempDir('weft-hostile-models-'), makeTempDir('weft-hostile-source-')]);
  await makeTestModel(modelsDir, 'tiny.gguf');
  for (const { name, bytes } of CORPUS) {
    await writeFile(join(sourceDir, `${name}.gguf`), bytes);
    servers.set(name, await startModelFileServer(join(sourceDir, `${name}.gguf`), `${name}.gguf`));
  }
  const [wedger] = CORPUS;
  await writeFile(join(modelsDir, 'placed.gguf'), wedger?.bytes ?? Buffer.alloc(0));
  const models = [
    { ...base, id: 'tiny', path: 'tiny.gguf' },
    { ...base, id: 'placed', path: 'placed.gguf' },
  ];
  worker = await startWorker(nats.url, modelsDir, { models });
  client = await connectClient(nats.url);
});

afterAll(async () => {
  await client?.close();
  await worker?.close();
  await nats?.stop();
  await Promise.all([...servers.values()].map((server) => server.close()));
  await Promise.all([removeDir(modelsDir), removeDir(sourceDir)]);
});

describe('hostile model files', () => {
  it.each(CORPUS)('refuses $name at pull, keeps nothing of it, and answers for the valid model meanwhile', async ({ name, field }) => {
    const server = servers.get(name) as ModelFileServer;
    const [failure, answered] = await Promise.all([failureOf(pull({ source: `${server.base}/files/${name}.gguf` })), tinyAnswers()]);
    expect(failure.code).toBe(ErrorCode.ModelFileInvalid);
    expect(failure.details).toMatchObject({ reason: 'not-gguf', field: expect.stringMatching(field) });
    expect(failure.message).toMatch(/^The downloaded file is not a GGUF Weft can load safely \(.+\): it is deleted and nothing was registered$/);
    expect(answered).toBeGreaterThan(0);
    expect((await readdir(modelsDir)).filter((file) => file.startsWith(name))).toEqual([]);
    expect((await client.rpc.request(Routes.inferenceModelsList, {})).models.map((model) => model.id)).toEqual(['tiny', 'placed']);
  });

  it('refuses a crafted file placed in the models folder at load, lists it quarantined, and keeps serving', async () => {
    const ask = () => client.collect({ model: 'placed', messages: [{ role: 'user', content: 'hi' }], maxTokens: 4 });
    const failure = await failureOf(ask());
    expect(failure.code).toBe(ErrorCode.ModelLoadFailed);
    expect(failure.message).toBe('Model "placed" could not be loaded: placed.gguf is not a GGUF Weft can load safely: tensor_count: claims 4611686018427387904 tensors; Weft reads at most 65536');
    expect(await tinyAnswers()).toBeGreaterThan(0);
    // Quarantined: refused again (from memory) until the file changes, and the admin list says why.
    expect((await failureOf(ask())).message).toBe(failure.message);
    const placed = (await client.rpc.request(Routes.inferenceModelsList, {})).models.find((model) => model.id === 'placed');
    expect(placed?.quarantined).toEqual({ field: 'tensor_count', reason: 'placed.gguf is not a GGUF Weft can load safely: tensor_count: claims 4611686018427387904 tensors; Weft reads at most 65536' });
    expect(await tinyAnswers()).toBeGreaterThan(0);
  });

  it('stops a pull over its maxSizeBytes and leaves nothing behind', async () => {
    const server = await startModelFileServer(join(modelsDir, 'tiny.gguf'), 'capped.gguf');
    try {
      const failure = await failureOf(pull({ source: `${server.base}/files/capped.gguf`, maxSizeBytes: 4096 }));
      expect(failure.code).toBe(ErrorCode.ModelTooLarge);
      expect(failure.details).toMatchObject({ reason: 'too-large', capBytes: 4096, sizeBytes: server.size });
      expect((await readdir(modelsDir)).filter((file) => file.startsWith('capped'))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
