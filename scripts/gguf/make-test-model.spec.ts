import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = resolve(__dirname, 'make-test-model.mjs');
const run = promisify(execFile);

// Each test runs the generator (and one loads a model): seconds each on a loaded 2-core machine.
describe('make-test-model', { timeout: 60_000 }, () => {
  let dir: string;
  let modelPath: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-gguf-'));
    modelPath = join(dir, 'tiny.gguf');
    await run(process.execPath, [script, modelPath]);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a small file, byte for byte the same on every run', async () => {
    const again = join(dir, 'again.gguf');
    await run(process.execPath, [script, again]);
    const [a, b] = await Promise.all([readFile(modelPath), readFile(again)]);
    expect(a.subarray(0, 4).toString()).toBe('GGUF');
    expect(a.equals(b)).toBe(true);
    expect((await stat(modelPath)).size).toBeLessThan(1024 * 1024);
  });

  it('loads in node-llama-cpp and round-trips ChatML text through its tokenizer', async () => {
    const { getLlama, LlamaLogLevel, resolveChatWrapper } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
    try {
      const text = '<|im_start|>user\nList the files in src/, please: ünïcode 😀<|im_end|>\n<|im_start|>assistant\n';
      const tokens = model.tokenize(text, true);
      const imStart = model.tokenize('<|im_start|>', true);
      expect(imStart).toHaveLength(1);
      expect(tokens[0]).toBe(imStart[0]);
      expect(tokens.length).toBeLessThan(Buffer.byteLength(text));
      expect(model.detokenize(tokens, true)).toBe(text);
      expect(resolveChatWrapper(model).wrapperName).toBe('ChatML');
    } finally {
      await model.dispose();
      await llama.dispose();
    }
  });

  it('takes model dimensions as flags, for bigger benchmark models', async () => {
    const big = join(dir, 'wide.gguf');
    await run(process.execPath, [script, big, '--embedding', '128', '--layers', '3', '--f16']);
    const { readGgufFileInfo } = await import('node-llama-cpp');
    const info = await readGgufFileInfo(big);
    expect(info.architectureMetadata).toMatchObject({ embedding_length: 128, block_count: 3 });
    expect(info.totalTensorCount).toBe(3 + 3 * 9);
  });

  it('writes Q4_0 matrices and pads the vocabulary, for 7B-shaped benchmark models', async () => {
    const q4 = join(dir, 'q4.gguf');
    await run(process.execPath, [script, q4, '--embedding', '128', '--heads', '4', '--kv-heads', '2', '--feed-forward', '256', '--vocab', '2048', '--type', 'q4_0']);
    const { getLlama, LlamaLogLevel, readGgufFileInfo } = await import('node-llama-cpp');
    const info = await readGgufFileInfo(q4);
    expect(info.architectureMetadata).toMatchObject({ vocab_size: 2048 });
    expect(info.fullTensorInfo?.find((t) => t.name === 'blk.0.ffn_up.weight')?.ggmlType).toBe(2); // GGML_TYPE_Q4_0
    // 18 bytes per 32 weights instead of 4 per weight.
    const f32 = join(dir, 'f32.gguf');
    await run(process.execPath, [script, f32, '--embedding', '128', '--heads', '4', '--kv-heads', '2', '--feed-forward', '256', '--vocab', '2048']);
    expect((await stat(q4)).size).toBeLessThan((await stat(f32)).size / 5);

    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: q4, gpuLayers: 0 });
    const context = await model.createContext({ contextSize: 256 });
    try {
      const sequence = context.getSequence();
      const generated: Token[] = [];
      for await (const token of sequence.evaluate(model.tokenize('List the files'), { temperature: 0 })) {
        generated.push(token);
        if (generated.length === 8) break;
      }
      // The reserved tokens' output rows are silenced like the special ones: never generated.
      expect(generated).toHaveLength(8);
      expect(generated.every((t) => t < 2048 && !model.detokenize([t], true).startsWith('<|reserved_'))).toBe(true);
    } finally {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    }
  });

  it('refuses a vocabulary smaller than its own tokens and an unknown type, naming the flag', async () => {
    await expect(run(process.execPath, [script, join(dir, 'x.gguf'), '--vocab', '10'])).rejects.toMatchObject({ stderr: expect.stringContaining('too small') });
    await expect(run(process.execPath, [script, join(dir, 'x.gguf'), '--type', 'q8_0'])).rejects.toMatchObject({ stderr: expect.stringContaining('--type must be one of f32, f16, q4_0') });
  });
});
