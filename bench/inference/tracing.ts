import { randomBytes } from 'node:crypto';
import { withTraceHeaders } from '@weft/messaging';
import { SpanKind, inSpan, startTracing } from '@weft/telemetry';
import { startOtlpReceiver } from '../../test/support/otlp-receiver';
import { best, runLevel, table, type LevelResult } from './stats';
import type { WeftPath } from './weft';

/** Model steps timed per round for the cost of the helpers on the hot path. */
const STEP_CALLS = 200_000;
const STEP_ROUNDS = 3;

export interface TracingBenchOptions {
  levels: number[];
  rounds: number;
  maxTokens: number;
  system: string;
  requestsFor: (concurrency: number) => number;
}

/**
 * `BENCH_TRACING=off,on`: the same short generations through the worker over NATS with tracing
 * off and on (every request in a `chat` span, as the agent loop makes it, its context sent in
 * NATS headers, the worker's span around the stream, all exported by OTLP to a receiver in this
 * process), in alternating rounds, best of each; first, what the helpers the hot path calls
 * cost per model step, off and on. Each level is printed as it ends too (slow machines).
 */
export async function compareTracing(weft: WeftPath, options: TracingBenchOptions): Promise<void> {
  const receiver = await startOtlpReceiver();
  await timeSteps(receiver.url);
  const generate = (i: number, c: number, round: number) =>
    inSpan('chat bench', { kind: SpanKind.CLIENT }, () =>
      weft.generate({
        model: 'bench',
        sessionId: `trace-${c}-${round}-${i}`,
        messages: [
          { role: 'system', content: `${randomBytes(6).toString('hex')}: ${options.system}` },
          { role: 'user', content: `Summarise what file number ${i} of the project does.` },
        ],
        maxTokens: options.maxTokens,
      }),
    );
  const rows: (string | number)[][] = [];
  try {
    for (const c of options.levels) {
      const off: LevelResult[] = [];
      const on: LevelResult[] = [];
      for (let round = 0; round < options.rounds; round++) {
        off.push(await runLevel(c, options.requestsFor(c), (i) => generate(i, c, round)));
        const tracing = startTracing('weft-gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
        on.push(await runLevel(c, options.requestsFor(c), (i) => generate(i, c, round + options.rounds)));
        await tracing.shutdown();
      }
      const [a, b] = [best(off), best(on)];
      console.log(`   concurrency ${c}: off ${a.tokensPerSecond.toFixed(1)} tok/s, on ${b.tokensPerSecond.toFixed(1)} tok/s`);
      rows.push([c, a.requests, a.tokensPerSecond, b.tokensPerSecond, `${(b.tokensPerSecond / a.tokensPerSecond).toFixed(3)}x`, a.ttftP50, b.ttftP50]);
    }
  } finally {
    await receiver.close();
  }
  console.log(`Tracing off vs on: short prompts through the worker over NATS, best of ${options.rounds} alternating rounds; on = OTLP/HTTP export to a local receiver`);
  console.log(table(['concurrency', 'requests', 'off tok/s', 'on tok/s', 'on/off', 'off TTFT p50 ms', 'on TTFT p50 ms'], rows));
  console.log(`   spans received: ${receiver.spans.length}\n`);
}

/**
 * What the agent loop adds per model step: a `chat` span with the NATS headers made inside it,
 * against the same await with neither, tracing off and on (exported to `url`); µs per step.
 */
async function timeSteps(url: string): Promise<void> {
  const body = { model: 'bench' };
  const step = () => inSpan('chat bench', {}, async () => withTraceHeaders(body));
  const bare = async () => body;
  const time = async (call: () => Promise<unknown>) => {
    for (let i = 0; i < STEP_CALLS / 20; i++) await call();
    const started = performance.now();
    for (let i = 0; i < STEP_CALLS; i++) await call();
    return ((performance.now() - started) * 1000) / STEP_CALLS;
  };
  const rows: (string | number)[][] = [];
  for (let round = 1; round <= STEP_ROUNDS; round++) {
    const [baseline, off] = [await time(bare), await time(step)];
    const tracing = startTracing('weft-gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: url });
    const on = await time(step);
    await tracing.shutdown();
    rows.push([round, baseline.toFixed(3), off.toFixed(3), on.toFixed(3)]);
  }
  console.log(`Tracing per model step: a span and the NATS headers made in it, ${STEP_CALLS} steps a round (on: exported by OTLP/HTTP; the batch queue drops what a tight loop overfills)`);
  console.log(table(['round', 'baseline µs', 'tracing off µs', 'tracing on µs'], rows));
  console.log();
}
