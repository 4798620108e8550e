import { type StoredSessionEvent, sessionEventSchema } from '@weft/contracts';
import { createParser } from 'eventsource-parser';
import { ApiError } from './api-error';
import type { ApiClient } from './client';

export type StreamState = { status: 'connecting' | 'live' } | { status: 'reconnecting'; reason: string } | { status: 'failed'; reason: string };

/** Reconnects back off from 1 s to this. */
const MAX_BACKOFF_MS = 15_000;
/** Answers that another try will not change. */
const FINAL_STATUSES = new Set([401, 403, 404]);

/**
 * Follows a session's log over SSE for as long as `signal` lives: the whole log first, then live.
 * Read with fetch, not EventSource, because the key goes in a header (the API refuses it in a
 * URL). After a dropped connection it asks again from the last id it received (`Last-Event-ID`),
 * so nothing is missed; the timeline drops anything it has already applied.
 */
export async function followSession(
  api: ApiClient,
  sessionId: string,
  onEvents: (events: StoredSessionEvent[]) => void,
  onState: (state: StreamState) => void,
  signal: AbortSignal,
): Promise<void> {
  let lastEventId: string | null = null;
  let failures = 0;
  while (!signal.aborted) {
    onState({ status: 'connecting' });
    let reason = 'the connection closed';
    try {
      const response = await api.events(sessionId, lastEventId ?? undefined, signal);
      if (!response.body) throw new ApiError(response.status, 'WEB.NO_STREAM', 'The gateway sent no event stream.');
      onState({ status: 'live' });
      failures = 0;
      await readStream(response.body, signal, (id, event) => {
        lastEventId = id;
        if (event) onEvents([event]);
      });
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && FINAL_STATUSES.has(error.status)) {
        onState({ status: 'failed', reason: error.message });
        return;
      }
      reason = error instanceof Error ? error.message : String(error);
    }
    if (signal.aborted) return;
    onState({ status: 'reconnecting', reason });
    failures += 1;
    await sleep(Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1)), signal);
  }
}

type OnMessage = (id: string, event: StoredSessionEvent | null) => void;

async function readStream(body: ReadableStream<Uint8Array>, signal: AbortSignal, onMessage: OnMessage): Promise<void> {
  const parser = createParser({
    onEvent: (message) => {
      if (message.id) onMessage(message.id, parseEvent(message.id, message.data));
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** An event of a type this page does not know (a newer gateway) is skipped, not fatal. */
function parseEvent(id: string, data: string): StoredSessionEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null; // not an event of the log: nothing to show
  }
  const parsed = sessionEventSchema.safeParse(json);
  if (!parsed.success) return null;
  const at = typeof (json as { at?: unknown }).at === 'string' ? (json as { at: string }).at : new Date().toISOString();
  return { ...parsed.data, id, at };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
