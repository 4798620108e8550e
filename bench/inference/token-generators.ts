import { generateTokens, TokenSteps, type EvaluateOptions, type TokenIterator } from '../../apps/inference/src/llama/generation-loop/token-steps';
import { loadLlama } from '../../apps/inference/src/llama/llama-binary';
import { patchBatchGathering } from '../../apps/inference/src/llama/batch-gather-patch';
import { patchSamplingOnTheMainThread } from '../../apps/inference/src/llama/sample-now-patch';
import type { LlamaContextSequence, LlamaModel } from '../../apps/inference/src/llama/llama-runtime';
import { median, table } from './stats';

type Token = ReturnType<LlamaModel['tokenize']>[number];

export interface GeneratorBenchOptions {
  modelPath: string;
  contextSize: number;
  sequences: number;
  threads: number;
  rounds: number;
}

const GENERATORS = ['evaluate', 'TokenSteps'] as const;
type Generator = (typeof GENERATORS)[number];
/** Greedy, so that both generators make the same tokens. */
const OPTIONS: EvaluateOptions = { temperature: 0, yieldEogToken: true };
const TOKENS_PER_ROUND = 48;

interface Round {
  tokensPerSecond: number;
  /** This process's main thread (where both run; decodes run on libuv's pool) per generated token. */
  mainThreadCpuUsPerToken: number;
}

/**
 * node-llama-cpp's `sequence.evaluate` against Weft's TokenSteps (the worker's generation loop
 * steps with it), nothing else around them: on one context, sequences holding the same prompt
 * generate the same greedy tokens with one then the other, in paired rounds whose order
 * alternates, each round starting from the prompt again. Two cases: every sequence generating at
 * once on a short prompt, and one sequence on a prompt that fills most of the context, where
 * evaluate's copy of the sequence's token list on every token (`concat`) grows with the context.
 */
export async function compareTokenGenerators(options: GeneratorBenchOptions): Promise<void> {
  const lib = await import('node-llama-cpp');
  patchBatchGathering(lib);
  patchSamplingOnTheMainThread(lib);
  const llama = await loadLlama(lib, { binary: 'auto', logLevel: lib.LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 'auto' });
  const context = await model.createContext({ contextSize: options.contextSize, sequences: options.sequences, threads: options.threads });
  try {
    const sequences = Array.from({ length: options.sequences }, () => context.getSequence());
    const text = (n: number) => `Request ${n}: you are a careful coding agent working in a TypeScript monorepo. Read before you edit and run the tests after every change. `;
    const cases = [
      { name: `${sequences.length} sequences, short prompts`, sequences, prompt: (i: number) => model.tokenize(text(i)) },
      {
        name: '1 sequence, a prompt of three quarters of the context',
        sequences: sequences.slice(0, 1),
        prompt: (i: number) => model.tokenize(Array.from({ length: 400 }, (_, k) => text(i * 1000 + k)).join('')).slice(0, Math.floor(options.contextSize * 0.75)),
      },
    ];
    const rows: (string | number)[][] = [];
    for (const { name, sequences: used, prompt } of cases) {
      const prompts = used.map((_, i) => prompt(i));
      await Promise.all(used.map((sequence, i) => prefill(sequence, prompts[i] as Token[])));
      // A round of each first, unmeasured: both paths compiled and warm before any is timed.
      for (const generator of GENERATORS) await generateOnAll(generator, used, prompts);
      const rounds = new Map<Generator, Round[]>(GENERATORS.map((g) => [g, []]));
      const made = new Map<Generator, Token[][]>();
      for (let round = 0; round < options.rounds; round++) {
        for (const generator of round % 2 === 0 ? GENERATORS : [...GENERATORS].reverse()) {
          const { result, tokens } = await generateOnAll(generator, used, prompts);
          rounds.get(generator)?.push(result);
          made.set(generator, tokens);
        }
      }
      const same = JSON.stringify(made.get('evaluate')) === JSON.stringify(made.get('TokenSteps'));
      const med = (g: Generator, f: (r: Round) => number) => median((rounds.get(g) ?? []).map(f));
      const ratio = (f: (r: Round) => number) => median((rounds.get('TokenSteps') ?? []).map((r, i) => f(r) / f((rounds.get('evaluate') ?? [])[i] as Round)));
      rows.push([
        name,
        prompts[0]?.length ?? 0,
        med('evaluate', (r) => r.tokensPerSecond).toFixed(1),
        med('TokenSteps', (r) => r.tokensPerSecond).toFixed(1),
        `${ratio((r) => r.tokensPerSecond).toFixed(2)}x`,
        med('evaluate', (r) => r.mainThreadCpuUsPerToken).toFixed(0),
        med('TokenSteps', (r) => r.mainThreadCpuUsPerToken).toFixed(0),
        `${ratio((r) => r.mainThreadCpuUsPerToken).toFixed(2)}x`,
        same ? 'yes' : 'NO',
      ]);
    }
    console.log(
      `\nToken generators: node-llama-cpp's sequence.evaluate vs Weft's TokenSteps on one context (${TOKENS_PER_ROUND} greedy tokens per sequence per round, median of ${options.rounds} paired rounds in alternating order)`,
    );
    console.log(
      table(
        ['case', 'prompt tokens', 'evaluate tok/s', 'TokenSteps tok/s', 'TokenSteps/evaluate', 'main-thread CPU µs/token: evaluate', 'TokenSteps', 'TokenSteps/evaluate', 'same tokens'],
        rows,
      ),
    );
  } finally {
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  }
}

/** The prompt decoded into the sequence once; every round then starts from it. */
async function prefill(sequence: LlamaContextSequence, prompt: Token[]): Promise<void> {
  await sequence.clearHistory();
  const iterator = await generateTokens(sequence, prompt, OPTIONS);
  await iterator.next();
  await iterator.return();
}

async function generateOnAll(generator: Generator, sequences: LlamaContextSequence[], prompts: Token[][]): Promise<{ result: Round; tokens: Token[][] }> {
  // Back to the prompt less its last token, which each round evaluates again for its first logits.
  await Promise.all(sequences.map((sequence, i) => sequence.eraseContextTokenRanges([{ start: (prompts[i] as Token[]).length - 1, end: sequence.nextTokenIndex }])));
  const cpuBefore = process.threadCpuUsage();
  const started = performance.now();
  const tokens = await Promise.all(
    sequences.map(async (sequence, i) => {
      const last = [(prompts[i] as Token[]).at(-1) as Token];
      const iterator: TokenIterator = generator === 'evaluate' ? sequence.evaluate(last, OPTIONS) : await generateTokens(sequence, last, OPTIONS);
      if (generator === 'TokenSteps' && !(iterator instanceof TokenSteps)) throw new Error('TokenSteps fell back to evaluate on this node-llama-cpp');
      const made: Token[] = [];
      try {
        while (made.length < TOKENS_PER_ROUND) made.push((await iterator.next()).value as Token);
      } finally {
        await iterator.return();
      }
      return made;
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.threadCpuUsage(cpuBefore);
  const count = sequences.length * TOKENS_PER_ROUND;
  return { result: { tokensPerSecond: (count / wallMs) * 1000, mainThreadCpuUsPerToken: (cpu.user + cpu.system) / count }, tokens };
}
