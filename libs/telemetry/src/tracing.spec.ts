import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { currentTraceCarrier } from './carrier';
import { inSpan, startSpan } from './spans';
import { type Tracing, startTracing, tracesUrl, tracingEnabled } from './tracing';

describe('tracing settings', () => {
  it('sends spans to /v1/traces under the base endpoint, the per-signal URL as given', () => {
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/traces' })).toBe('http://b:4318/traces');
    expect(tracesUrl({})).toBeUndefined();
  });
});

describe('tracing off and on', () => {
  let tracing: Tracing | undefined;
  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
  });

  it('stays off without an endpoint: no span, no context to carry', async () => {
    tracing = startTracing('weft-tools', {});
    expect(tracing.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    expect(startSpan('x')).toBeUndefined();
    await inSpan('x', {}, async (span) => {
      expect(span).toBeUndefined();
      expect(currentTraceCarrier()).toBeUndefined();
    });
  });

  it('carries the active span as a W3C traceparent, and nothing outside a span', async () => {
    const exporter = new InMemorySpanExporter();
    tracing = startTracing('weft-tools', {}, exporter);
    expect(currentTraceCarrier()).toBeUndefined();
    await inSpan('step', {}, async (span) => {
      const { traceId, spanId } = span?.spanContext() ?? {};
      expect(currentTraceCarrier()).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    });
  });

  it('marks a span failed with the error code of what threw, and rethrows', async () => {
    const exporter = new InMemorySpanExporter();
    tracing = startTracing('weft-tools', { OTEL_SERVICE_NAME: 'tools-eu' }, exporter);
    const failure = Object.assign(new Error('no such file'), { code: 'TOOLS.FILE_NOT_FOUND' });
    await expect(inSpan('tool read_file', {}, () => Promise.reject(failure))).rejects.toBe(failure);
    await tracing.flush();
    const [span] = exporter.getFinishedSpans();
    expect(span?.status).toEqual({ code: 2, message: 'no such file' });
    expect(span?.attributes['error.type']).toBe('TOOLS.FILE_NOT_FOUND');
    expect(span?.resource.attributes['service.name']).toBe('tools-eu');
  });
});
