/**
 * The GPU half of scripts/gpu-bench/run.sh: node-llama-cpp in-process (the worker's library,
 * on the build scripts/llama/build-addon.sh made) against llama.cpp's llama-server built in the
 * same CMake tree, on one GGUF, at concurrency 1 and 8, with flash attention off (node-llama-cpp's
 * and the worker's default) and on (llama-server's default on CUDA). Alternating sides, best of
 * two rounds. Prints one table; `GPU_BENCH_JSON` also writes the rows as JSON.
 *
 *   GPU_BENCH_MODEL=model.gguf LLAMA_SERVER_BIN=.../llama-server node bench.cjs
 */
import { writeFileSync } from 'node:fs';
import { DirectLlama } from '../inference/direct';
import { LlamaServer } from '../inference/llama-server';
import { best, runLevel, table, type LevelResult, type RunSample } from '../inference/stats';

const MODEL = required('GPU_BENCH_MODEL');
const SERVER_BIN = required('LLAMA_SERVER_BIN');
const LEVELS = (process.env.GPU_BENCH_LEVELS ?? '1,8').split(',').map(Number);
const FLASH = (process.env.GPU_BENCH_FA ?? 'off,on').split(',').map((v) => v === 'on');
const MAX_TOKENS = Number(process.env.GPU_BENCH_MAX_TOKENS ?? 128);
const ROUNDS = Number(process.env.GPU_BENCH_ROUNDS ?? 2);
/** Per sequence (and per llama-server slot). */
const CONTEXT = 4096;
const SEQUENCES = Math.max(...LEVELS);
const THREADS = Number(process.env.GPU_BENCH_THREADS ?? 4);

// Several hundred tokens (about 710 with the generated model's small vocabulary), so that each
// request has a prompt to evaluate as well as a reply to write.
const SYSTEM = Array.from({ length: 6 }, (_, i) => `Rule ${i + 1}: you are a careful coding agent in a TypeScript monorepo; read before you edit, run the tests after every change, keep replies short and name the files you touched.`).join(' ');

interface Row {
  flashAttention: boolean;
  concurrency: number;
  direct: LevelResult;
  server: LevelResult;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  let backend = '';
  for (const flashAttention of FLASH) {
    const direct = await DirectLlama.open({ modelPath: MODEL, contextSize: CONTEXT, sequences: SEQUENCES, threads: THREADS, flashAttention });
    const server = await LlamaServer.start({ bin: SERVER_BIN, modelPath: MODEL, contextSize: CONTEXT, parallel: SEQUENCES, threads: THREADS, gpuLayers: 999, flashAttention });
    backend = `node-llama-cpp: ${direct.gpu}, ${direct.buildType}`;
    try {
      await direct.generate('warm up', 'hello', 8);
      await server.generate('warm up', 'hello', 8);
      for (const c of LEVELS) {
        const prompt = (i: number, round: number) => ({ system: `Request ${c}-${round}-${i}. ${SYSTEM}`, user: `Summarise what file number ${i} of the project does.` });
        const sides: ((i: number, round: number) => Promise<RunSample>)[] = [
          (i, round) => direct.generate(prompt(i, round).system, prompt(i, round).user, MAX_TOKENS),
          (i, round) => server.generate(prompt(i, round).system, prompt(i, round).user, MAX_TOKENS),
        ];
        const results = sides.map(() => [] as LevelResult[]);
        for (let round = 0; round < ROUNDS; round++) {
          for (const [s, side] of sides.entries()) results[s]?.push(await runLevel(c, Math.max(4, c * 2), (i) => side(i, round)));
        }
        const [d, s] = results.map(best) as [LevelResult, LevelResult];
        rows.push({ flashAttention, concurrency: c, direct: d, server: s });
        console.log(`FA ${flashAttention ? 'on' : 'off'}, concurrency ${c}: node-llama-cpp ${d.tokensPerSecond.toFixed(1)} tok/s, llama-server ${s.tokensPerSecond.toFixed(1)} tok/s`);
      }
    } finally {
      await server.close();
      await direct.close();
    }
  }
  console.log(`\n${backend}; ${MAX_TOKENS} tokens per reply, prompts with no shared prefix, ${SEQUENCES} sequences/slots of ${CONTEXT} tokens, best of ${ROUNDS} alternating rounds`);
  console.log(
    table(
      ['flash attn', 'concurrency', 'requests', 'direct TTFT p50 ms', 'p99', 'server TTFT p50 ms', 'p99', 'direct tok/s', 'server tok/s', 'direct/server', 'prompt tokens/req: direct', 'server', 'generated/req: direct', 'server'],
      rows.map((r) => [
        r.flashAttention ? 'on' : 'off',
        r.concurrency,
        r.direct.requests,
        r.direct.ttftP50,
        r.direct.ttftP99,
        r.server.ttftP50,
        r.server.ttftP99,
        r.direct.tokensPerSecond,
        r.server.tokensPerSecond,
        `${(r.direct.tokensPerSecond / r.server.tokensPerSecond).toFixed(2)}x`,
        r.direct.evaluatedPerRequest,
        r.server.evaluatedPerRequest,
        r.direct.generatedPerRequest,
        r.server.generatedPerRequest,
      ]),
    ),
  );
  if (process.env.GPU_BENCH_JSON) writeFileSync(process.env.GPU_BENCH_JSON, JSON.stringify({ model: MODEL, backend, rows }, null, 2));
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
