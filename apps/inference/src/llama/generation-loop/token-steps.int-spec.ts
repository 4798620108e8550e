import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir } from '../../testing/worker-harness';
import { LlamaRuntime, type LlamaBackend, type LlamaContext, type LlamaContextSequence, type LlamaModel } from '../llama-runtime';
import { generateTokens, TokenSteps, type EvaluateOptions, type TokenIterator } from './token-steps';

type Token = ReturnType<LlamaModel['tokenize']>[number];

/**
 * TokenSteps against node-llama-cpp's own `sequence.evaluate`, on the random-weight test model,
 * each on a sequence of its own in one context: from the same tokens and sampling settings they
 * must generate the same tokens, leave the same tokens in the sequence and count the same usage,
 * including where the context fills and must shift.
 */
describe('TokenSteps on a real model', () => {
  let dir: string;
  let runtime: LlamaRuntime;
  let backend: LlamaBackend;
  let model: LlamaModel;
  let context: LlamaContext;
  let evaluated: LlamaContextSequence;
  let stepped: LlamaContextSequence;

  beforeAll(async () => {
    dir = await makeTempDir('token-steps-');
    const path = await makeTestModel(dir);
    runtime = new LlamaRuntime(createLogger('test', 'silent'));
    backend = await runtime.get();
    model = await backend.llama.loadModel({ modelPath: path, gpuLayers: 0 });
    context = await model.createContext({ contextSize: 256, sequences: 2, threads: 1 });
    [evaluated, stepped] = [context.getSequence(), context.getSequence()];
  });

  afterAll(async () => {
    await context?.dispose();
    await model?.dispose();
    await runtime?.dispose();
    await removeDir(dir);
  });

  async function take(iterator: TokenIterator, count: number): Promise<Token[]> {
    const tokens: Token[] = [];
    try {
      while (tokens.length < count) {
        const next = await iterator.next();
        if (next.done) break;
        tokens.push(next.value);
      }
    } finally {
      await iterator.return();
    }
    return tokens;
  }

  /** Both ways from an empty sequence, one after the other (a shared batch would change nothing but the timing). */
  async function both(prompt: readonly Token[], count: number, options: EvaluateOptions) {
    await evaluated.clearHistory();
    await stepped.clearHistory();
    const meters = [evaluated.tokenMeter.getState(), stepped.tokenMeter.getState()] as const;
    const steps = await generateTokens(stepped, prompt, options);
    const byEvaluate = await take(evaluated.evaluate([...prompt], options), count);
    const bySteps = await take(steps, count);
    return {
      steps,
      byEvaluate,
      bySteps,
      usage: [evaluated.tokenMeter.diff(meters[0]), stepped.tokenMeter.diff(meters[1])],
    };
  }

  const prompt = () => model.tokenize('You are a careful coding agent. Summarise what the build script of this project does, step by step.');

  it('drives the sequence itself on this node-llama-cpp, rather than falling back to evaluate', async () => {
    const { steps } = await both(prompt(), 1, { temperature: 0, yieldEogToken: true });
    expect(steps).toBeInstanceOf(TokenSteps);
  });

  it('leaves a generation that ends at an end-of-generation token (no yieldEogToken) to evaluate', async () => {
    await stepped.clearHistory();
    const iterator = await generateTokens(stepped, prompt(), { temperature: 0 });
    expect(iterator).not.toBeInstanceOf(TokenSteps);
    await iterator.return();
  });

  it('generates the tokens evaluate generates, greedily and sampled with a seed, and leaves the same tokens in the sequence', async () => {
    for (const options of [
      { temperature: 0, yieldEogToken: true },
      { temperature: 0.9, topK: 30, topP: 0.9, minP: 0.02, seed: 7, yieldEogToken: true },
    ] satisfies EvaluateOptions[]) {
      const { byEvaluate, bySteps, usage } = await both(prompt(), 40, options);
      expect(bySteps).toHaveLength(40);
      expect(bySteps).toEqual(byEvaluate);
      expect(stepped.contextTokens).toEqual(evaluated.contextTokens);
      expect(stepped.nextTokenIndex).toBe(evaluated.nextTokenIndex);
      expect(usage[1]).toEqual(usage[0]);
    }
  });

  it('sets a repeat penalty over the tokens of the moment at every step, as evaluate does', async () => {
    const generated: Token[] = [];
    const penalty = { punishTokens: () => generated.slice(-64), penalty: 1.5 };
    const options: EvaluateOptions = { temperature: 0, repeatPenalty: penalty, yieldEogToken: true };
    const reference: Token[] = [];
    await evaluated.clearHistory();
    const byEvaluate = evaluated.evaluate([...prompt()], { ...options, repeatPenalty: { ...penalty, punishTokens: () => reference.slice(-64) } });
    for (let i = 0; i < 30; i++) reference.push((await byEvaluate.next()).value as Token);
    await byEvaluate.return();

    await stepped.clearHistory();
    const steps = await generateTokens(stepped, prompt(), options);
    for (let i = 0; i < 30; i++) generated.push((await steps.next()).value as Token);
    await steps.return();
    expect(generated).toEqual(reference);
  });

  it('shifts the context as evaluate does when the sequence fills it', async () => {
    const long = model.tokenize('Explain every file of the repository in detail, including tests. '.repeat(20)).slice(0, Math.floor(stepped.contextSize * 0.7));
    const count = stepped.contextSize - long.length + 40;
    const { byEvaluate, bySteps } = await both(long, count, { temperature: 0, yieldEogToken: true });
    expect(bySteps).toHaveLength(count);
    expect(bySteps).toEqual(byEvaluate);
    expect(stepped.contextTokens).toEqual(evaluated.contextTokens);
    expect(stepped.nextTokenIndex).toBeLessThan(stepped.contextSize);
  });

  it('keeps the token list it was given untouched: the sequence grows a copy of its own', async () => {
    await stepped.clearHistory();
    const first = await generateTokens(stepped, prompt(), { temperature: 0, yieldEogToken: true });
    await take(first, 3);
    const before = (stepped as unknown as { _contextTokens: Token[] })._contextTokens;
    const held = [...before];
    const steps = await generateTokens(stepped, [before.at(-1) as Token], { temperature: 0, yieldEogToken: true });
    await take(steps, 5);
    expect(before).toEqual(held);
    expect(stepped.contextTokens).toHaveLength(held.length + 5);
  });

  it('takes no checkpoint after each batch for a model that needs none, where evaluate asks every step', async () => {
    expect(stepped.needsCheckpoints).toBe(false);
    const counted = (sequence: LlamaContextSequence) => {
      const internals = sequence as unknown as { _takeIntervalCheckpointIfNeededAfterBatch: (length: number) => unknown };
      const own = internals._takeIntervalCheckpointIfNeededAfterBatch;
      const calls = { count: 0, restore: () => (internals._takeIntervalCheckpointIfNeededAfterBatch = own) };
      internals._takeIntervalCheckpointIfNeededAfterBatch = (length) => (calls.count++, own(length));
      return calls;
    };
    const [byEvaluate, bySteps] = [counted(evaluated), counted(stepped)];
    try {
      const { bySteps: tokens } = await both(prompt(), 6, { temperature: 0, yieldEogToken: true });
      expect(tokens).toHaveLength(6);
      expect(byEvaluate.count).toBeGreaterThanOrEqual(6);
      expect(bySteps.count).toBe(0);
    } finally {
      byEvaluate.restore();
      bySteps.restore();
    }
  });

  it('refuses an empty start, and ends once returned', async () => {
    await expect(generateTokens(stepped, [], { temperature: 0, yieldEogToken: true })).rejects.toThrow('no tokens to evaluate');
    await stepped.clearHistory();
    const steps = await generateTokens(stepped, prompt(), { temperature: 0, yieldEogToken: true });
    await steps.return();
    await expect(steps.next()).resolves.toEqual({ done: true, value: undefined });
  });
});
