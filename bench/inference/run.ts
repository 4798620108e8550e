/**
 * `npm run bench:inference`: node-llama-cpp called directly in this process vs the Weft inference
 * worker reached over NATS, on a benchmark-shape GGUF from the project's generator (1024 wide,
 * 8 layers, f16, ~180 MB, 8k context; cached under .weft-test/bench). Concurrency 1, 4 and 8: TTFT p50/p99,
 * aggregate tokens/s and the Weft/direct ratio. Then a 10-turn agent transcript replayed with the
 * session's KV cache kept and with it evicted before every turn: prompt tokens evaluated per turn.
 * Not a test: it prints tables. Needs Docker for NATS. The HTTP → gateway → SSE leg is not
 * included (it needs Redis, a user, a workspace and the agent loop around every request).
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { ChatMessage, ToolDefinition } from '@weft/contracts';
import { startNats } from '../../test/support/containers';
import { DirectLlama } from './direct';
import { runLevel, table, type LevelResult } from './stats';
import { WeftPath } from './weft';

const root = resolve(__dirname, '../..');
const SHAPE = ['--embedding', '1024', '--layers', '8', '--heads', '16', '--kv-heads', '4', '--feed-forward', '2816', '--context', '8192', '--merges', '400', '--f16'];
const MODEL = join(root, '.weft-test/bench/bench-1024x8-f16-ctx8k.gguf');
const CONTEXT = 8192;
const SEQUENCES = 8;
const THREADS = Number(process.env.BENCH_THREADS ?? Math.max(1, cpus().length));
const LEVELS = [1, 4, 8];
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? 48);
const TURNS = 10;
const ROUNDS = 2;

const SYSTEM = 'You are a careful coding agent working in a TypeScript monorepo. Read before you edit, run the tests after every change, and answer briefly.';

async function main(): Promise<void> {
  await ensureModel();
  console.log(`model ${MODEL} · ${THREADS} threads · context ${CONTEXT} · ${SEQUENCES} sequences · ${MAX_TOKENS} tokens per reply\n`);
  const requestsFor = (c: number) => Math.max(3, c * 2);
  // Every request opens with its own line, so no two share a prefix a cache could reuse.
  const prompt = (i: number, c: number) => ({ system: `Request ${c}-${i}-${Date.now()}. ${SYSTEM}`, user: `Summarise what file number ${i} of the project does.` });

  const direct = await DirectLlama.open({ modelPath: MODEL, contextSize: CONTEXT, sequences: SEQUENCES, threads: THREADS });
  const gpu = direct.gpu;
  const nats = await startNats();
  const weft = await WeftPath.start({ natsUrl: nats.url, modelPath: MODEL, contextSize: CONTEXT, sequences: SEQUENCES, threads: THREADS });
  try {
    await direct.generate('warm up', 'hello', 4);
    await weft.generate({ model: 'bench', messages: [{ role: 'user', content: 'warm up' }], maxTokens: 4 });
    await weft.generate({ model: 'bench-1', messages: [{ role: 'user', content: 'warm up' }], maxTokens: 4 });
    const directResults: LevelResult[] = [];
    const weftResults: LevelResult[] = [];
    for (const c of LEVELS) {
      // Alternating sides, best of ROUNDS: a shared machine's background load hits both alike.
      const d: LevelResult[] = [];
      const w: LevelResult[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        d.push(await runLevel(c, requestsFor(c), (i) => direct.generate(prompt(i, c).system, prompt(i, c).user, MAX_TOKENS)));
        w.push(
          await runLevel(c, requestsFor(c), (i) =>
            weft.generate({
              model: 'bench',
              sessionId: `bench-${c}-${round}-${i}`,
              messages: [
                { role: 'system', content: prompt(i, c).system },
                { role: 'user', content: prompt(i, c).user },
              ],
              maxTokens: MAX_TOKENS,
            }),
          ),
        );
      }
      directResults.push(best(d));
      weftResults.push(best(w));
    }
    console.log(`Throughput and latency, best of ${ROUNDS} alternating rounds (llama.cpp backend: ${gpu === 'false' ? 'CPU' : gpu}; p99 of few samples is their maximum)`);
    console.log(
      table(
        ['concurrency', 'requests', 'direct TTFT p50 ms', 'p99', 'Weft TTFT p50 ms', 'p99', 'direct tok/s', 'Weft tok/s', 'Weft/direct'],
        LEVELS.map((c, i) => {
          const d = directResults[i] as LevelResult;
          const w = weftResults[i] as LevelResult;
          return [c, d.requests, d.ttftP50, d.ttftP99, w.ttftP50, w.ttftP99, d.tokensPerSecond, w.tokensPerSecond, `${(w.tokensPerSecond / d.tokensPerSecond).toFixed(2)}x`];
        }),
      ),
    );
    console.log();
    await transcript(weft);
  } finally {
    await weft.close();
    await direct.close();
    await nats.stop();
  }
}

function best(results: LevelResult[]): LevelResult {
  return results.reduce((a, b) => (b.tokensPerSecond > a.tokensPerSecond ? b : a));
}

const readFile: ToolDefinition = {
  name: 'read_file',
  description: 'Read a file of the workspace',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

/** One file's worth of tool output: what an agent loop appends every iteration. */
function toolOutput(turn: number): string {
  return Array.from({ length: 6 }, (_, line) => `export function step${turn}_${line}(input: string): string { return input.trim(); }`).join('\n');
}

/**
 * A 10-turn agent loop (reply, tool call, tool result, next reply), replayed twice on the Weft
 * worker: once as one session whose sequence keeps its tokens, once with another session
 * evicting it before every turn (what happens to a session whose cache was lost).
 */
async function transcript(weft: WeftPath): Promise<void> {
  const runs = { kept: [] as TurnStats[], evicted: [] as TurnStats[] };
  for (const mode of ['kept', 'evicted'] as const) {
    const sessionId = `transcript-${mode}-${Date.now()}`;
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'The tests in packages/core fail since yesterday. Find out why and fix it.' },
    ];
    for (let turn = 1; turn <= TURNS; turn++) {
      if (mode === 'evicted') {
        await weft.generate({ model: 'bench-1', sessionId: `${sessionId}-intruder-${turn}`, messages: [{ role: 'user', content: `Unrelated question ${turn}.` }], maxTokens: 2 });
      }
      const started = performance.now();
      const { result, ttftMs } = await weft.generate({ model: 'bench-1', sessionId, messages, tools: [readFile], maxTokens: 24 });
      runs[mode].push({
        turn,
        promptTokens: result.usage.promptTokens,
        evaluated: result.usage.evaluatedTokens ?? result.usage.promptTokens,
        cached: result.usage.cachedTokens ?? 0,
        ttftMs: Number.isNaN(ttftMs) ? (result.timings.timeToFirstTokenMs ?? Number.NaN) : ttftMs,
        totalMs: performance.now() - started,
      });
      const id = `call_${turn}`;
      messages.push(
        { role: 'assistant', content: result.text, toolCalls: [{ id, name: 'read_file', arguments: { path: `src/step${turn}.ts` } }] },
        { role: 'tool', toolCallId: id, name: 'read_file', content: toolOutput(turn) },
      );
    }
  }
  console.log(`A ${TURNS}-turn agent transcript: prompt tokens evaluated per turn, KV cache kept vs evicted before each turn`);
  console.log(
    table(
      ['turn', 'prompt tokens', 'kept: evaluated', 'cached', 'TTFT ms', 'evicted: evaluated', 'TTFT ms'],
      runs.kept.map((k, i) => {
        const e = runs.evicted[i] as TurnStats;
        return [k.turn, k.promptTokens, k.evaluated, k.cached, k.ttftMs, e.evaluated, e.ttftMs];
      }),
    ),
  );
  const sum = (xs: TurnStats[], f: (t: TurnStats) => number) => xs.reduce((s, t) => s + f(t), 0);
  console.log(
    `total evaluated: kept ${sum(runs.kept, (t) => t.evaluated)} vs evicted ${sum(runs.evicted, (t) => t.evaluated)} tokens; ` +
      `wall ${(sum(runs.kept, (t) => t.totalMs) / 1000).toFixed(1)} s vs ${(sum(runs.evicted, (t) => t.totalMs) / 1000).toFixed(1)} s`,
  );
}

interface TurnStats {
  turn: number;
  promptTokens: number;
  evaluated: number;
  cached: number;
  ttftMs: number;
  totalMs: number;
}

async function ensureModel(): Promise<void> {
  if (existsSync(MODEL)) return;
  await mkdir(join(root, '.weft-test/bench'), { recursive: true });
  console.log('writing the benchmark GGUF (once; cached under .weft-test/bench)...');
  execFileSync(process.execPath, [join(root, 'scripts/gguf/make-test-model.mjs'), MODEL, ...SHAPE], { stdio: 'inherit' });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
