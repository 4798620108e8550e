/**
 * Where node-llama-cpp's time goes when several sequences generate at once: per configuration,
 * aggregate tokens/s, the number of llama_decode batches and their mean size, the mean time
 * inside a decode and inside a sampling call, all from wrapping the binding's context. Configs:
 *   chat     LlamaChat per sequence, as the worker and bench/gpu/run.ts use it
 *   evaluate sequence.evaluate() with greedy sampling: node-llama-cpp's lowest public layer
 *   steps    TokenSteps with greedy sampling, as Weft's generation loop steps a sequence, with
 *            the worker's node-llama-cpp patches (batch gathering, sampling on the main thread)
 * The patches are installed for every mode, so each runs node-llama-cpp as the worker runs it.
 * Run it twice with UV_THREADPOOL_SIZE unset and 16 to see whether samples wait for threads.
 *
 *   GPU_BENCH_MODEL=model.gguf node batching.mjs
 */
import { patchBatchGathering } from '../../apps/inference/src/llama/batch-gather-patch';
import { generateTokens } from '../../apps/inference/src/llama/generation-loop/token-steps';
import { loadLlama } from '../../apps/inference/src/llama/llama-binary';
import { patchSamplingOnTheMainThread } from '../../apps/inference/src/llama/sample-now-patch';
import type { LlamaContextSequence, LlamaModel } from '../../apps/inference/src/llama/llama-runtime';
import { table } from '../inference/stats';

const MODEL = process.env.GPU_BENCH_MODEL ?? '';
const SEQUENCES = Number(process.env.GPU_BENCH_SEQUENCES ?? 8);
const TOKENS = Number(process.env.GPU_BENCH_MAX_TOKENS ?? 128);
const FLASH = process.env.GPU_BENCH_FA !== 'off';
const THREADS = (process.env.GPU_BENCH_THREADS ?? '4').split(',').map(Number);
const MODES = (process.env.GPU_BENCH_MODES ?? 'chat,evaluate,steps').split(',') as ('chat' | 'evaluate' | 'steps')[];

type Lib = typeof import('node-llama-cpp');

interface Probe {
  batches: number[];
  decodeMs: number[];
  sampleMs: number[];
}

/** Wraps the binding's context object (a read-only native object) in a timing proxy. */
function probe(context: object): Probe {
  const p: Probe = { batches: [], decodeMs: [], sampleMs: [] };
  const holder = context as { _ctx: Record<string, unknown> };
  const real = holder._ctx;
  holder._ctx = new Proxy(real, {
    get(target, prop) {
      const value = target[prop as string];
      if (typeof value !== 'function') return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
      if (prop === 'initBatch') return (n: number) => (p.batches.push(n), call(n));
      const timed = (into: number[]) => async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await call(...args);
        } finally {
          into.push(performance.now() - started);
        }
      };
      if (prop === 'decodeBatch') return timed(p.decodeMs);
      if (prop === 'sampleToken') return timed(p.sampleMs);
      // Weft's build of the addon: the same sampling, on the calling thread (TokenSteps calls it directly).
      if (prop === 'sampleTokenNow')
        return (...args: unknown[]) => {
          const started = performance.now();
          try {
            return call(...args);
          } finally {
            p.sampleMs.push(performance.now() - started);
          }
        };
      return call;
    },
  });
  return p;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

async function main(): Promise<void> {
  if (!MODEL) throw new Error('GPU_BENCH_MODEL must be set');
  const lib: Lib = await import('node-llama-cpp');
  patchBatchGathering(lib);
  patchSamplingOnTheMainThread(lib);
  const llama = await loadLlama(lib, { logLevel: lib.LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: MODEL, gpuLayers: 'auto' });
  const rows: (string | number)[][] = [];
  for (const mode of MODES) {
    for (const threads of THREADS) {
    for (const concurrency of [1, SEQUENCES]) {
      const context = await model.createContext({ contextSize: 2048, sequences: concurrency, flashAttention: FLASH, threads });
      const sequences = Array.from({ length: concurrency }, () => context.getSequence());
      const run = (i: number) => (mode === 'chat' ? chat(lib, sequences[i]!, i) : mode === 'steps' ? steps(model, sequences[i]!, i) : evaluate(model, sequences[i]!, i));
      await run(0); // warm up
      const p = probe(context);
      const started = performance.now();
      const tokens = (await Promise.all(sequences.map((_, i) => run(i)))).reduce((a, b) => a + b, 0);
      const wallMs = performance.now() - started;
      rows.push([
        mode,
        threads,
        concurrency,
        process.env.UV_THREADPOOL_SIZE ?? '4 (default)',
        (tokens / wallMs) * 1000,
        p.batches.length,
        mean(p.batches),
        mean(p.decodeMs),
        mean(p.sampleMs),
        (p.decodeMs.reduce((a, b) => a + b, 0) / wallMs) * 100,
      ]);
      await context.dispose();
    }
    }
  }
  console.log(`${llama.gpu}, ${llama.buildType}, flash attention ${FLASH ? 'on' : 'off'}, ${TOKENS} tokens per sequence`);
  console.log(table(['mode', 'threads', 'sequences', 'uv threads', 'tok/s', 'decodes', 'mean batch', 'decode ms', 'sample ms', 'decode % of wall'], rows));
  await model.dispose();
  await llama.dispose();
}

async function chat(lib: Lib, sequence: LlamaContextSequence, i: number): Promise<number> {
  await sequence.clearHistory();
  const before = sequence.tokenMeter.getState();
  const chatter = new lib.LlamaChat({ contextSequence: sequence });
  await chatter.generateResponse([{ type: 'user', text: `Request ${i}-${Date.now()}: summarise what file number ${i} of the project does.` }], { maxTokens: TOKENS });
  chatter.dispose({ disposeSequence: false });
  return sequence.tokenMeter.diff(before).usedOutputTokens;
}

async function evaluate(model: LlamaModel, sequence: LlamaContextSequence, i: number): Promise<number> {
  await sequence.clearHistory();
  const generated: number[] = [];
  for await (const token of sequence.evaluate(model.tokenize(`Request ${i}-${Date.now()}: summarise what file number ${i} of the project does.`), { temperature: 0 })) {
    if (generated.push(token) >= TOKENS) break;
  }
  return generated.length;
}

async function steps(model: LlamaModel, sequence: LlamaContextSequence, i: number): Promise<number> {
  await sequence.clearHistory();
  // TokenSteps yields end-of-generation tokens; ended there, as the evaluate mode's generator ends.
  const iterator = await generateTokens(sequence, model.tokenize(`Request ${i}-${Date.now()}: summarise what file number ${i} of the project does.`), { temperature: 0, yieldEogToken: true });
  let generated = 0;
  try {
    while (generated < TOKENS) {
      const next = await iterator.next();
      if (next.done || model.isEogToken(next.value)) break;
      generated++;
    }
  } finally {
    await iterator.return();
  }
  return generated;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
