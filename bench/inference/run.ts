/**
 * `npm run bench:inference`: on a benchmark-shape GGUF from the project's generator (1024 wide,
 * 8 layers, f16, ~180 MB, 8k context; cached under .weft-test/bench), at concurrency 1, 4 and 8,
 * TTFT p50/p99 and aggregate tokens/s of:
 *   1. node-llama-cpp called directly in this process vs the Weft inference worker reached over
 *      NATS (and llama.cpp's llama-server on the same GGUF when LLAMA_SERVER_BIN is set), on
 *      short prompts that share no prefix;
 *   2. the full Weft path (HTTP → gateway → BullMQ → agent loop → NATS → worker → Redis event
 *      log → SSE) vs node-llama-cpp directly on the very request the gateway sends (agent system
 *      prompt and tool definitions), both reusing the prompt prefix a sequence already holds.
 * Then a 10-turn agent transcript replayed with the session's KV cache kept and with it evicted
 * before every turn: prompt tokens evaluated per turn. Not a test: it prints tables. Needs Docker
 * for NATS and Redis.
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { ChatMessage, GenerateRequest, ToolDefinition } from '@weft/contracts';
import { startNats, startRedis } from '../../test/support/containers';
import { DirectLlama } from './direct';
import { HttpPath } from './http';
import { LlamaServer } from './llama-server';
import { runLevel, table, type LevelResult } from './stats';
import { WeftPath } from './weft';

const root = resolve(__dirname, '../..');
const SHAPE = ['--embedding', '1024', '--layers', '8', '--heads', '16', '--kv-heads', '4', '--feed-forward', '2816', '--context', '8192', '--merges', '400', '--f16'];
const MODEL = join(root, '.weft-test/bench/bench-1024x8-f16-ctx8k.gguf');
const CONTEXT = 8192;
const SEQUENCES = 8;
const THREADS = Number(process.env.BENCH_THREADS ?? Math.max(1, cpus().length));
const LEVELS = (process.env.BENCH_LEVELS ?? '1,4,8').split(',').map(Number);
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? 48);
const TURNS = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** `short,http,transcript` by default; the http part alone took 25 minutes on 2 CPU cores (see docs/inference.md). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'short,http,transcript').split(','));

const SYSTEM = 'You are a careful coding agent working in a TypeScript monorepo. Read before you edit, run the tests after every change, and answer briefly.';

async function main(): Promise<void> {
  await ensureModel();
  console.log(`model ${MODEL} · ${THREADS} threads · context ${CONTEXT} · ${SEQUENCES} sequences · ${MAX_TOKENS} tokens per reply\n`);
  const direct = await DirectLlama.open({ modelPath: MODEL, contextSize: CONTEXT, sequences: SEQUENCES, threads: THREADS });
  const [nats, redis] = await Promise.all([startNats(), startRedis()]);
  const weft = await WeftPath.start({ natsUrl: nats.url, modelPath: MODEL, contextSize: CONTEXT, sequences: SEQUENCES, threads: THREADS });
  const http = PARTS.has('http') ? await HttpPath.start({ natsUrl: nats.url, redisUrl: redis.url, concurrency: Math.max(...LEVELS), maxTokens: MAX_TOKENS }) : undefined;
  const serverBin = process.env.LLAMA_SERVER_BIN;
  const server = serverBin ? await LlamaServer.start({ bin: serverBin, modelPath: MODEL, contextSize: CONTEXT, parallel: SEQUENCES, threads: THREADS }) : undefined;
  try {
    await direct.generate('warm up', 'hello', 4);
    await weft.generate({ model: 'bench', messages: [{ role: 'user', content: 'warm up' }], maxTokens: 4 });
    await weft.generate({ model: 'bench-1', messages: [{ role: 'user', content: 'warm up' }], maxTokens: 4 });
    await server?.generate('warm up', 'hello', 4);
    if (PARTS.has('short')) await shortPrompts(direct, weft, server);
    if (http) await agentPrompts(direct, http);
    if (PARTS.has('transcript')) await transcript(weft);
  } finally {
    await server?.close();
    await http?.close();
    await weft.close();
    await direct.close();
    await Promise.all([nats.stop(), redis.stop()]);
  }
}

/** Table 1: the same short prompts through node-llama-cpp, the worker over NATS and llama-server. */
async function shortPrompts(direct: DirectLlama, weft: WeftPath, server: LlamaServer | undefined): Promise<void> {
  // Every request opens with its own line, so no two share a prefix a cache could reuse.
  const prompt = (i: number, c: number) => ({ system: `Request ${c}-${i}-${Date.now()}. ${SYSTEM}`, user: `Summarise what file number ${i} of the project does.` });
  const sides = { direct: [] as LevelResult[], weft: [] as LevelResult[], server: [] as LevelResult[] };
  for (const c of LEVELS) {
    // Alternating sides, best of ROUNDS: a shared machine's background load hits all alike.
    const d: LevelResult[] = [];
    const w: LevelResult[] = [];
    const l: LevelResult[] = [];
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
      if (server) l.push(await runLevel(c, requestsFor(c), (i) => server.generate(prompt(i, c).system, prompt(i, c).user, MAX_TOKENS)));
    }
    sides.direct.push(best(d));
    sides.weft.push(best(w));
    if (server) sides.server.push(best(l));
  }
  const backend = direct.gpu === 'false' ? 'CPU' : direct.gpu;
  console.log(`1. Short prompts, no shared prefix: node-llama-cpp in-process vs the worker over NATS${server ? ' vs llama-server' : ''}, best of ${ROUNDS} alternating rounds (llama.cpp backend: ${backend}; p99 of few samples is their maximum)`);
  if (server?.cpuInfo) console.log(`   llama-server: ${server.cpuInfo}`);
  console.log(
    table(
      ['concurrency', 'requests', 'direct TTFT p50 ms', 'p99', 'NATS TTFT p50 ms', 'p99', ...(server ? ['llama-server TTFT p50 ms', 'p99'] : []), 'direct tok/s', 'NATS tok/s', ...(server ? ['llama-server tok/s'] : []), 'NATS/direct', ...(server ? ['llama-server/direct'] : []), 'prompt tokens/req: direct', 'NATS', ...(server ? ['llama-server'] : [])],
      LEVELS.map((c, i) => {
        const d = sides.direct[i] as LevelResult;
        const w = sides.weft[i] as LevelResult;
        const l = sides.server[i];
        const ratio = (x: LevelResult) => `${(x.tokensPerSecond / d.tokensPerSecond).toFixed(2)}x`;
        return [c, d.requests, d.ttftP50, d.ttftP99, w.ttftP50, w.ttftP99, ...(l ? [l.ttftP50, l.ttftP99] : []), d.tokensPerSecond, w.tokensPerSecond, ...(l ? [l.tokensPerSecond] : []), ratio(w), ...(l ? [ratio(l)] : []), d.evaluatedPerRequest, w.evaluatedPerRequest, ...(l ? [l.evaluatedPerRequest] : [])];
      }),
    ),
  );
  console.log();
}

/**
 * The full Weft path against node-llama-cpp on the same request. One turn through the gateway
 * shows what it sends the worker (agent system prompt, tool definitions, the message); the
 * direct side replays exactly that with each request's own message. Every sequence is first
 * filled with that prompt on both sides, so both evaluate only what follows the shared prefix,
 * as a busy worker does: the figures are then what HTTP, the queue, Redis and SSE add.
 */
async function agentPrompts(direct: DirectLlama, http: HttpPath): Promise<void> {
  const content = (i: number, c: number) => `Request ${c}-${i}: summarise what file number ${i} of the project does.`;
  const capture = await http.captureNextRequest();
  const first = await http.turn(await http.newSession('bench'), content(0, 0));
  const sent = await capture.request;
  const replay = (text: string): GenerateRequest => ({ ...sent, messages: sent.messages.map((m) => (m.role === 'user' ? { ...m, content: text } : m)) });
  const sessions = async (n: number) => Promise.all(Array.from({ length: n }, () => http.newSession('bench')));
  const warm = await sessions(SEQUENCES);
  await runLevel(SEQUENCES, SEQUENCES, (i) => direct.generateRequest(replay(content(i, -1)), MAX_TOKENS, true));
  await runLevel(SEQUENCES, SEQUENCES, (i) => http.turn(warm[i] as (typeof warm)[number], content(i, -1)));

  const rows: (string | number)[][] = [];
  let extraSteps = 0;
  for (const c of LEVELS) {
    const n = requestsFor(c);
    const d: LevelResult[] = [];
    const h: LevelResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      d.push(
        await runLevel(c, n, (i) => direct.generateRequest(replay(content(i, c)), MAX_TOKENS, true)),
      );
      const fresh = await sessions(n);
      h.push(
        await runLevel(c, n, async (i) => {
          const reply = await http.turn(fresh[i] as (typeof fresh)[number], content(i, c));
          if (reply.extraSteps) extraSteps++;
          return reply;
        }),
      );
    }
    const [bd, bh] = [best(d), best(h)];
    rows.push([c, n, bd.ttftP50, bd.ttftP99, bh.ttftP50, bh.ttftP99, bd.tokensPerSecond, bh.tokensPerSecond, `${(bh.tokensPerSecond / bd.tokensPerSecond).toFixed(2)}x`, bd.evaluatedPerRequest, bh.evaluatedPerRequest]);
  }
  const promptChars = sent.messages.reduce((sum, m) => sum + m.content.length, 0) + JSON.stringify(sent.tools ?? []).length;
  console.log(
    `2. The full Weft path (HTTP → gateway → NATS → worker → SSE) vs node-llama-cpp on the request the gateway sends ` +
      `(${sent.messages.length} messages, ${sent.tools?.length ?? 0} tools, ${promptChars} characters, ${first.evaluated ?? '?'} prompt tokens), prefix kept on both sides, best of ${ROUNDS} alternating rounds`,
  );
  console.log(
    table(
      ['concurrency', 'requests', 'direct TTFT p50 ms', 'p99', 'HTTP TTFT p50 ms', 'p99', 'direct tok/s', 'HTTP tok/s', 'HTTP/direct', 'prompt tokens/req: direct', 'HTTP'],
      rows,
    ),
  );
  if (extraSteps > 0) console.log(`(${extraSteps} HTTP turns called a tool and ran a second, summarising generation; their tokens count)`);
  console.log();
}

const requestsFor = (c: number) => Math.max(3, c * 2);

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
