import type { StoredSessionEvent } from '@weft/contracts';
import { readEvents } from '../../apps/gateway/src/test/sse-client';

export interface TurnReport {
  ttftMs: number;
  completionTokens: number;
  outcome: StoredSessionEvent['type'];
  /** The streamed deltas did not add up to the message, or the replayed log differs from the stream. */
  lostEvents: number;
  /** Why a turn did not complete: its `turn.failed` code and message. */
  failure?: string;
}

const ended = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';

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
   * Posts a message and follows the stream to the turn's end: TTFT is the first delta. Then the
   * turn is read again from the stored log: what was streamed live must be what was stored.
   */
  async turn(sessionId: string, content: string): Promise<TurnReport> {
    const after = String((await this.api('GET', `/v1/sessions/${sessionId}`)).lastEventId);
    const started = performance.now();
    let ttftMs = Number.NaN;
    await this.api('POST', `/v1/sessions/${sessionId}/messages`, { content });
    const live = await readEvents(`${this.base}/v1/sessions/${sessionId}/events?after=${after}`, { authorization: `Bearer ${this.key}` }, (e) => {
      if (e.type === 'message.delta' && Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
      return ended(e);
    });
    const stored = await readEvents(`${this.base}/v1/sessions/${sessionId}/events?after=${after}`, { authorization: `Bearer ${this.key}` }, ended);
    const last = live.at(-1);
    const streamed = live.filter((e) => e.type === 'message.delta').map((e) => e.text).join('');
    const message = live.find((e) => e.type === 'message.completed');
    let lostEvents = Math.abs(stored.length - live.length);
    if (message && message.content !== streamed) lostEvents++;
    return {
      ttftMs,
      completionTokens: last?.type === 'turn.completed' ? last.usage.completionTokens : 0,
      outcome: last?.type ?? 'turn.failed',
      lostEvents,
      ...(last?.type === 'turn.failed' ? { failure: `${last.code}: ${last.message.slice(0, 100)}` } : {}),
    };
  }

  private api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    return request(this.base, this.key, method, path, body);
  }
}

async function request(base: string, token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
