import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { SpanKind, contextFromCarrier, failSpan, startSpan, tracingEnabled, withSpan } from '@weft/telemetry';
import { type Observable, finalize, tap } from 'rxjs';
import { traceCarrierFrom } from './trace-headers';

/**
 * A SERVER span around each message a worker handles whose headers carry a trace context, named
 * by its subject; for a streamed reply it lasts until the stream ends. Whatever the handler
 * sends on (another request) is its child.
 */
export class NatsTraceInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!tracingEnabled() || execution.getType() !== 'rpc') return next.handle();
    const nats = execution.switchToRpc().getContext<NatsContext>();
    const carrier = traceCarrierFrom(nats.getHeaders());
    if (!carrier) return next.handle();
    const subject = nats.getSubject();
    const span = startSpan(subject, {
      kind: SpanKind.SERVER,
      parent: contextFromCarrier(carrier),
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    });
    // Nest binds the handler to the async context current when handle() is called: this one.
    return withSpan(span, () => next.handle()).pipe(
      tap({ error: (error: unknown) => failSpan(span, error) }),
      finalize(() => span?.end()),
    );
  }
}
