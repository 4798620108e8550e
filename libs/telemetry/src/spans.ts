import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { tracingEnabled } from './tracing';

const TRACER = 'weft';

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent, when it is not the active context (a remote one, taken from a carrier). */
  parent?: Context;
  /** When the span began, if before now (a queue wait measured after the fact), in epoch ms. */
  startTime?: number;
}

/**
 * Runs `work` inside a span that ends when it settles, failed if it throws; with tracing off,
 * runs it as is and hands it `undefined`, so a caller sets attributes with `span?.`.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work(undefined);
  const parent = options.parent ?? context.active();
  const span = trace.getTracer(TRACER).startSpan(name, spanStart(options), parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** A span whose start and end are known already (a wait in a queue); undefined when off. */
export function recordSpan(name: string, options: SpanOptions & { startTime: number }, endTime = Date.now()): void {
  if (!tracingEnabled()) return;
  trace
    .getTracer(TRACER)
    .startSpan(name, spanStart(options), options.parent ?? context.active())
    .end(endTime);
}

/** Starts a span the caller ends (one that spans a stream); undefined when tracing is off. */
export function startSpan(name: string, options: SpanOptions = {}): Span | undefined {
  if (!tracingEnabled()) return undefined;
  return trace.getTracer(TRACER).startSpan(name, spanStart(options), options.parent ?? context.active());
}

/** Runs `work` with `span` as the active span, so what it calls (and sends) is its child. */
export function withSpan<T>(span: Span | undefined, work: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), work) : work();
}

/** Marks a span failed with the error's code (an AppError's string code) and message, never its details. */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  if (code) span.setAttribute('error.type', code);
}

function spanStart(options: SpanOptions) {
  return { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, startTime: options.startTime };
}

export { SpanKind };
export type { Span };
