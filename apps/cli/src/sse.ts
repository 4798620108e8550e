import { setTimeout as delay } from 'node:timers/promises';
import { sessionEventSchema, type StoredSessionEvent } from '@weft/contracts';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ApiClient } from './api-client';
import { ApiError, ConnectionError, ProtocolError } from './errors';

/** The gateway sends a keep-alive comment every 15 s; three missed ones mean the link is dead. */
export const IDLE_TIMEOUT_MS = 45_000;
export const MAX_CONSECUTIVE_FAILURES = 10;
const MAX_RETRY_DELAY_MS = 5_000;

/** One event off the wire: `raw` as sent (for --json), `event` when this client knows its type. */
export interface ReceivedEvent {
  readonly id: string;
  readonly raw: Record<string, unknown>;
  readonly event: StoredSessionEvent | undefined;
}

export interface FollowOptions {
  /** Start after this event id (exclusive). */
  readonly after?: string;
  readonly signal?: AbortSignal;
  readonly idleTimeoutMs?: number;
  readonly retryDelayMs?: number;
  /** Told before each reconnect, so a client can say the link dropped. */
  readonly onReconnect?: (attempt: number, lastId: string | undefined, cause: unknown) => void;
}

class StreamIdleError extends Error {
  override readonly name = 'StreamIdleError';
}

/**
 * Follows a session's event log, reconnecting with the last seen id (as `Last-Event-ID` and
 * `?after=`) whenever the stream drops. Yields each event once, in order; ends only when the
 * caller stops iterating or aborts.
 */
export async function* followEvents(
  client: ApiClient,
  sessionId: string,
  options: FollowOptions = {},
): AsyncGenerator<ReceivedEvent, void, undefined> {
  const { signal } = options;
  let lastId = options.after;
  let failures = 0;
  for (;;) {
    const controller = new AbortController();
    const forwardAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdleTimer = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () => controller.abort(new StreamIdleError('no data from the event stream')),
        options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
      );
    };
    let cause: unknown = new Error('the event stream ended');
    try {
      armIdleTimer();
      const response = await client.events(sessionId, lastId, controller.signal);
      if (!response.body) throw new ProtocolError('the event stream has no body');
      const pending: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (message) => pending.push(message) });
      const decoder = new TextDecoder();
      for await (const chunk of response.body) {
        armIdleTimer();
        parser.feed(decoder.decode(chunk, { stream: true }));
        for (let message = pending.shift(); message; message = pending.shift()) {
          const received = toReceivedEvent(message);
          if (lastId !== undefined && !isAfter(received.id, lastId)) continue; // replayed after a reconnect
          lastId = received.id;
          failures = 0;
          yield received;
        }
      }
    } catch (error) {
      if (signal?.aborted) throw error;
      if (error instanceof ProtocolError) throw error;
      if (error instanceof ApiError && error.status < 500) throw error;
      cause = error;
    } finally {
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', forwardAbort);
      controller.abort(); // releases the socket when the caller stops early
    }
    failures += 1;
    if (failures > MAX_CONSECUTIVE_FAILURES) {
      throw new ConnectionError(client.baseUrl, `the event stream keeps dropping (${describe(cause)})`, { cause });
    }
    options.onReconnect?.(failures, lastId, cause);
    const wait = Math.min((options.retryDelayMs ?? 250) * 2 ** (failures - 1), MAX_RETRY_DELAY_MS);
    await delay(wait, undefined, { signal });
  }
}

function toReceivedEvent(message: EventSourceMessage): ReceivedEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(message.data);
  } catch (error) {
    throw new ProtocolError(`the event stream sent data that is not JSON: ${message.data.slice(0, 80)}`, { cause: error });
  }
  if (typeof raw !== 'object' || raw === null) throw new ProtocolError('the event stream sent an event that is not an object');
  const record = raw as Record<string, unknown>;
  const id = message.id ?? (typeof record.id === 'string' ? record.id : undefined);
  if (!id) throw new ProtocolError('the event stream sent an event without an id');
  const parsed = sessionEventSchema.safeParse(record);
  // An event type newer than this client is passed on raw rather than failing the turn.
  const event = parsed.success ? { ...parsed.data, id, at: typeof record.at === 'string' ? record.at : '' } : undefined;
  return { id, raw: record, event };
}

/** Redis stream ids are `<ms>-<seq>`; anything else is only compared for equality. */
export function isAfter(id: string, lastId: string): boolean {
  const a = /^(\d+)-(\d+)$/.exec(id);
  const b = /^(\d+)-(\d+)$/.exec(lastId);
  if (!a || !b) return id !== lastId;
  const [msA, seqA, msB, seqB] = [a[1], a[2], b[1], b[2]].map((part) => BigInt(part ?? '0')) as [bigint, bigint, bigint, bigint];
  return msA > msB || (msA === msB && seqA > seqB);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
