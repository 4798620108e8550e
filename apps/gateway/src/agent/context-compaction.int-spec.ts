import type { StoredSessionEvent } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule, requestsOf, script } from '../test/scripted-workers';
import { readEvents } from '../test/sse-client';

/**
 * Context management through the public API, on real Redis and NATS, with the scripted model
 * `tiny` (a 4096-token context) and replies capped at 1024 tokens: what is left for the prompt
 * is 3072 tokens.
 */
const ADMIN_TOKEN = TEST_ADMIN_TOKEN;

let gateway: GatewayUnderTest;
let base: string;

type Json = Record<string, unknown>;

async function api(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Json };
}

let users = 0;
async function session(): Promise<{ key: string; sessionId: string }> {
  // User names are unique.
  const userId = String((await api('POST', '/v1/admin/users', ADMIN_TOKEN, { name: `ctx-${++users}` })).json.id);
  const key = String((await api('POST', `/v1/admin/users/${userId}/keys`, ADMIN_TOKEN)).json.key);
  const workspaceId = String((await api('POST', '/v1/workspaces', key, {})).json.id);
  const created = await api('POST', '/v1/sessions', key, { workspaceId, model: 'tiny' });
  expect(created.status).toBe(201);
  return { key, sessionId: String(created.json.id) };
}

async function runTurn(s: { key: string; sessionId: string }, content: string): Promise<StoredSessionEvent[]> {
  const before = await api('GET', `/v1/sessions/${s.sessionId}`, s.key);
  expect((await api('POST', `/v1/sessions/${s.sessionId}/messages`, s.key, { content })).status).toBe(202);
  return readEvents(
    `${base}/v1/sessions/${s.sessionId}/events?after=${String(before.json.lastEventId)}`,
    { authorization: `Bearer ${s.key}` },
    (e) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled',
  );
}

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
      AGENT_MAX_REPLY_TOKENS: '1024',
  });
  base = gateway.base;
});

afterAll(async () => {
  await gateway?.stop();
});

describe('context management', () => {
  it('replaces older turns with a summary when the history outgrows the context, and logs it', async () => {
    const s = await session();
    const longLog = `explain this log:\n${'GET /a 200\n'.repeat(730)}`; // about 2000 tokens
    // The worker counts turn 1's prompt at 2500 tokens: about 500 of system prompt and tool schemas.
    script(s.sessionId, [
      { text: 'It is a healthy access log.', promptTokens: 2500 },
      { text: 'SUMMARY: the user pasted an access log; it was healthy.' },
      { text: 'Done: added the retry.' },
    ]);
    const first = await runTurn(s, longLog);
    expect(first.map((e) => e.type)).not.toContain('context.compacted');

    const second = await runTurn(s, `now add a retry to the client ${'please '.repeat(570)}`); // about 1000 tokens
    const compacted = second.find((e) => e.type === 'context.compacted');
    expect(compacted).toMatchObject({ contextSize: 4096, summarisedMessages: 2, keptMessages: 1 });
    if (compacted?.type !== 'context.compacted') throw new Error('no context.compacted event');
    expect(compacted.tokensBefore).toBeGreaterThan(3072);
    expect(compacted.tokensAfter).toBeLessThanOrEqual(3072);
    expect(second.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(second.find((e) => e.type === 'message.completed')).toMatchObject({ content: 'Done: added the retry.' });

    const [, summary, answer] = requestsOf(s.sessionId);
    expect(summary?.tools).toBeUndefined();
    expect(summary?.messages.at(-1)?.content).toContain('Summarise the conversation so far');
    expect(summary?.messages.at(-1)?.content).toContain('It is a healthy access log.');
    expect(answer?.tools?.length).toBeGreaterThan(0);
    expect(answer?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(answer?.messages[0]?.content).toContain('SUMMARY: the user pasted an access log');
    expect(answer?.messages[1]?.content).toMatch(/^now add a retry/);

    // What the user saw stays stored; the compaction is recorded beside it.
    const stored = await api('GET', `/v1/sessions/${s.sessionId}`, s.key);
    const messages = stored.json.messages as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[0]?.content).toBe(longLog);
    expect(stored.json.compaction).toEqual({
      summarisedMessages: 2,
      summary: 'SUMMARY: the user pasted an access log; it was healthy.',
    });
  });

  it('sends a history that fits as it is', async () => {
    const s = await session();
    script(s.sessionId, [{ text: 'one' }, { text: 'two' }]);
    await runTurn(s, 'hello');
    const second = await runTurn(s, 'again');
    expect(second.map((e) => e.type)).not.toContain('context.compacted');
    expect(requestsOf(s.sessionId).at(-1)?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect((await api('GET', `/v1/sessions/${s.sessionId}`, s.key)).json.compaction).toBeNull();
  });
});
