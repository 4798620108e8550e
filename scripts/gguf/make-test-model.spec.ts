import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = resolve(__dirname, 'make-test-model.mjs');
const run = promisify(execFile);

describe('make-test-model', () => {
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
});
