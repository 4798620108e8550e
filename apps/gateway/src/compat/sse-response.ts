import type { Response } from 'express';
import { SSE_HEADERS } from '../events/sse';

/** Opens an event stream on the response (status 200, no buffering by proxies). */
export function openEventStream(res: Response): void {
  res.status(200);
  for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
  res.flushHeaders();
}

/** `data: <json>` (and `event: <name>` when given), one SSE message; false once the client is gone. */
export function writeEvent(res: Response, data: unknown, event?: string): boolean {
  if (res.writableEnded || res.destroyed) return false;
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  return true;
}
