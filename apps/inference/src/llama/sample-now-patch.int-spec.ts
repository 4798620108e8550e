import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir } from '../testing/worker-harness';
import { loadLlama } from './llama-binary';
import type { Llama, LlamaContext, LlamaModel, NodeLlamaCpp } from './llama-runtime';
import { patchSamplingOnTheMainThread, samplesOnTheCallingThread } from './sample-now-patch';

type Sequence = ReturnType<LlamaContext['getSequence']>;
type Token = ReturnType<LlamaModel['tokenize']>[number];
type EvaluateOptions = NonNullable<Parameters<Sequence['evaluate']>[1]>;

const REPLY_TOKENS = 24;
/**
 * CI's llama.cpp step builds Weft's addon and sets this: there the comparisons must run, not be
 * skipped because the prebuilt binary was loaded.
 */
const EXPECT_WEFT_BUILD = process.env.WEFT_EXPECT_SAMPLE_NOW === '1';

/** Counts the context's sampling calls by where they run: its native handle, before its first batch. */
function countSampling(context: LlamaContext): { now: number; pool: number } {
  const counts = { now: 0, pool: 0 };
  const native = (context as unknown as { _ctx: Record<string, (...args: unknown[]) => unknown> })._ctx;
  const { sampleToken, sampleTokenNow } = native;
  const counted = (name: 'sampleToken' | 'sampleTokenNow', method: ((...args: unknown[]) => unknown) | undefined, key: keyof typeof counts) => {
    if (typeof method !== 'function') return;
    Object.defineProperty(native, name, { configurable: true, value: (...args: unknown[]) => (counts[key]++, method.apply(native, args)) });
  };
  counted('sampleToken', sampleToken, 'pool');
  counted('sampleTokenNow', sampleTokenNow, 'now');
  return counts;
}

/**
 * The patch on the real node-llama-cpp and the generated test model. With Weft's build of the
 * addon (scripts/llama/addon-patches), a plain sampling call runs on the main thread and picks
 * the token the thread pool's job picks; with node-llama-cpp's prebuilt binary, which lacks it,
 * every call stays on the pool.
 */
describe('patchSamplingOnTheMainThread', () => {
  let dir: string;
  let lib: NodeLlamaCpp;
  let llama: Llama;
  let model: LlamaModel;
  let weftBuild = false;

  beforeAll(async () => {
    dir = await makeTempDir('weft-sample-now-');
    const path = await makeTestModel(dir);
    lib = await import('node-llama-cpp');
    expect(patchSamplingOnTheMainThread(lib)).toBe(true);
    llama = await loadLlama(lib, { binary: 'auto', logLevel: lib.LlamaLogLevel.error });
    model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
    weftBuild = samplesOnTheCallingThread(llama);
  });

  afterAll(async () => {
    await model?.dispose();
    await llama?.dispose();
    await removeDir(dir);
  });

  it('finds sampleTokenNow in Weft’s build of the addon and not in the prebuilt', () => {
    if (EXPECT_WEFT_BUILD) expect(llama.buildType).toBe('localBuild');
    // A local build from before the patch has no sampleTokenNow: `npm run setup` builds it again.
    expect(weftBuild).toBe(llama.buildType === 'localBuild');
  });

  /** Generates on a fresh sequence, alone in its batches: plain (`evaluate`) or asking for each token's confidence. */
  async function generate(context: LlamaContext, options: (generated: Token[]) => EvaluateOptions, withConfidence: boolean): Promise<Token[]> {
    const sequence = context.getSequence();
    const generated: Token[] = [];
    const prompt = model.tokenize('Write a function that lists the files of a folder.');
    const evaluateOptions = options(generated);
    const iterator = withConfidence
      ? mapTokens(sequence.evaluateWithMetadata(prompt, { confidence: true }, evaluateOptions))
      : sequence.evaluate(prompt, evaluateOptions);
    try {
      for await (const token of iterator) {
        generated.push(token);
        if (generated.length >= REPLY_TOKENS) break;
      }
    } finally {
      await sequence.dispose();
    }
    return generated;
  }

  async function* mapTokens(outputs: AsyncGenerator<{ token: Token }, void, void | Token | Token[]>): AsyncGenerator<Token, void, void | Token | Token[]> {
    for await (const output of outputs) yield output.token;
  }

  const eosNever = () => {
    const eos = model.tokens.eos;
    return eos === null ? undefined : new lib.TokenBias(model.tokenizer).set(eos, 'never');
  };

  const samplings: [string, (generated: Token[]) => EvaluateOptions][] = [
    ['greedy', () => ({ temperature: 0, tokenBias: eosNever() })],
    ['seeded, with top-k, top-p and min-p', () => ({ temperature: 0.9, topK: 40, topP: 0.9, minP: 0.02, seed: 7, tokenBias: eosNever() })],
    ['greedy with a repeat penalty', (generated) => ({ temperature: 0, tokenBias: eosNever(), repeatPenalty: { penalty: 1.5, punishTokens: () => generated.slice(-64) } })],
  ];

  /** The comparisons need Weft's build; with the prebuilt they are skipped, except where CI built it. */
  function needWeftBuild(skip: () => void): void {
    if (weftBuild) return;
    if (EXPECT_WEFT_BUILD) throw new Error('WEFT_EXPECT_SAMPLE_NOW=1, but the loaded llama.cpp binary has no sampleTokenNow');
    skip();
  }

  it.for(samplings)('samples the pool’s tokens on the main thread: %s', async ([, options], { skip }) => {
    needWeftBuild(skip);
    const context = await model.createContext({ contextSize: 1024, sequences: 1, threads: 1 });
    try {
      const counts = countSampling(context);
      const onMainThread = await generate(context, options, false);
      expect(counts).toEqual({ now: REPLY_TOKENS, pool: 0 });
      // Asking for the confidence takes node-llama-cpp's other form of the call, which the patch leaves on the pool.
      const onThePool = await generate(context, options, true);
      expect(counts).toEqual({ now: REPLY_TOKENS, pool: REPLY_TOKENS });
      expect(onMainThread).toEqual(onThePool);
    } finally {
      await context.dispose();
    }
  });

  it('samples under a grammar on the main thread as on the pool', async ({ skip }) => {
    needWeftBuild(skip);
    const grammar = await llama.createGrammarForJsonSchema({ type: 'object', properties: { path: { type: 'string' }, lines: { type: 'integer' } }, required: ['path', 'lines'] });
    const context = await model.createContext({ contextSize: 1024, sequences: 1, threads: 1 });
    try {
      const counts = countSampling(context);
      const withGrammar = () => ({ temperature: 0, grammarEvaluationState: new lib.LlamaGrammarEvaluationState({ model, grammar }) });
      const onMainThread = await generate(context, withGrammar, false);
      const onThePool = await generate(context, withGrammar, true);
      expect(counts.now).toBe(REPLY_TOKENS);
      expect(onMainThread).toEqual(onThePool);
      expect(model.detokenize(onMainThread)).toMatch(/^\s*\{\s*"path"/);
    } finally {
      await context.dispose();
    }
  });

  it('samples every sequence of a shared batch on the main thread, with no pool job', async () => {
    const context = await model.createContext({ contextSize: 2048, sequences: 4, threads: 1 });
    try {
      const counts = countSampling(context);
      const replies = await Promise.all(Array.from({ length: 4 }, () => generate(context, () => ({ temperature: 0, tokenBias: eosNever() }), false)));
      expect(replies.map((reply) => reply.length)).toEqual([REPLY_TOKENS, REPLY_TOKENS, REPLY_TOKENS, REPLY_TOKENS]);
      // The prebuilt samples each token with a pool job; Weft's build with none.
      expect(counts).toEqual(weftBuild ? { now: 4 * REPLY_TOKENS, pool: 0 } : { now: 0, pool: 4 * REPLY_TOKENS });
    } finally {
      await context.dispose();
    }
  });
});
