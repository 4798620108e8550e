import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { inferenceConfigSchema } from '@weft/config';
import { Routes, type GenerateRequest, type GenerateResult } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient, type RpcClient } from '@weft/messaging';
import type { NatsConnection } from 'nats';
import { createInferenceApp } from '../../apps/inference/src/app';
import { BENCH_SAMPLING } from './sampling';
import type { RunSample } from './stats';

export interface WeftOptions {
  natsUrl: string;
  modelPath: string;
  contextSize: number;
  sequences: number;
  threads: number;
  /** INFERENCE_GENERATION_LOOP; the worker's default when absent. */
  generationLoop?: 'llamachat' | 'weft';
}

export interface WeftReply extends RunSample {
  result: GenerateResult;
}

/**
 * The Weft path short of HTTP: a client on NATS → the inference worker (its NATS server, queue
 * group, sequence pool, chat rendering, streaming) → deltas back over NATS. The worker runs in
 * this process but is reached only through NATS. Models: `bench` with `sequences` sequences,
 * `bench-1` with one (to show an evicted session's cost).
 */
export class WeftPath {
  private constructor(
    private readonly app: INestMicroservice,
    private readonly rpc: { client: RpcClient; close: () => Promise<void> },
    private readonly dir: string,
  ) {}

  static async start(options: WeftOptions): Promise<WeftPath> {
    const dir = await mkdtemp(join(tmpdir(), 'weft-bench-'));
    const model = {
      provider: 'llama',
      path: options.modelPath,
      contextSize: options.contextSize,
      threads: options.threads,
      gpuLayers: 'auto',
      maxQueue: 64,
      // As every side of the benchmark samples (sampling.ts); a request's own values still win.
      sampling: BENCH_SAMPLING,
      // The model's default (50 ms) unless BENCH_STREAM_INTERVAL_MS says otherwise (0: a message per token).
      ...(process.env.BENCH_STREAM_INTERVAL_MS ? { streamIntervalMs: Number(process.env.BENCH_STREAM_INTERVAL_MS) } : {}),
    };
    await writeFile(
      join(dir, 'models.json'),
      JSON.stringify({ models: [{ ...model, id: 'bench', sequences: options.sequences }, { ...model, id: 'bench-1', sequences: 1 }] }),
    );
    const config = inferenceConfigSchema.parse({
      NATS_URL: options.natsUrl,
      MODELS_CONFIG: join(dir, 'models.json'),
      MODELS_DIR: dir,
      LOG_LEVEL: 'error',
      METRICS_PORT: '0',
      WORKER_ID: 'bench',
      // As in the compose stack: evicted sessions' KV states are saved (the sequence pool counts on it).
      KV_STATE_DIR: join(dir, 'kv-state'),
      // The same binary as the direct side (DirectLlama reads LLAMA_BINARY too).
      LLAMA_BINARY: process.env.LLAMA_BINARY,
      INFERENCE_GENERATION_LOOP: options.generationLoop,
    });
    const app = await createInferenceApp(config, createLogger('inference-bench', 'error'));
    await app.listen();
    await app.unwrap<NatsConnection>().flush();
    const rpc = await connectRpcClient(options.natsUrl, 600_000);
    return new WeftPath(app, rpc, dir);
  }

  async generate(request: GenerateRequest): Promise<WeftReply> {
    const started = performance.now();
    let ttftMs = Number.NaN;
    let result: GenerateResult | undefined;
    for await (const chunk of this.rpc.client.stream(Routes.inferenceGenerate, request)) {
      if (chunk.type === 'delta' && Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
      if (chunk.type === 'done') result = chunk.result;
    }
    if (!result) throw new Error('stream ended without a result');
    return { ttftMs, tokens: result.usage.completionTokens, evaluated: result.usage.evaluatedTokens, result };
  }

  async close(): Promise<void> {
    await this.rpc.close();
    await this.app.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
