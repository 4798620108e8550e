import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { INestMicroservice } from '@nestjs/common';
import { inferenceConfigSchema } from '@weft/config';
import { AppError, Routes, type GenerateChunk, type GenerateResult, type RouteRequest } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient, NatsEventBus, type RpcClient } from '@weft/messaging';
import type { NatsConnection } from 'nats';
import { createInferenceApp } from '../app';

const root = resolve(__dirname, '../../../..');

/** Writes the project's tiny test GGUF (generator flags allowed) into `dir`. */
export async function makeTestModel(dir: string, name = 'tiny.gguf', flags: string[] = []): Promise<string> {
  const path = join(dir, name);
  await promisify(execFile)(process.execPath, [join(root, 'scripts/gguf/make-test-model.mjs'), path, ...flags]);
  return path;
}

export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(dir, 'scripts'), { recursive: true });
  return dir;
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true });
}

export interface StartedWorker {
  app: INestMicroservice;
  workerId: string;
  close: () => Promise<void>;
}

/** Starts one inference worker in this process with the given registry and env. */
export async function startWorker(
  natsUrl: string,
  dir: string,
  registry: { models: unknown[]; scripted?: { dir: string } },
  env: Record<string, string> = {},
): Promise<StartedWorker> {
  const workerId = env.WORKER_ID ?? `w${Math.random().toString(16).slice(2, 10)}`;
  const configFile = join(dir, `models-${workerId}.json`);
  await writeFile(configFile, JSON.stringify(registry));
  const config = inferenceConfigSchema.parse({
    NATS_URL: natsUrl,
    MODELS_CONFIG: configFile,
    MODELS_DIR: dir,
    LOG_LEVEL: process.env.WEFT_TEST_LOG_LEVEL ?? 'silent',
    METRICS_PORT: '0',
    HEARTBEAT_INTERVAL_MS: '200',
    WORKER_ID: workerId,
    // The whole inference suite runs with either generation loop (docs/inference.md).
    INFERENCE_GENERATION_LOOP: process.env.INFERENCE_GENERATION_LOOP,
    ...env,
  });
  const app = await createInferenceApp(config, createLogger('inference-test', config.LOG_LEVEL));
  await app.listen();
  // The server's subscriptions are live before the first request is sent.
  await app.unwrap<NatsConnection>().flush();
  return { app, workerId, close: () => app.close() };
}

export interface Client {
  rpc: RpcClient;
  bus: NatsEventBus;
  collect: (request: RouteRequest<typeof Routes.inferenceGenerate>, onChunk?: (chunk: GenerateChunk) => void) => Promise<Collected>;
  /** The error code a request fails with (undefined when it succeeds). */
  codeOf: (request: RouteRequest<typeof Routes.inferenceGenerate>) => Promise<string | undefined>;
  close: () => Promise<void>;
}

export interface Collected {
  deltas: string[];
  result: GenerateResult;
}

export async function connectClient(natsUrl: string, timeoutMs = 30_000): Promise<Client> {
  const rpc = await connectRpcClient(natsUrl, timeoutMs);
  const bus = await NatsEventBus.connect(natsUrl, 'inference-test-client', createLogger('test-client', 'silent'));
  const collect = async (request: RouteRequest<typeof Routes.inferenceGenerate>, onChunk?: (chunk: GenerateChunk) => void) => {
    const chunks: GenerateChunk[] = [];
    for await (const chunk of rpc.client.stream(Routes.inferenceGenerate, request)) {
      chunks.push(chunk);
      onChunk?.(chunk);
    }
    const done = chunks.at(-1);
    if (done?.type !== 'done') throw new Error(`stream ended without done: ${JSON.stringify(chunks)}`);
    const deltas = chunks.flatMap((c) => (c.type === 'delta' ? [c.text] : []));
    return { deltas, result: done.result };
  };
  return {
    rpc: rpc.client,
    bus,
    collect,
    codeOf: (request) =>
      collect(request).then(
        () => undefined,
        (error: unknown) => (error instanceof AppError ? error.code : String(error)),
      ),
    close: async () => {
      await bus.close();
      await rpc.close();
    },
  };
}
