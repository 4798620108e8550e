import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { INestMicroservice } from '@nestjs/common';
import { inferenceConfigSchema } from '@weft/config';
import { AppError, ErrorCode, Routes, type ChatMessage, type GenerateChunk, type RouteRequest } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient, type RpcClient } from '@weft/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../test/support/containers';
import { createInferenceApp } from './app';

const root = resolve(__dirname, '../../..');

describe('inference worker over NATS', () => {
  let dir: string;
  let nats: StartedService;
  let app: INestMicroservice;
  let rpc: { client: RpcClient; close: () => Promise<void> };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-inference-'));
    await promisify(execFile)(process.execPath, [join(root, 'scripts/gguf/make-test-model.mjs'), join(dir, 'tiny.gguf')]);
    // Same length, so the file stays valid GGUF but lacks a key llama.cpp would abort on.
    const gguf = await readFile(join(dir, 'tiny.gguf'));
    await writeFile(join(dir, 'no-ffn.gguf'), renameKey(gguf, 'llama.feed_forward_length', 'llama.feed_forward_lengtX'));
    await mkdir(join(dir, 'scripts'));
    await copyFile(join(root, 'config/scripts/demo.json'), join(dir, 'scripts/demo.json'));
    const models = [
      // Every token its own delta here; `tiny-joined` holds them for up to a second.
      { id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 1024, threads: 1, gpuLayers: 0, streamIntervalMs: 0 },
      { id: 'tiny-joined', provider: 'llama', path: 'tiny.gguf', contextSize: 1024, threads: 1, gpuLayers: 0, streamIntervalMs: 1000 },
      { id: 'broken', provider: 'llama', path: 'missing.gguf', threads: 1, gpuLayers: 0 },
      { id: 'no-ffn', provider: 'llama', path: 'no-ffn.gguf', threads: 1, gpuLayers: 0 },
    ];
    await writeFile(join(dir, 'models.json'), JSON.stringify({ models, scripted: { dir: 'scripts' } }));
    nats = await startNats();
    const config = inferenceConfigSchema.parse({
      NATS_URL: nats.url,
      MODELS_CONFIG: join(dir, 'models.json'),
      MODELS_DIR: dir,
      LOG_LEVEL: 'silent',
      METRICS_PORT: '0',
    });
    app = await createInferenceApp(config, createLogger('inference-test', 'silent'));
    await app.listen();
    rpc = await connectRpcClient(nats.url, 30_000);
  });

  afterAll(async () => {
    await rpc?.close();
    await app?.close();
    await nats?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function collect(request: RouteRequest<typeof Routes.inferenceGenerate>) {
    const chunks: GenerateChunk[] = [];
    for await (const chunk of rpc.client.stream(Routes.inferenceGenerate, request)) chunks.push(chunk);
    const done = chunks.at(-1);
    if (done?.type !== 'done') throw new Error(`stream ended without done: ${JSON.stringify(chunks)}`);
    // A model's first request also hears `model.loading` while it loads: not text.
    const deltas = chunks.flatMap((c) => (c.type === 'delta' ? [c.text] : []));
    return { deltas, result: done.result, kinds: chunks.map((c) => c.type) };
  }

  async function codeOf(request: RouteRequest<typeof Routes.inferenceGenerate>) {
    const error = await collect(request).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).code;
  }

  it('streams a GGUF model\'s tokens as several deltas, then a done with usage', async () => {
    const { deltas, result, kinds } = await collect({
      model: 'tiny',
      messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say something.' }],
      maxTokens: 12,
      temperature: 0,
      tools: [{ name: 'list_directory', description: 'List a folder', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
    });
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(kinds.filter((k) => k === 'done')).toHaveLength(1);
    expect(result.text).toBe(deltas.join(''));
    expect(result.finishReason).toBe('length');
    expect(result.usage.completionTokens).toBe(12);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(result.timings.timeToFirstTokenMs).toBeGreaterThan(0);
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.timeToFirstTokenMs ?? 0);
  });

  it('joins a model\'s deltas per streamIntervalMs: the first at once, the rest in one message, the text whole', async () => {
    const request = { messages: [{ role: 'user' as const, content: 'Say something.' }], maxTokens: 12, temperature: 0 };
    const perToken = await collect({ model: 'tiny', ...request });
    const joined = await collect({ model: 'tiny-joined', ...request });
    expect(perToken.deltas.length).toBeGreaterThanOrEqual(3);
    // 12 tokens of the tiny model take far less than the second it may hold them.
    expect(joined.deltas.length).toBeLessThanOrEqual(2);
    expect(joined.deltas[0]).toBe(perToken.deltas[0]);
    expect(joined.deltas.join('')).toBe(perToken.result.text);
    expect(joined.result.text).toBe(perToken.result.text);
    expect(joined.result.timings.timeToFirstTokenMs).toBeLessThan(1000);
  });

  it('stops a reply that would overflow the context at the context\'s end, reported as length', async () => {
    const { result } = await collect({ model: 'tiny', messages: [{ role: 'user', content: 'Go on forever.' }], maxTokens: 5000 });
    expect(result.finishReason).toBe('length');
    expect(result.usage.promptTokens + result.usage.completionTokens).toBeLessThanOrEqual(1024);
    expect(result.usage.completionTokens).toBeGreaterThan(900);
  });

  it('refuses a prompt longer than the context with CONTEXT_LENGTH_EXCEEDED and the numbers', async () => {
    const error = await collect({ model: 'tiny', messages: [{ role: 'user', content: 'word '.repeat(3000) }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INFERENCE.CONTEXT_LENGTH_EXCEEDED', details: { contextSize: 1024 } });
  });

  it('runs more concurrent generations than the model has sequences, the rest waiting their turn', async () => {
    const ask = (content: string) => collect({ model: 'tiny', messages: [{ role: 'user', content }], maxTokens: 4 });
    const results = await Promise.all(['one', 'two', 'three', 'four'].map(ask));
    expect(results.map((r) => r.result.usage.completionTokens)).toEqual([4, 4, 4, 4]);
  });

  it('replays a scripted session: a tool call, then the final answer, then SCRIPT_EXHAUSTED', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'What is in my project?' }];
    const first = await collect({ model: 'scripted/demo', messages });
    expect(first.deltas.length).toBeGreaterThan(3);
    expect(first.result.finishReason).toBe('tool_calls');
    expect(first.result.toolCalls).toEqual([{ id: 'call_0_0', name: 'list_directory', arguments: { path: '.' } }]);

    messages.push(
      { role: 'assistant', content: first.result.text, toolCalls: first.result.toolCalls },
      { role: 'tool', toolCallId: 'call_0_0', name: 'list_directory', content: 'README.md\nsrc/' },
    );
    const second = await collect({ model: 'scripted/demo', messages });
    expect(second.result).toMatchObject({ finishReason: 'stop', toolCalls: [] });
    expect(second.result.text).toMatch(/^I listed the workspace root/);

    messages.push({ role: 'assistant', content: second.result.text }, { role: 'user', content: 'And then?' });
    expect(await codeOf({ model: 'scripted/demo', messages })).toBe(ErrorCode.ScriptExhausted);
  });

  it('answers an unknown model with UNKNOWN_MODEL naming the known ones', async () => {
    const error = await collect({ model: 'gpt-9', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.UnknownModel, details: { known: ['tiny', 'tiny-joined', 'broken', 'no-ffn', 'scripted/demo'] } });
  });

  it('reports a model that cannot load as MODEL_LOAD_FAILED and keeps serving', async () => {
    expect(await codeOf({ model: 'broken', messages: [{ role: 'user', content: 'hi' }] })).toBe(ErrorCode.ModelLoadFailed);
    expect(await codeOf({ model: 'no-ffn', messages: [{ role: 'user', content: 'hi' }] })).toBe(ErrorCode.ModelLoadFailed);
    const again = await collect({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], maxTokens: 2 });
    expect(again.result.usage.completionTokens).toBe(2);
  });

  it('lists llama and scripted models', async () => {
    const { models } = await rpc.client.request(Routes.inferenceListModels, {});
    expect(models).toEqual([
      { id: 'tiny', provider: 'llama', contextSize: 1024, sequences: 2 },
      { id: 'tiny-joined', provider: 'llama', contextSize: 1024, sequences: 2 },
      { id: 'broken', provider: 'llama', contextSize: 4096, sequences: 2 },
      { id: 'no-ffn', provider: 'llama', contextSize: 4096, sequences: 2 },
      { id: 'scripted/demo', provider: 'scripted', contextSize: 32768 },
    ]);
  });
});

function renameKey(gguf: Buffer, from: string, to: string): Buffer {
  const at = gguf.indexOf(from);
  if (at < 0 || from.length !== to.length) throw new Error(`cannot rename ${from}`);
  const copy = Buffer.from(gguf);
  copy.write(to, at);
  return copy;
}
