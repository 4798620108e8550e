import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { flushOnExitSignals } from './flush-on-signal';

/** The services' own names on their spans, unless OTEL_SERVICE_NAME says otherwise. */
export type WeftService = 'weft-gateway' | 'weft-inference' | 'weft-tools' | 'weft-sandbox';

/** What a service reads from its config to trace (libs/config's telemetryEnv). */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
}

/** A started tracer provider; `flush` exports what is queued now, `shutdown` that and stops. */
export interface Tracing {
  readonly enabled: boolean;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let on = false;

/** Whether this process exports spans: hot paths skip all span work when it does not. */
export function tracingEnabled(): boolean {
  return on;
}

/**
 * Starts tracing when an OTLP endpoint is configured, else does nothing: the API's no-op tracer
 * stays in place and the helpers in this lib return before allocating anything.
 * Call it first thing in main.ts, before the app is created.
 */
export function startTracing(service: WeftService, settings: TracingSettings, exporter?: SpanExporter): Tracing {
  const url = tracesUrl(settings);
  if (!url && !exporter) return { enabled: false, flush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.OTEL_SERVICE_NAME ?? service }),
    spanProcessors: [new BatchSpanProcessor({ exporter: exporter ?? new OTLPTraceExporter({ url }) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  on = true;
  const stopListening = flushOnExitSignals(() => provider.shutdown());
  return {
    enabled: true,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      stopListening();
      on = false;
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The per-signal endpoint as given, or `/v1/traces` under the base endpoint (the OTLP spec's rule). */
export function tracesUrl(settings: TracingSettings): string | undefined {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}
