import { randomBytes } from 'node:crypto';
import { PerformanceObserver } from 'node:perf_hooks';
import { setSamplingOnTheMainThread } from '../../apps/inference/src/llama/sample-now-patch';
import type { LlamaServer } from './llama-server';
import { median, runLevel, table } from './stats';
import { CpuMeter } from './thread-cpu';
import type { WeftPath } from './weft';

interface NativeContext {
  decodeBatch(): Promise<void>;
  addToBatch(sequenceId: number, firstTokenIndex: number, tokens: Uint32Array, ...rest: unknown[]): unknown;
  sampleTokenNow?: unknown;
  saveSequenceStateToFile(...args: unknown[]): Promise<unknown>;
}
interface ContextInternals {
  _ctx?: NativeContext;
  dispatchPendingBatch(...args: unknown[]): unknown;
}

interface Span {
  start: number;
  end: number;
}

/** One native decode: when it ran and how many tokens of each sequence it held. */
interface Decode extends Span {
  tokensPerSequence: number[];
}

const spanMs = (spans: readonly Span[]) => spans.reduce((total, span) => total + span.end - span.start, 0);
/** A generation step: one token for each generating sequence (at one request at a time, a batch of one token). */
const isStep = (d: Decode | undefined) => d !== undefined && d.tokensPerSequence.length > 0 && d.tokensPerSequence.every((n) => n === 1);

/**
 * Every decode of every context in this process, with the tokens each sequence put in it: the
 * step of a generation (a batch of one token per sequence) and the time between two steps.
 */
class StepRecorder {
  readonly decodes: Decode[] = [];
  /** The native part of every KV state save (a job on the pool thread, between two decodes). */
  readonly saves: Span[] = [];
  /** Whether a loaded binary has Weft's `sampleTokenNow` (scripts/llama/addon-patches). */
  sampleNow = false;
  private readonly wrapped = new WeakSet<object>();

  install(lib: Pick<typeof import('node-llama-cpp'), 'LlamaContext'>): this {
    const proto = lib.LlamaContext.prototype as unknown as ContextInternals;
    const dispatch = proto.dispatchPendingBatch;
    const wrapOnce = (native: NativeContext | undefined) => {
      if (!native || this.wrapped.has(native)) return;
      this.wrapped.add(native);
      this.wrap(native);
    };
    proto.dispatchPendingBatch = function recordedDispatch(this: ContextInternals, ...args: unknown[]) {
      wrapOnce(this._ctx);
      return dispatch.apply(this, args);
    };
    return this;
  }

  private wrap(native: NativeContext): void {
    this.sampleNow ||= typeof native.sampleTokenNow === 'function';
    let pending: number[] = [];
    const add = native.addToBatch.bind(native);
    const save = native.saveSequenceStateToFile.bind(native);
    Object.defineProperty(native, 'saveSequenceStateToFile', {
      configurable: true,
      value: async (...args: unknown[]) => {
        const start = performance.now();
        try {
          return await save(...args);
        } finally {
          this.saves.push({ start, end: performance.now() });
        }
      },
    });
    const decode = native.decodeBatch.bind(native);
    Object.defineProperty(native, 'addToBatch', {
      configurable: true,
      value: (sequenceId: number, firstTokenIndex: number, tokens: Uint32Array, ...rest: unknown[]) => {
        pending.push(tokens.length);
        return add(sequenceId, firstTokenIndex, tokens, ...rest);
      },
    });
    Object.defineProperty(native, 'decodeBatch', {
      configurable: true,
      value: async () => {
        const tokensPerSequence = pending;
        pending = [];
        const start = performance.now();
        try {
          await decode();
        } finally {
          this.decodes.push({ start, end: performance.now(), tokensPerSequence });
        }
      },
    });
  }

  /** Where a round's time went on the pool thread from `since`: prompt decodes, generation decodes, KV state saves. */
  poolTime(since: number): { promptMs: number; stepMs: number; saveMs: number } {
    const decodes = this.decodes.filter((d) => d.start >= since);
    const prompt = decodes.filter((d) => d.tokensPerSequence.some((n) => n > 1));
    return { promptMs: spanMs(prompt), stepMs: spanMs(decodes) - spanMs(prompt), saveMs: spanMs(this.saves.filter((d) => d.start >= since)) };
  }

  /**
   * The pool thread's idle time from `since` to `until`, by what lies either side of it: before
   * the round's first native call and after its last (a request's way in and its reply's way
   * out), between two generation steps (sampling, streaming, queueing the next tokens), and next to a
   * prompt decode or a KV save (requests finishing and starting between waves).
   */
  idle(since: number, until: number): { edgesMs: number; betweenStepsMs: number; aroundPromptsMs: number } {
    const busy: (Span & { step: boolean })[] = [
      ...this.decodes.filter((d) => d.start >= since).map((d) => ({ ...d, step: isStep(d) })),
      ...this.saves.filter((d) => d.start >= since).map((d) => ({ ...d, step: false })),
    ].sort((a, b) => a.start - b.start);
    const first = busy[0];
    if (!first) return { edgesMs: until - since, betweenStepsMs: 0, aroundPromptsMs: 0 };
    let betweenStepsMs = 0;
    let aroundPromptsMs = 0;
    let reach = first.end;
    for (const [i, span] of busy.entries()) {
      if (i > 0 && span.start > reach) {
        const gap = span.start - reach;
        if (span.step && (busy[i - 1] as { step: boolean }).step) betweenStepsMs += gap;
        else aroundPromptsMs += gap;
      }
      reach = Math.max(reach, span.end);
    }
    return { edgesMs: first.start - since + Math.max(0, until - reach), betweenStepsMs, aroundPromptsMs };
  }

  /** Generation steps (one token per generating sequence) from `since`: their decode times and the gaps between consecutive ones. */
  steps(since: number): { decodeMs: number[]; gapMs: number[] } {
    const decodes = this.decodes.filter((d) => d.start >= since).sort((a, b) => a.start - b.start);
    const decodeMs: number[] = [];
    const gapMs: number[] = [];
    decodes.forEach((d, i) => {
      if (!isStep(d)) return;
      decodeMs.push(d.end - d.start);
      const next = decodes[i + 1];
      if (next && isStep(next)) gapMs.push(next.start - d.end);
    });
    return { decodeMs, gapMs };
  }
}

export interface StepsOptions {
  levels: readonly number[];
  rounds: number;
  maxTokens: number;
  system: string;
  requestsFor: (concurrency: number) => number;
}

type Side = 'main thread' | 'pool' | 'llama-server';

interface SideRound {
  wallMs: number;
  tokensPerSecond: number;
  decodeMs: number;
  gapMs: number;
  /** CPU time (ms) by thread name in this process, and by process for the NATS and Redis servers and llama-server. */
  cpu: Map<string, number>;
  /** The worker's only: the round's wall taken apart (ms). */
  parts?: { promptMs: number; stepMs: number; saveMs: number; gcMs: number; edgesMs: number; betweenStepsMs: number; aroundPromptsMs: number };
}

/**
 * The generation step taken apart: the worker over NATS on the short prompts, with its decodes
 * timed at the native call, sampling on the main thread (Weft's build of the addon) and on
 * libuv's pool in paired rounds, and llama-server beside them. Per side, the median decode of a
 * generation step (one token for each generating sequence) and the median time from the end of
 * one step to the start of the next: sampling and everything else between two batches.
 * llama-server's step is its `eval time` per token, from its log. Then the worker's rounds taken
 * apart: the pool thread's prompt decodes, generation decodes and KV state saves, the rest of the
 * wall, and V8's GC pauses.
 */
export async function compareSteps(weft: WeftPath, server: LlamaServer | undefined, options: StepsOptions): Promise<void> {
  const recorder = new StepRecorder().install(await import('node-llama-cpp'));
  const cpu = new CpuMeter({ 'llama-server': server?.pid });
  // V8's pauses on the main thread (this process: the worker and the benchmark's client).
  const gcs: Span[] = [];
  const gcObserver = new PerformanceObserver((list) => gcs.push(...list.getEntries().map((e) => ({ start: e.startTime, end: e.startTime + e.duration }))));
  gcObserver.observe({ entryTypes: ['gc'] });
  try {
    for (const c of options.levels) {
      // The first request of this level dispatches a batch, so the recorder has wrapped the worker's context.
      await weft.generate({ model: 'bench', messages: [{ role: 'user', content: 'warm up' }], maxTokens: 4 });
      const workerSides: Side[] = recorder.sampleNow ? ['main thread', 'pool'] : ['pool'];
      const sides: Side[] = [...workerSides, ...(server ? (['llama-server'] as const) : [])];
      const rounds = new Map<Side, SideRound[]>(sides.map((side) => [side, []]));
      const serverEval: number[] = [];
      for (let round = 0; round < options.rounds; round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) {
          const prompt = (i: number) => ({ system: `${randomBytes(6).toString('hex')}: request ${c}-${i}. ${options.system}`, user: `Summarise what file number ${i} of the project does.` });
          const since = performance.now();
          const cpuBefore = cpu.snapshot();
          if (side === 'llama-server' && server) {
            server.takeEvalTimings();
            const result = await runLevel(c, options.requestsFor(c), (i) => server.generate(prompt(i).system, prompt(i).user, options.maxTokens));
            const evalMs = server.takeEvalTimings();
            serverEval.push(...evalMs);
            rounds.get(side)?.push({ wallMs: result.wallMs, tokensPerSecond: result.tokensPerSecond, decodeMs: median(evalMs), gapMs: Number.NaN, cpu: cpu.since(cpuBefore) });
            continue;
          }
          setSamplingOnTheMainThread(side === 'main thread');
          const result = await runLevel(c, options.requestsFor(c), (i) =>
            weft.generate({ model: 'bench', sessionId: `steps-${c}-${round}-${side}-${i}`, messages: [{ role: 'system', content: prompt(i).system }, { role: 'user', content: prompt(i).user }], maxTokens: options.maxTokens }),
          );
          const until = performance.now();
          const steps = recorder.steps(since);
          const parts = { ...recorder.poolTime(since), ...recorder.idle(since, until), gcMs: spanMs(gcs.filter((gc) => gc.start >= since)) };
          rounds.get(side)?.push({ wallMs: result.wallMs, tokensPerSecond: result.tokensPerSecond, decodeMs: median(steps.decodeMs), gapMs: median(steps.gapMs), cpu: cpu.since(cpuBefore), parts });
        }
      }
      print(c, options, rounds, recorder.sampleNow);
    }
  } finally {
    gcObserver.disconnect();
    setSamplingOnTheMainThread(true);
  }
}

function print(c: number, options: StepsOptions, rounds: Map<Side, SideRound[]>, sampleNow: boolean): void {
  console.log(
    `\nGeneration steps at concurrency ${c}: ${options.requestsFor(c)} requests of ${options.maxTokens} tokens per round, ${options.rounds} rounds in alternating order, medians of the rounds` +
      (sampleNow ? '' : ' (this binary has no sampleTokenNow: node-llama-cpp samples on the pool only)'),
  );
  const rows = [...rounds].map(([side, r]) => [
    side === 'llama-server' ? 'llama-server' : `worker, sampling on the ${side}`,
    median(r.map((x) => x.wallMs)).toFixed(0),
    median(r.map((x) => x.tokensPerSecond)).toFixed(1),
    median(r.map((x) => x.decodeMs)).toFixed(1),
    side === 'llama-server' ? '' : median(r.map((x) => x.gapMs)).toFixed(2),
    r.map((x) => x.wallMs.toFixed(0)).join(' '),
  ]);
  console.log(table(['side', 'wall ms', 'tok/s', 'step ms (decode; llama-server: eval per token)', 'between steps ms', 'wall per round'], rows));
  for (const [side, r] of rounds) {
    const parted = r.flatMap(({ wallMs, parts }) => (parts ? [{ wallMs, ...parts }] : []));
    if (parted.length === 0) continue;
    const share = (pick: (x: (typeof parted)[number]) => number) => `${median(parted.map((x) => (100 * pick(x)) / x.wallMs)).toFixed(1)} %`;
    console.log(
      `  worker (sampling on the ${side}), the wall's parts (median share of rounds): prompt decodes ${share((x) => x.promptMs)}, generation decodes ${share((x) => x.stepMs)}, ` +
        `KV state saves ${share((x) => x.saveMs)}, none of these ${share((x) => x.wallMs - x.promptMs - x.stepMs - x.saveMs)}: ` +
        `between generation steps ${share((x) => x.betweenStepsMs)}, next to prompt decodes and saves ${share((x) => x.aroundPromptsMs)}, before the first and after the last ${share((x) => x.edgesMs)}; ` +
        `GC pauses on the main thread ${share((x) => x.gcMs)}, during the others`,
    );
  }
  for (const [side, r] of rounds) {
    const names = [...new Set(r.flatMap((x) => [...x.cpu.keys()]))];
    const perName = names
      .map((name) => ({ name, ms: median(r.map((x) => x.cpu.get(name) ?? 0)) }))
      .filter(({ ms }) => ms >= 10)
      .sort((a, b) => b.ms - a.ms);
    console.log(
      `  ${side === 'llama-server' ? 'llama-server' : `worker (sampling on the ${side})`}, CPU per round (median ms; threads of this process by name, the other processes whole): ` +
        perName.map(({ name, ms }) => `${name} ${ms.toFixed(0)}`).join(', '),
    );
  }
  const server = rounds.get('llama-server');
  if (!server) return;
  for (const side of ['main thread', 'pool'] as const) {
    const worker = rounds.get(side);
    if (!worker) continue;
    const ratios = worker.map((w, i) => (server[i] ? server[i].wallMs / w.wallMs : Number.NaN));
    console.log(`  worker (sampling on the ${side})/llama-server, speed by round: ${ratios.map((r) => r.toFixed(2)).join(' ')}  median ${median(ratios).toFixed(2)}x`);
  }
}
