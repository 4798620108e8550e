export { startTracing, tracesUrl, tracingEnabled } from './tracing';
export type { Tracing, TracingSettings, WeftService } from './tracing';
export { contextFromCarrier, currentTraceCarrier } from './carrier';
export type { TraceCarrier } from './carrier';
export { SpanKind, failSpan, inSpan, recordSpan, startSpan, withSpan } from './spans';
export type { Span, SpanOptions } from './spans';
export { httpServerTracing } from './http-server';
