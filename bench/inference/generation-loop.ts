import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import type { ChatMessage, ToolDefinition } from '@weft/contracts';
import { startNats, type StartedService } from '../../test/support/containers';
import { DecodeTimer, loadedLlamaBinaries } from './decode-timer';
import { median, runLevel, table } from './stats';
import { WeftPath } from './weft';

export interface LoopBenchOptions {
  modelPath: string;
  contextSize: number;
  sequences: number;
  threads: number;
  levels: readonly number[];
  maxTokens: number;
  system: string;
}

/** Paired rounds: an odd count gives a median that is one round's ratio. */
const ROUNDS = Number(process.env.BENCH_LOOP_ROUNDS ?? 5);
const LOOPS = ['llamachat', 'weft'] as const;
type Loop = (typeof LOOPS)[number];
/**
 * `text`: plain replies; `tools`: the same requests offering tools (toolChoice auto, the agents'
 * path), so that each loop watches the reply for the chat template's call syntax. The random test
 * model writes text either way; the tool-call comparison tests show the calls are the same.
 */
const CASES = (process.env.BENCH_LOOP_CASES ?? 'text,tools').split(',').filter((c): c is Case => c === 'text' || c === 'tools');
type Case = 'text' | 'tools';
const BENCH_TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read part of a file',
    parameters: { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'integer' } }, required: ['path'] },
  },
  {
    name: 'search',
    description: 'Search the workspace',
    parameters: { type: 'object', properties: { query: { type: 'string' }, regex: { type: 'boolean' } }, required: ['query'] },
  },
];

interface Round {
  tokensPerSecond: number;
  /** Wall time less time inside llama_decode, per generated token. */
  outsideDecodeMsPerToken: number;
  /**
   * CPU time of this process's main thread (where every JavaScript loop runs; decodes run on
   * libuv's pool) per generated token: unlike wall time, it does not grow while other processes
   * hold the cores.
   */
  mainThreadCpuMsPerToken: number;
  decodeShare: number;
  generatedPerRequest: number;
}

/**
 * The worker's two generation loops (INFERENCE_GENERATION_LOOP) side by side: two workers in this
 * process, one per loop, each on a NATS of its own, the same short prompts at temperature 0 (both
 * loops then make the same replies, so they generate the same tokens), in paired rounds whose
 * order alternates. Besides tokens/s it prints the time per token outside llama.cpp's decode:
 * the wall time less what the native decode took (timed around every context's `decodeBatch`),
 * divided by the tokens generated, which is what each loop's JavaScript costs; and the main
 * thread's CPU time per token, the same cost measured so that other processes on the cores do not
 * inflate it.
 */
export async function compareGenerationLoops(options: LoopBenchOptions): Promise<void> {
  const timer = new DecodeTimer().install(await import('node-llama-cpp'));
  const loadAtStart = loadAverage();
  const nats: StartedService[] = [];
  const workers = new Map<Loop, WeftPath>();
  try {
    for (const loop of LOOPS) {
      const server = await startNats();
      nats.push(server);
      workers.set(loop, await WeftPath.start({ ...options, natsUrl: server.networkUrl, generationLoop: loop }));
    }
    const messages = (c: number, round: number, i: number): ChatMessage[] => [
      // The same prompts on both sides; no two requests of a side share more than the template's start.
      { role: 'system', content: `${createHash('sha256').update(`${c}-${round}-${i}`).digest('hex').slice(0, 12)}: ${options.system}` },
      { role: 'user', content: `Summarise what file number ${i} of the project does.` },
    ];
    for (const worker of workers.values()) await worker.generate({ model: 'bench', messages: messages(0, -1, 0), maxTokens: 4, temperature: 0 });

    for (const kind of CASES) {
      const rounds = new Map<Loop, Round[][]>(LOOPS.map((loop) => [loop, options.levels.map(() => [])]));
      for (const [level, c] of options.levels.entries()) {
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? LOOPS : [...LOOPS].reverse();
          for (const loop of order) {
            const worker = workers.get(loop) as WeftPath;
            const decodeBefore = timer.elapsedMs;
            const cpuBefore = threadCpuUsage();
            const requests = Math.max(3, c * 2);
            const result = await runLevel(c, requests, (i) =>
              worker.generate({
                model: 'bench',
                sessionId: `loops-${kind}-${loop}-${c}-${round}-${i}`,
                messages: messages(c, round, i),
                maxTokens: options.maxTokens,
                temperature: 0,
                ...(kind === 'tools' ? { tools: BENCH_TOOLS } : {}),
              }),
            );
            const decodeMs = timer.elapsedMs - decodeBefore;
            const cpu = threadCpuUsage(cpuBefore);
            const tokens = result.generatedPerRequest * requests;
            rounds.get(loop)?.[level]?.push({
              tokensPerSecond: result.tokensPerSecond,
              outsideDecodeMsPerToken: (result.wallMs - decodeMs) / tokens,
              mainThreadCpuMsPerToken: (cpu.user + cpu.system) / 1000 / tokens,
              decodeShare: decodeMs / result.wallMs,
              generatedPerRequest: result.generatedPerRequest,
            });
          }
        }
      }
      print(options, kind, rounds, loadAtStart);
    }
  } finally {
    for (const worker of workers.values()) await worker.close();
    await Promise.all(nats.map((server) => server.stop()));
  }
}

/** The main thread's CPU time (Node 23.9 and later; NaN figures on an older Node). */
function threadCpuUsage(since?: NodeJS.CpuUsage): NodeJS.CpuUsage {
  if (typeof process.threadCpuUsage !== 'function') return { user: Number.NaN, system: Number.NaN };
  return process.threadCpuUsage(since);
}

function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

function print(options: LoopBenchOptions, kind: Case, rounds: Map<Loop, Round[][]>, loadAtStart: string): void {
  const at = (loop: Loop, level: number) => rounds.get(loop)?.[level] ?? [];
  const med = (loop: Loop, level: number, f: (r: Round) => number) => median(at(loop, level).map(f));
  const ratios = (level: number, f: (r: Round) => number) => at('weft', level).map((r, i) => f(r) / f(at('llamachat', level)[i] as Round));
  console.log(
    `Generation loops (${kind === 'tools' ? 'requests with tools' : 'plain requests'}): LlamaChat vs Weft's loop on the same worker path (NATS → worker → NATS), ${options.maxTokens} tokens per reply at temperature 0, ` +
      `median of ${ROUNDS} paired rounds in alternating order; load average (1, 5, 15 min) ${loadAtStart} at the start, ${loadAverage()} at the end`,
  );
  console.log(`   llama.cpp loaded by this process: ${loadedLlamaBinaries().join(', ') || 'unknown'}`);
  console.log(
    table(
      [
        'concurrency',
        'LlamaChat tok/s',
        'Weft tok/s',
        'Weft/LlamaChat',
        'outside decode ms/token: LlamaChat',
        'Weft',
        'Weft/LlamaChat',
        'main-thread CPU ms/token: LlamaChat',
        'Weft',
        'Weft/LlamaChat',
        'in decode: LlamaChat',
        'Weft',
        'generated/req: LlamaChat',
        'Weft',
      ],
      options.levels.map((c, level) => [
        c,
        med('llamachat', level, (r) => r.tokensPerSecond),
        med('weft', level, (r) => r.tokensPerSecond),
        `${median(ratios(level, (r) => r.tokensPerSecond)).toFixed(2)}x`,
        med('llamachat', level, (r) => r.outsideDecodeMsPerToken).toFixed(2),
        med('weft', level, (r) => r.outsideDecodeMsPerToken).toFixed(2),
        `${median(ratios(level, (r) => r.outsideDecodeMsPerToken)).toFixed(2)}x`,
        med('llamachat', level, (r) => r.mainThreadCpuMsPerToken).toFixed(2),
        med('weft', level, (r) => r.mainThreadCpuMsPerToken).toFixed(2),
        `${median(ratios(level, (r) => r.mainThreadCpuMsPerToken)).toFixed(2)}x`,
        `${(med('llamachat', level, (r) => r.decodeShare) * 100).toFixed(0)} %`,
        `${(med('weft', level, (r) => r.decodeShare) * 100).toFixed(0)} %`,
        med('llamachat', level, (r) => r.generatedPerRequest),
        med('weft', level, (r) => r.generatedPerRequest),
      ]),
    ),
  );
  console.log('Weft/LlamaChat round by round (tok/s; outside-decode ms/token; main-thread CPU ms/token):');
  for (const [level, c] of options.levels.entries()) {
    const line = (f: (r: Round) => number) => ratios(level, f).map((x) => x.toFixed(2)).join(' ');
    console.log(`  concurrency ${c}: ${line((r) => r.tokensPerSecond)}; ${line((r) => r.outsideDecodeMsPerToken)}; ${line((r) => r.mainThreadCpuMsPerToken)}`);
  }
  console.log();
}
