import type { StoredSessionEvent } from '@weft/contracts';
import { readStream } from '../../e2e/support/turns';

export interface TurnReport {
  ttftMs: number;
  completionTokens: number;
  outcome: StoredSessionEvent['type'];
  /** When the message was accepted and when the turn's last event came (epoch ms). */
  postedAt: number;
  endedAt: number;
  /** The streamed deltas did not add up to the message, or the replayed log differs from the stream. */
  lostEvents: number;
  /** Why a turn did not complete: its `turn.failed` code and message. */
  failure?: string;
}

/** What the client met on the way that a careful client rides out: 503s retried, streams reconnected. */
export const clientRetries = { refused: 0, reconnects: 0 };

const TERMINAL = new Set(['turn.completed', 'turn.failed', 'turn.cancelled']);
const ended = (e: StoredSessionEvent) => TERMINAL.has(e.type);
/** A turn that has not ended after this long is reported as lost, not waited on forever. */
const TURN_LIMIT_MS = 10 * 60_000;

/** One user's view of the public API: a key, a workspace, sessions and their turns over SSE. */
export class BenchUser {
  private workspaceId = '';

  private constructor(
    private readonly base: string,
    readonly id: string,
    private readonly key: string,
  ) {}

  static async create(base: string, adminToken: string, name: string, limits: Record<string, number>): Promise<BenchUser> {
    const user = await request(base, adminToken, 'POST', '/v1/admin/users', { name });
    const id = String(user.id);
    const key = String((await request(base, adminToken, 'POST', `/v1/admin/users/${id}/keys`)).key);
    await request(base, adminToken, 'PUT', `/v1/admin/users/${id}/limits`, limits);
    const bench = new BenchUser(base, id, key);
    bench.workspaceId = String((await bench.api('POST', '/v1/workspaces', {})).id);
    return bench;
  }

  async newSession(model: string): Promise<string> {
    return String((await this.api('POST', '/v1/sessions', { workspaceId: this.workspaceId, model, maxIterations: 1 })).id);
  }

  /**
   * Posts a message and follows the stream to the turn's end as a careful client does: a 503 is
   * retried after its Retry-After (once the session shows the message did not land), a broken
   * stream is reopened from the last id seen. TTFT is the first delta. Then the turn is read
   * again from the stored log: what was streamed live must be what was stored.
   */
  async turn(sessionId: string, content: string): Promise<TurnReport> {
    const after = await this.lastEventId(sessionId);
    const started = performance.now();
    await this.post(sessionId, after, content);
    const postedAt = Date.now();
    let ttftMs = Number.NaN;
    const live = await this.follow(sessionId, after, (e) => {
      if (e.type === 'message.delta' && Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
    });
    const endedAt = Date.now();
    const stored = live.length > 0 ? await this.follow(sessionId, after) : [];
    const last = live.at(-1);
    const streamed = live.filter((e) => e.type === 'message.delta' || e.type === 'message.resync');
    const text = streamed.reduce((acc, e) => (e.type === 'message.resync' ? e.text : e.type === 'message.delta' ? acc + e.text : acc), '');
    const message = live.find((e) => e.type === 'message.completed');
    const sameIds = stored.length === live.length && stored.every((e, i) => e.id === live[i]!.id);
    let lostEvents = sameIds ? 0 : Math.max(1, Math.abs(stored.length - live.length));
    if (message && message.content !== text) lostEvents++;
    const outcome = last && ended(last) ? last.type : 'turn.failed';
    return {
      ttftMs,
      completionTokens: last?.type === 'turn.completed' ? last.usage.completionTokens : 0,
      outcome,
      postedAt,
      endedAt,
      lostEvents,
      ...(last?.type === 'turn.failed' ? { failure: `${last.code}: ${last.message.slice(0, 100)}` } : {}),
      ...(!last || !ended(last) ? { failure: `no end within ${TURN_LIMIT_MS / 1000} s` } : {}),
    };
  }

  private async lastEventId(sessionId: string): Promise<string> {
    return String((await this.api('GET', `/v1/sessions/${sessionId}`)).lastEventId ?? '0-0');
  }

  /** A 503 or a dropped connection may or may not have stored the message: the session's log says which. */
  private async post(sessionId: string, after: string, content: string): Promise<void> {
    for (;;) {
      try {
        await request(this.base, this.key, 'POST', `/v1/sessions/${sessionId}/messages`, { content }, false);
        return;
      } catch (error) {
        if (!(error instanceof Retryable)) throw error;
        clientRetries.refused++;
        await sleep(error.retryAfterMs);
        if ((await this.lastEventId(sessionId)) !== after) return;
      }
    }
  }

  /** The session's events after `after` up to the first turn end, reconnecting with the last id seen. */
  private async follow(sessionId: string, after: string, onEvent?: (e: StoredSessionEvent) => void): Promise<StoredSessionEvent[]> {
    const events: StoredSessionEvent[] = [];
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(), TURN_LIMIT_MS);
    let last = after;
    try {
      while (!controller.signal.aborted) {
        try {
          await readStream(
            this.key,
            sessionId,
            last,
            (e) => {
              events.push(e);
              last = e.id;
              onEvent?.(e);
              if (ended(e)) controller.abort();
            },
            controller.signal,
            this.base,
          );
        } catch {
          // broken stream or refused reconnect: try again below
        }
        if (controller.signal.aborted) break;
        clientRetries.reconnects++;
        await sleep(500);
      }
    } finally {
      clearTimeout(deadline);
    }
    return events;
  }

  private api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    return request(this.base, this.key, method, path, body);
  }
}

/** A 503 (Redis down) or a refused connection (the gateway restarting): worth asking again. */
class Retryable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** A request; with `retry` (the default), 503s and refused connections are retried after Retry-After. */
async function request(base: string, token: string, method: string, path: string, body?: unknown, retry = true): Promise<Record<string, unknown>> {
  for (;;) {
    try {
      return await requestOnce(base, token, method, path, body);
    } catch (error) {
      if (!retry || !(error instanceof Retryable)) throw error;
      clientRetries.refused++;
      await sleep(error.retryAfterMs);
    }
  }
}

async function requestOnce(base: string, token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new Retryable(`${method} ${path}: ${String(error)}`, 1000);
  }
  const text = await response.text();
  if (response.status === 503) throw new Retryable(`${method} ${path}: 503 ${text}`, Number(response.headers.get('retry-after') ?? 1) * 1000);
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
