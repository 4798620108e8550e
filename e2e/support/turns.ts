import { createParser } from 'eventsource-parser';
import type { StoredSessionEvent } from '@weft/contracts';
import { call } from './api';
import { gatewayUrl } from './stack';

const TERMINAL = new Set(['turn.completed', 'turn.failed', 'turn.cancelled']);
/** How long a follower waits before it reconnects after its stream ended, as EventSource does. */
const RECONNECT_MS = 500;

export interface LiveTurn {
  turnId: string;
  /** When the message was accepted (202). */
  postedAt: number;
  /** Every event of the session after the post, in the order this client received them. */
  readonly events: StoredSessionEvent[];
  /** How many times the stream broke and the client reconnected with the last id it saw. */
  readonly reconnects: number;
  /** Resolves with the first event (already seen or to come) that matches. */
  waitFor(match: (event: StoredSessionEvent) => boolean, timeoutMs?: number): Promise<StoredSessionEvent>;
  /** The turn's last event (`turn.completed`, `turn.failed` or `turn.cancelled`) and when it came. */
  readonly ended: Promise<{ event: StoredSessionEvent; at: number }>;
  stop(): void;
}

/**
 * Posts a message and follows the session's events the way a careful client does: when the stream
 * breaks (the gateway lost Redis, a proxy cut it) it reconnects with the last id it saw, so it
 * neither misses nor repeats an event. Gives up after `timeoutMs`.
 */
export async function startTurn(key: string, sessionId: string, content: string, timeoutMs = 240_000): Promise<LiveTurn> {
  const before = await call<{ lastEventId?: string }>('GET', `/v1/sessions/${sessionId}`, key);
  const posted = await call<{ turnId: string }>('POST', `/v1/sessions/${sessionId}/messages`, key, { content });
  if (posted.status !== 202) throw new Error(`post: HTTP ${posted.status} ${JSON.stringify(posted.body)}`);
  const turnId = posted.body.turnId;
  const events: StoredSessionEvent[] = [];
  const waiters = new Set<() => void>();
  const controller = new AbortController();
  let reconnects = 0;
  let last = before.body.lastEventId ?? '0-0';
  let finish!: (value: { event: StoredSessionEvent; at: number }) => void;
  let fail!: (error: Error) => void;
  const ended = new Promise<{ event: StoredSessionEvent; at: number }>((resolve, reject) => ((finish = resolve), (fail = reject)));
  // A test that failed before awaiting it must not leave an unhandled rejection behind.
  ended.catch(() => undefined);
  const timer = setTimeout(() => {
    controller.abort();
    fail(new Error(`turn ${turnId} did not end within ${timeoutMs} ms; saw ${events.map((e) => e.type).join(', ')}`));
  }, timeoutMs);
  const onEvent = (event: StoredSessionEvent) => {
    events.push(event);
    last = event.id;
    for (const wake of [...waiters]) wake();
    if (TERMINAL.has(event.type) && 'turnId' in event && event.turnId === turnId) {
      clearTimeout(timer);
      controller.abort();
      finish({ event, at: Date.now() });
    }
  };
  void (async () => {
    while (!controller.signal.aborted) {
      try {
        await readStream(key, sessionId, last, onEvent, controller.signal);
      } catch {
        // the stream broke: reconnect below
      }
      if (controller.signal.aborted) return;
      reconnects++;
      await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  })();
  const waitFor = (match: (event: StoredSessionEvent) => boolean, waitMs = 60_000) =>
    new Promise<StoredSessionEvent>((resolve, reject) => {
      const check = () => {
        const found = events.find(match);
        if (!found) return;
        waiters.delete(check);
        clearTimeout(deadline);
        resolve(found);
      };
      const deadline = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching event within ${waitMs} ms; saw ${events.map((e) => e.type).join(', ')}`));
      }, waitMs);
      waiters.add(check);
      check();
    });
  return {
    turnId,
    postedAt: Date.now(),
    events,
    get reconnects() {
      return reconnects;
    },
    waitFor,
    ended,
    stop: () => {
      clearTimeout(timer);
      controller.abort();
    },
  };
}

/** One SSE connection: the events after `after`, until the server or `signal` ends it. */
export async function readStream(
  key: string,
  sessionId: string,
  after: string,
  onEvent: (event: StoredSessionEvent) => void,
  signal: AbortSignal,
  base = gatewayUrl,
): Promise<void> {
  const res = await fetch(`${base}/v1/sessions/${sessionId}/events?after=${encodeURIComponent(after)}`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal,
  });
  if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
  const parser = createParser({ onEvent: (message) => onEvent(JSON.parse(message.data) as StoredSessionEvent) });
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  while (!signal.aborted) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(decoder.decode(value, { stream: true }));
  }
}

/** A session's stored log read over SSE from the start, until `done` says so or 30 s have passed. */
async function readFromStart(key: string, sessionId: string, done: (event: StoredSessionEvent) => boolean): Promise<StoredSessionEvent[]> {
  const events: StoredSessionEvent[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    await readStream(
      key,
      sessionId,
      '0-0',
      (event) => {
        events.push(event);
        if (done(event)) controller.abort();
      },
      controller.signal,
    );
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  return events;
}

/** The whole log of a session as stored, up to `untilId`. */
export async function readLog(key: string, sessionId: string, untilId: string): Promise<StoredSessionEvent[]> {
  const events = await readFromStart(key, sessionId, (event) => event.id === untilId);
  if (events.at(-1)?.id !== untilId) throw new Error(`the log of ${sessionId} ends at ${events.at(-1)?.id}, not ${untilId}`);
  return events;
}

/** A session's stored log up to the end of its `turns`-th turn (what came within 30 s). */
export function readTurns(key: string, sessionId: string, turns = 1): Promise<StoredSessionEvent[]> {
  let ended = 0;
  return readFromStart(key, sessionId, (event) => TERMINAL.has(event.type) && ++ended >= turns);
}

/** Orders stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

/**
 * What every kill test asks of a session's log: ids strictly increasing; each turn opens with
 * `message.created` and `turn.started` and ends with exactly one terminal event, nothing of it
 * after that; every `tool.called` has exactly one `tool.completed`. Returns the problems found.
 */
export function logProblems(log: StoredSessionEvent[]): string[] {
  const problems: string[] = [];
  for (let i = 1; i < log.length; i++) {
    const [prev, cur] = [log[i - 1]!, log[i]!];
    if (compareIds(prev.id, cur.id) >= 0) problems.push(`id ${cur.id} does not follow ${prev.id}`);
  }
  const turns = new Map<string, StoredSessionEvent[]>();
  for (const event of log) {
    if (!('turnId' in event)) continue;
    turns.set(event.turnId, [...(turns.get(event.turnId) ?? []), event]);
  }
  for (const [turnId, events] of turns) {
    const types = events.map((e) => e.type);
    if (types[0] !== 'message.created' || types[1] !== 'turn.started') problems.push(`${turnId} opens with ${types.slice(0, 2).join(', ')}`);
    const terminals = types.filter((t) => TERMINAL.has(t));
    if (terminals.length !== 1) problems.push(`${turnId} has ${terminals.length} terminal events (${terminals.join(', ')})`);
    else if (!TERMINAL.has(types.at(-1)!)) problems.push(`${turnId} logs ${types.at(-1)} after its ${terminals[0]}`);
    const outcomes = new Map<string, number>();
    for (const e of events) if (e.type === 'tool.completed') outcomes.set(`${e.threadId ?? ''}/${e.callId}`, (outcomes.get(`${e.threadId ?? ''}/${e.callId}`) ?? 0) + 1);
    for (const e of events) {
      if (e.type !== 'tool.called') continue;
      const count = outcomes.get(`${e.threadId ?? ''}/${e.call.id}`) ?? 0;
      if (count !== 1) problems.push(`${turnId}: tool call ${e.call.id} (${e.call.name}) has ${count} tool.completed`);
    }
  }
  return problems;
}
