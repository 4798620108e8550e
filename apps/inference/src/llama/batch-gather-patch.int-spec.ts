import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir } from '../testing/worker-harness';
import { patchBatchGathering } from './batch-gather-patch';
import { loadLlama } from './llama-binary';
import type { Llama, LlamaContext, LlamaModel, NodeLlamaCpp } from './llama-runtime';

const SEQUENCES = 4;
const REPLY_TOKENS = 24;

/**
 * The patch on the real node-llama-cpp and the generated test model: four LlamaChat replies at
 * once, as the worker runs them, and the size of every batch llama.cpp decodes.
 */
describe('patchBatchGathering', () => {
  let dir: string;
  let lib: NodeLlamaCpp;
  let llama: Llama;
  let model: LlamaModel;

  beforeAll(async () => {
    dir = await makeTempDir('weft-batching-');
    const path = await makeTestModel(dir);
    lib = await import('node-llama-cpp');
    expect(patchBatchGathering(lib)).toBe(true);
    llama = await loadLlama(lib, { binary: 'auto', logLevel: lib.LlamaLogLevel.error });
    model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
  });

  afterAll(async () => {
    await model?.dispose();
    await llama?.dispose();
    await removeDir(dir);
  });

  interface Batch {
    size: number;
    /** The sequence of each item added, in the order added. */
    sequences: number[];
  }

  /** The batches the context decodes, in order (through its native handle). */
  function recordBatches(context: LlamaContext): Batch[] {
    const batches: Batch[] = [];
    const internals = context as unknown as { _ctx: Record<string, unknown> };
    const native = internals._ctx;
    internals._ctx = new Proxy(native, {
      get(target, property) {
        const value = target[property as string];
        if (property === 'initBatch') return (size: number) => (batches.push({ size, sequences: [] }), (value as (n: number) => unknown).call(target, size));
        if (property === 'addToBatch') return (sequence: number, ...rest: unknown[]) => (batches.at(-1)?.sequences.push(sequence), (value as (...args: unknown[]) => unknown).call(target, sequence, ...rest));
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return batches;
  }

  it('decodes every generating sequence in each step, in sequence order: one pass per token', async () => {
    const context = await model.createContext({ contextSize: 2048, sequences: SEQUENCES, threads: 1 });
    const batches = recordBatches(context);
    try {
      // Started last sequence first, so they queue in descending order.
      const sequences = Array.from({ length: SEQUENCES }, () => context.getSequence()).reverse();
      const replies = await Promise.all(
        sequences.map(async (contextSequence, i) => {
          const chat = new lib.LlamaChat({ contextSequence });
          // End-of-sequence banned, so all four replies run to the same length.
          const eos = model.tokens.eos;
          const tokenBias = eos === null ? undefined : new lib.TokenBias(model.tokenizer).set(eos, 'never');
          const { response } = await chat.generateResponse([{ type: 'user', text: `Request ${i}: list the files.` }], { maxTokens: REPLY_TOKENS, tokenBias, temperature: 0.8, seed: i });
          return model.tokenize(response).length;
        }),
      );
      expect(replies.every((tokens) => tokens > REPLY_TOKENS / 2)).toBe(true);
      // After the prompts (one or more larger batches), each step decodes the next token of every
      // sequence still generating. Without the patch each step held 3 of the 4 sequences, and
      // the 4 x 23 tokens took 32 batches, all but the last two of 3.
      const steps = batches.filter((batch) => batch.size <= SEQUENCES);
      const full = steps.filter((batch) => batch.size === SEQUENCES).length;
      expect(steps.length).toBeLessThanOrEqual(REPLY_TOKENS + 2);
      expect(full).toBeGreaterThanOrEqual(REPLY_TOKENS - 4);
      // With a KV stream per sequence, llama.cpp takes a batch's sequences in one pass only while
      // their ids ascend by one; unpatched, the queue's order (7,6,5,4) cost a pass per sequence.
      for (const { sequences } of batches) expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    } finally {
      await context.dispose();
    }
  });
});
