import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { tracingEnabled } from './tracing';

/** What Express adds to a request that this middleware reads (the matched route's pattern). */
type RoutedRequest = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };

/**
 * Connect/Express middleware: one SERVER span per request, child of an incoming `traceparent`,
 * active while the request is handled (so a turn it enqueues joins its trace), ended when the
 * response finishes or the client goes. Paths `skip` accepts (probes, scrapes) get no span.
 */
export function httpServerTracing(skip: (path: string) => boolean = () => false) {
  return (req: RoutedRequest, res: ServerResponse, next: () => void): void => {
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (!tracingEnabled() || skip(path)) return next();
    const method = req.method ?? 'GET';
    const parent = propagation.extract(context.active(), req.headers);
    const span = trace.getTracer('weft').startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } },
      parent,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : undefined;
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(trace.setSpan(parent, span), next);
  };
}
