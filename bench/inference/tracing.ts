import { randomBytes } from 'node:crypto';
import { withTraceHeaders } from '@weft/messaging';
import { SpanKind, inSpan, startTracing } from '@weft/telemetry';
import { startOtlpReceiver } from '../../test/support/otlp-receiver';
import { best, runLevel, table, type LevelResult } from './stats';
import type { WeftPath } from './weft';

/** Calls timed for the cost of the helpers on the hot path while tracing is off. */
const OFF_PATH_CALLS = 1_000_000;

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
 * process), in alternating rounds, best of each; and what the helpers the hot path calls cost
 * per call while tracing is off.
 */
export async function compareTracing(weft: WeftPath, options: TracingBenchOptions): Promise<void> {
  const offPath = timeOffPath();
  const receiver = await startOtlpReceiver();
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
      rows.push([c, a.requests, a.tokensPerSecond, b.tokensPerSecond, `${(b.tokensPerSecond / a.tokensPerSecond).toFixed(3)}x`, a.ttftP50, b.ttftP50]);
    }
  } finally {
    await receiver.close();
  }
  console.log(`Tracing off vs on: short prompts through the worker over NATS, best of ${options.rounds} alternating rounds; on = OTLP/HTTP export to a local receiver`);
  console.log(table(['concurrency', 'requests', 'off tok/s', 'on tok/s', 'on/off', 'off TTFT p50 ms', 'on TTFT p50 ms'], rows));
  console.log(`   spans received while on: ${receiver.spans.length} (a client and a worker span per request)`);
  console.log(`   tracing off, per call: withTraceHeaders ${offPath.headersNs.toFixed(1)} ns, inSpan ${offPath.inSpanNs.toFixed(1)} ns (one of each per model step, none per token)\n`);
}

/** Nanoseconds per call of the helpers every request passes through, with tracing off. */
function timeOffPath(): { headersNs: number; inSpanNs: number } {
  const body = { model: 'bench' };
  let started = performance.now();
  for (let i = 0; i < OFF_PATH_CALLS; i++) withTraceHeaders(body);
  const headersNs = ((performance.now() - started) * 1e6) / OFF_PATH_CALLS;
  const work = () => Promise.resolve(0);
  started = performance.now();
  for (let i = 0; i < OFF_PATH_CALLS; i++) void inSpan('chat bench', {}, work);
  const inSpanNs = ((performance.now() - started) * 1e6) / OFF_PATH_CALLS;
  return { headersNs, inSpanNs };
}
