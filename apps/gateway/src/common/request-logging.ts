import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger, redactUrl } from '@weft/logging';
import { pinoHttp } from 'pino-http';

const PROBES = new Set(['/healthz', '/readyz']);

/**
 * One log line per request, with an id that is also sent back as `X-Request-Id`, and as
 * `Request-Id`, the header Anthropic's SDKs read (`error.requestID`, `_request_id`). Only what is
 * needed to follow a request: never headers or bodies (they carry keys and code), and the URL
 * with credentials in its query string replaced (see `redactUrl`).
 */
export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (_req: IncomingMessage, res: ServerResponse) => {
      const id = randomUUID();
      res.setHeader('X-Request-Id', id);
      res.setHeader('Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: { ignore: (req) => PROBES.has(req.url ?? '') },
  });
}
