import { request } from 'node:http';
import { createParser } from 'eventsource-parser';
import { create as createTar } from 'tar';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredSessionEvent } from '@weft/contracts';

/** A client of a gateway's public API at `baseUrl`, as any user's client calls it. */
export class WeftHttp {
  constructor(
    readonly baseUrl: string,
    private readonly adminToken: string,
  ) {}

  async call<T>(method: string, path: string, key: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : body instanceof Uint8Array ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async newUserKey(name: string): Promise<string> {
    return (await this.newUser(name)).key;
  }

  async newUser(name: string): Promise<{ id: string; key: string }> {
    const user = await this.call<{ id: string }>('POST', '/v1/admin/users', this.adminToken, { name });
    return { id: user.id, key: (await this.call<{ key: string }>('POST', `/v1/admin/users/${user.id}/keys`, this.adminToken)).key };
  }

  async uploadWorkspace(key: string, files: Record<string, string>): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'weft-swarm-ws-'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    const chunks: Buffer[] = [];
    for await (const chunk of createTar({ gzip: true, cwd: dir }, Object.keys(files))) chunks.push(chunk as Buffer);
    return (await this.call<{ id: string }>('POST', '/v1/workspaces', key, new Uint8Array(Buffer.concat(chunks)), 'application/gzip')).id;
  }

  async createSession(key: string, workspaceId: string, model: string, options: Record<string, unknown> = {}): Promise<string> {
    return (await this.call<{ id: string }>('POST', '/v1/sessions', key, { workspaceId, model, ...options })).id;
  }

  /**
   * Posts a message and returns the session's whole log up to the end of that turn; with
   * `allow`, each permission the turn asks for is granted once, as a person at the client would.
   */
  async runTurn(key: string, sessionId: string, content: string, timeoutMs = 120_000, allow = false): Promise<StoredSessionEvent[]> {
    const { turnId } = await this.call<{ turnId: string }>('POST', `/v1/sessions/${sessionId}/messages`, key, { content });
    const answer = async (event: StoredSessionEvent) => {
      // Only this turn's: the stream replays the session's earlier ones, already answered.
      if (allow && event.type === 'permission.requested' && event.turnId === turnId) {
        await this.call('POST', `/v1/sessions/${sessionId}/permissions/${event.requestId}`, key, { decision: 'allow_once' });
      }
    };
    return this.eventsUntil(key, sessionId, (e) => (e.type === 'turn.completed' || e.type === 'turn.failed') && 'turnId' in e && e.turnId === turnId, timeoutMs, answer);
  }

  /** Reads the session's event stream from its start until an event matches, handing each to `seen`. */
  async eventsUntil(
    key: string,
    sessionId: string,
    last: (event: StoredSessionEvent) => boolean,
    timeoutMs: number,
    seen: (event: StoredSessionEvent) => Promise<void> = async () => undefined,
  ): Promise<StoredSessionEvent[]> {
    const res = await fetch(`${this.baseUrl}/v1/sessions/${sessionId}/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
    const events: StoredSessionEvent[] = [];
    const fresh: StoredSessionEvent[] = [];
    let done = false;
    const parser = createParser({
      onEvent: (message) => {
        const event = JSON.parse(message.data) as StoredSessionEvent;
        events.push(event);
        fresh.push(event);
        if (last(event)) done = true;
      },
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    while (!done) {
      const { done: ended, value } = await reader.read();
      if (ended) throw new Error(`the event stream ended before the turn did: ${events.map((e) => e.type).join(', ')}`);
      parser.feed(decoder.decode(value, { stream: true }));
      for (const event of fresh.splice(0)) await seen(event);
    }
    await reader.cancel();
    return events;
  }
}

/**
 * One GET on a connection of its own (no keep-alive pool): each request is routed afresh, as
 * separate clients' requests are. Resolves with the status, or the network error's code.
 */
export function probe(url: string, key: string, timeoutMs = 10_000): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, headers: { authorization: `Bearer ${key}` }, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}
