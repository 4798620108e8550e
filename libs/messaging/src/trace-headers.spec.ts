import { NatsRecord } from '@nestjs/microservices';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { inSpan, startTracing } from '@weft/telemetry';
import { headers } from 'nats';
import { describe, expect, it } from 'vitest';
import { traceCarrierFrom, withTraceHeaders } from './trace-headers';

describe('trace context in NATS headers', () => {
  it('sends the payload itself, without headers, while tracing is off', () => {
    const body = { text: 'hi' };
    expect(withTraceHeaders(body)).toBe(body);
  });

  it('sends the active span as traceparent, which the receiving side reads back', async () => {
    const tracing = startTracing('weft-gateway', {}, new InMemorySpanExporter());
    try {
      expect(withTraceHeaders({ text: 'untraced' })).toEqual({ text: 'untraced' });
      await inSpan('tool read_file', {}, async (span) => {
        const sent = withTraceHeaders({ text: 'hi' });
        expect(sent).toBeInstanceOf(NatsRecord);
        const record = sent as NatsRecord;
        expect(record.data).toEqual({ text: 'hi' });
        const { traceId, spanId } = span?.spanContext() ?? {};
        expect(traceCarrierFrom(record.headers)).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
      });
    } finally {
      await tracing.shutdown();
    }
  });

  it('reads no context from a message without one', () => {
    expect(traceCarrierFrom(undefined)).toBeUndefined();
    expect(traceCarrierFrom(headers())).toBeUndefined();
  });
});
