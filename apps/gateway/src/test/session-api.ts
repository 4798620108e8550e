import type { StoredSessionEvent } from '@weft/contracts';
import { expect } from 'vitest';
import { TEST_ADMIN_TOKEN } from './gateway-under-test';
import { putFile } from './scripted-workers';
import { readEvents } from './sse-client';

export type Json = Record<string, unknown> & { error?: { code: string; message: string } };

export interface SessionFixture {
  key: string;
  userId: string;
  workspaceId: string;
  sessionId: string;
}

export const turnEnded = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';

export const ofType = <T extends StoredSessionEvent['type']>(events: StoredSessionEvent[], type: T) =>
  events.filter((e): e is Extract<StoredSessionEvent, { type: T }> => e.type === type);

/** The public HTTP API of a gateway under test, as a client drives it: users, sessions, turns, events. */
export function sessionApi(base: string) {
  async function api(method: string, path: string, token?: string, body?: unknown) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    let json: Json = {};
    try {
      json = JSON.parse(text) as Json;
    } catch {
      json = { raw: text };
    }
    return { status: response.status, json, text, headers: response.headers };
  }

  /** A new user with a key, a workspace holding `files`, and a session on `model`. */
  async function fixture(name: string, session: Record<string, unknown> = {}, files: Record<string, string> = {}): Promise<SessionFixture> {
    const user = await api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name });
    const userId = String(user.json.id);
    const key = String((await api('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN)).json.key);
    const workspaceId = String((await api('POST', '/v1/workspaces', key, {})).json.id);
    for (const [path, content] of Object.entries(files)) putFile(workspaceId, path, content);
    const created = await api('POST', '/v1/sessions', key, { workspaceId, model: 'tiny', ...session });
    expect(created.status).toBe(201);
    return { key, userId, workspaceId, sessionId: String(created.json.id) };
  }

  /** Posts to the session (a message, a chain) and returns the answer with the log position just before it. */
  async function start(f: SessionFixture, path: string, body: unknown) {
    const before = await api('GET', `/v1/sessions/${f.sessionId}`, f.key);
    const posted = await api('POST', `/v1/sessions/${f.sessionId}${path}`, f.key, body);
    expect(posted.status, posted.text).toBe(202);
    return { ...posted, after: String(before.json.lastEventId) };
  }

  function follow(f: SessionFixture, after: string, until: (e: StoredSessionEvent) => boolean = turnEnded) {
    return readEvents(`${base}/v1/sessions/${f.sessionId}/events?after=${after}`, { authorization: `Bearer ${f.key}` }, until);
  }

  return { api, fixture, start, follow };
}
