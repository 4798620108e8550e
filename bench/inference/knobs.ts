/**
 * `npm run bench:llama-knobs`: where node-llama-cpp's decoding time goes on this machine, one
 * change at a time, in one process on the benchmark GGUF (as bench:inference writes it): tokens/s
 * generating a 48-token reply at concurrency 1 through
 *   - LlamaChat.generateResponse, as the worker does (flash attention as node-llama-cpp decides);
 *   - the same with flash attention forced on, and forced off;
 *   - the same with the context's batch size at 2048 (llama-server's n_batch);
 *   - a bare loop over `sequence.evaluate` on the same prompt tokens, no chat layer at all:
 *     what llama.cpp itself costs per token through the binding (and with flash attention off).
 * Rounds alternate so a load change on the machine hits every row alike. Not a test.
 */
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';

type Lib = typeof import('node-llama-cpp');
type Llama = Awaited<ReturnType<Lib['getLlama']>>;
type Model = Awaited<ReturnType<Llama['loadModel']>>;
type Context = Awaited<ReturnType<Model['createContext']>>;

const root = resolve(__dirname, '../..');
const MODEL = process.env.BENCH_MODEL ?? join(root, '.weft-test/bench/bench-1024x8-f16-ctx8k.gguf');
const THREADS = Number(process.env.BENCH_THREADS ?? Math.max(1, cpus().length));
const TOKENS = Number(process.env.BENCH_TOKENS ?? 48);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SYSTEM = 'You are a careful coding agent working in a TypeScript monorepo. Read before you edit, run the tests after every change, and answer briefly.';
const USER = 'Explain what the build script does and which tests cover the parser.';

interface Variant {
  name: string;
  context: Parameters<Model['createContext']>[0];
  run: (lib: Lib, model: Model, context: Context) => Promise<{ tokens: number; ms: number }>;
}

async function viaChat(lib: Lib, model: Model, context: Context) {
  const sequence = context.getSequence();
  const chat = new lib.LlamaChat({ contextSequence: sequence, chatWrapper: lib.resolveChatWrapper(model) ?? 'auto' });
  try {
    let first = 0;
    const before = sequence.tokenMeter.getState();
    const started = performance.now();
    await chat.generateResponse(
      [
        { type: 'system', text: SYSTEM },
        { type: 'user', text: USER },
      ],
      { maxTokens: TOKENS, onToken: () => (first ||= performance.now()) },
    );
    const tokens = sequence.tokenMeter.diff(before).usedOutputTokens;
    // Decoding only: from the first token on, so the prompt's evaluation is not counted.
    return { tokens: tokens - 1, ms: performance.now() - (first || started) };
  } finally {
    chat.dispose();
  }
}

async function viaEvaluate(lib: Lib, model: Model, context: Context) {
  const sequence = context.getSequence();
  try {
    const prompt = model.tokenize(`${SYSTEM}\n${USER}\n`);
    let count = 0;
    let first = 0;
    for await (const token of sequence.evaluate(prompt, { temperature: 0.8, topK: 40, topP: 0.95 })) {
      void token;
      first ||= performance.now();
      if (++count >= TOKENS) break;
    }
    return { tokens: count - 1, ms: performance.now() - first };
  } finally {
    await sequence.dispose();
  }
}

const variants: Variant[] = [
  { name: 'LlamaChat (as the worker)', context: {}, run: viaChat },
  { name: 'LlamaChat, flash attention on', context: { flashAttention: true }, run: viaChat },
  { name: 'LlamaChat, flash attention off', context: { flashAttention: false }, run: viaChat },
  { name: 'LlamaChat, batch size 2048', context: { batchSize: 2048 }, run: viaChat },
  { name: 'sequence.evaluate, no chat layer', context: {}, run: viaEvaluate },
  { name: 'sequence.evaluate, flash attention off', context: { flashAttention: false }, run: viaEvaluate },
];

async function main(): Promise<void> {
  if (!existsSync(MODEL)) throw new Error(`${MODEL} is missing: run npm run bench:inference once (it writes it), or set BENCH_MODEL`);
  const lib = await import('node-llama-cpp');
  const llama = await lib.getLlama({ gpu: 'auto', build: 'never', logLevel: lib.LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: MODEL, gpuLayers: 'auto' });
  console.log(`${MODEL} · backend ${String(llama.gpu || 'cpu')} · ${THREADS} threads · ${TOKENS} tokens · ${ROUNDS} rounds, best of each\n`);
  const best = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) {
      const context = await model.createContext({ contextSize: 8192, sequences: 1, threads: THREADS, ...variant.context });
      try {
        const { tokens, ms } = await variant.run(lib, model, context);
        best.set(variant.name, Math.max(best.get(variant.name) ?? 0, (tokens * 1000) / ms));
      } finally {
        await context.dispose();
      }
    }
  }
  const baseline = best.get(variants[0]!.name) ?? 1;
  const width = Math.max(...variants.map((v) => v.name.length));
  console.log(`${'variant'.padEnd(width)}  decode tok/s  vs the worker's`);
  for (const variant of variants) {
    const rate = best.get(variant.name) ?? 0;
    console.log(`${variant.name.padEnd(width)}  ${rate.toFixed(1).padStart(12)}  ${(rate / baseline).toFixed(2).padStart(14)}x`);
  }
  await model.dispose();
  await llama.dispose();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
