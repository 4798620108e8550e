import { randomBytes } from 'node:crypto';
import type { ReceivedSpan } from '../../test/support/otlp-receiver';
import { compose } from './stack';

/** A fresh W3C trace context for a request, so a test finds its turn's spans among everyone's. */
export function newTraceparent(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The spans of one trace the stack's OTLP receiver (the `otlp` service) holds so far. */
export function spansOfTrace(traceId: string): ReceivedSpan[] {
  return compose('exec', '-T', 'otlp', 'cat', '/tmp/spans.jsonl')
    .split('\n')
    .filter((line) => line.includes(traceId))
    .map((line) => JSON.parse(line) as ReceivedSpan)
    .filter((span) => span.traceId === traceId);
}

/**
 * Waits until the trace's spans satisfy `complete`: each service exports in batches (every few
 * seconds), so the last ones arrive a little after the turn ends.
 */
export async function waitForTrace(traceId: string, complete: (spans: ReceivedSpan[]) => boolean, timeoutMs = 30_000): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + timeoutMs;
  let spans = spansOfTrace(traceId);
  while (!complete(spans) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    spans = spansOfTrace(traceId);
  }
  return spans;
}
