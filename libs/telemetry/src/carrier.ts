import { ROOT_CONTEXT, context, propagation, trace, type Context } from '@opentelemetry/api';
import { tracingEnabled } from './tracing';

/** W3C trace context as plain strings: what a job's data or a message's headers carry. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/**
 * The active span's context to send along, or undefined when tracing is off or nothing is being
 * traced here (a heartbeat, a health probe): a receiver then starts no span either.
 */
export function currentTraceCarrier(): TraceCarrier | undefined {
  if (!tracingEnabled() || !trace.getSpan(context.active())) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) } : undefined;
}

/** The remote parent a carrier names, as a context to start spans in. */
export function contextFromCarrier(carrier: Partial<TraceCarrier>): Context {
  return propagation.extract(ROOT_CONTEXT, carrier);
}
