import { createParser } from 'eventsource-parser';
import type { StoredSessionEvent } from '@weft/contracts';
import { gatewayUrl, stackEnv } from './stack';

export interface Reply<T = unknown> {
  status: number;
  body: T;
}

/** A thin fetch wrapper for the public API, the way any client would call it. */
export async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Reply<T>> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? (body as RequestInit['body']) : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: file bytes, returned as text
  }
  return { status: res.status, body: parsed as T };
}

export const admin = (method: string, path: string, body?: unknown) => call(method, path, stackEnv.WEFT_ADMIN_TOKEN, body);

/** A new user and their key. The stack is shared across files: a name taken by another file fails here, saying so. */
export async function newUserKey(name: string): Promise<string> {
  const user = await admin('POST', '/v1/admin/users', { name });
  if (user.status !== 201) throw new Error(`creating user ${name}: HTTP ${user.status} ${JSON.stringify(user.body)}`);
  const key = await admin('POST', `/v1/admin/users/${(user.body as { id: string }).id}/keys`);
  if (key.status !== 201) throw new Error(`creating a key for ${name}: HTTP ${key.status} ${JSON.stringify(key.body)}`);
  return (key.body as { key: string }).key;
}

/** Follows a session's SSE stream until the given turn completes or fails. */
export async function followTurn(
  key: string,
  sessionId: string,
  turnId: string,
  after?: string,
  onEvent: (event: StoredSessionEvent) => void = () => undefined,
): Promise<StoredSessionEvent[]> {
  const query = after ? `?after=${encodeURIComponent(after)}` : '';
  const controller = new AbortController();
  const res = await fetch(`${gatewayUrl}/v1/sessions/${sessionId}/events${query}`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
  const events: StoredSessionEvent[] = [];
  let finished = false;
  const parser = createParser({
    onEvent: (message) => {
      const event = JSON.parse(message.data) as StoredSessionEvent;
      events.push(event);
      onEvent(event);
      if ((event.type === 'turn.completed' || event.type === 'turn.failed') && event.turnId === turnId) finished = true;
    },
  });
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  while (!finished) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  controller.abort();
  return events;
}

/** Answers every permission question of a turn as a person at the keyboard would. */
export function answerPermissions(key: string, sessionId: string, decision: 'allow_once' | 'deny') {
  const answered: Array<Promise<Reply>> = [];
  const onEvent = (event: StoredSessionEvent) => {
    if (event.type !== 'permission.requested') return;
    answered.push(call('POST', `/v1/sessions/${sessionId}/permissions/${event.requestId}`, key, { decision }));
  };
  return { onEvent, answered };
}
