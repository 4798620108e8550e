import { NatsRecordBuilder, type NatsRecord } from '@nestjs/microservices';
import { currentTraceCarrier, type TraceCarrier } from '@weft/telemetry';
import { headers, type MsgHdrs } from 'nats';

/**
 * The payload as is, or wrapped with the active trace context in its NATS headers so the worker
 * that answers joins the caller's trace. Untraced calls (tracing off, no span) send no headers.
 */
export function withTraceHeaders<T>(body: T): T | NatsRecord {
  const carrier = currentTraceCarrier();
  if (!carrier) return body;
  const natsHeaders = headers();
  natsHeaders.set('traceparent', carrier.traceparent);
  if (carrier.tracestate) natsHeaders.set('tracestate', carrier.tracestate);
  return new NatsRecordBuilder(body).setHeaders(natsHeaders).build();
}

/** The trace context a message's headers carry, if any. */
export function traceCarrierFrom(natsHeaders: MsgHdrs | undefined): TraceCarrier | undefined {
  const traceparent = natsHeaders?.get('traceparent');
  if (!traceparent) return undefined;
  const tracestate = natsHeaders?.get('tracestate');
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
