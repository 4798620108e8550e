import { type StoredSessionEvent } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from './test/gateway-under-test';
import { FAKE_PATCH, FakeWorkersModule, closeGate, fakeWorld } from './test/fake-workers';
import { readEvents } from './test/sse-client';

const ADMIN_TOKEN = TEST_ADMIN_TOKEN;
const UPLOAD_LIMIT = 4096;

let gateway: GatewayUnderTest;
let base: string;

async function api(method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (token) (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
  if (body !== undefined) {
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    init.body = typeof body === 'string' || body instanceof Uint8Array ? (body as NonNullable<RequestInit['body']>) : JSON.stringify(body);
  }
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  let json: { error?: { code: string; message: string; errorId?: string } } & Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  return { status: response.status, json, headers: response.headers };
}

async function createUserWithKey(name: string): Promise<{ id: string; key: string }> {
  const user = await api('POST', '/v1/admin/users', ADMIN_TOKEN, { name });
  expect(user.status).toBe(201);
  const key = await api('POST', `/v1/admin/users/${String(user.json.id)}/keys`, ADMIN_TOKEN);
  expect(key.status).toBe(201);
  return { id: String(user.json.id), key: String(key.json.key) };
}

beforeAll(async () => {
  gateway = await startGatewayUnderTest(FakeWorkersModule, {
      WORKSPACE_UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT),
      WORKSPACE_QUOTA_BYTES: '1000',
      WORKSPACE_GIT_ALLOWED_HOSTS: 'git.example.com',
      INFERENCE_TIMEOUT_MS: '10000',
  });
  base = gateway.base;
});

afterAll(async () => {
  await gateway?.stop();
});

describe('gateway over HTTP', () => {
  it('answers health probes without a key', async () => {
    expect(await api('GET', '/healthz')).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await api('GET', '/readyz')).toMatchObject({ status: 200, json: { checks: { redis: 'up', nats: 'up' } } });
  });

  it('rejects a request without a key, with a wrong key, and a user key on admin routes', async () => {
    const { key } = await createUserWithKey('ada');
    const missing = await api('GET', '/v1/me');
    expect(missing.status).toBe(401);
    expect(missing.json.error?.code).toBe('AUTH.UNAUTHORIZED');
    expect((await api('GET', '/v1/me', 'weft_wrong')).status).toBe(401);
    expect((await api('POST', '/v1/admin/users', key, { name: 'eve' })).status).toBe(403);
    expect((await api('POST', '/v1/admin/users', 'wrong-admin-token-xxxxxxxx', { name: 'eve' })).status).toBe(401);
    expect(await api('GET', '/v1/me', key)).toMatchObject({ status: 200, json: { name: 'ada' } });
  });

  it('names the bad field in validation errors', async () => {
    const { key } = await createUserWithKey('bob');
    const noName = await api('POST', '/v1/admin/users', ADMIN_TOKEN, {});
    expect(noName.status).toBe(400);
    expect(noName.json.error?.message).toContain('body.name');
    const badWorkspace = await api('POST', '/v1/sessions', key, { workspaceId: 'nope', model: 'tiny' });
    expect(badWorkspace.status).toBe(400);
    expect(badWorkspace.json.error).toMatchObject({ code: 'COMMON.VALIDATION_FAILED' });
    expect(badWorkspace.json.error?.message).toContain('workspaceId');
    const badId = await api('GET', '/v1/sessions/not-a-session', key);
    expect(badId.status).toBe(400);
    expect(badId.json.error?.message).toContain('param.id');
    const badAfter = await api('GET', '/v1/sessions/ses_abcdefgh1234/events?after=yesterday', key);
    expect(badAfter.status).toBe(400);
  });

  it('answers malformed JSON, unknown routes and oversized uploads in the error shape', async () => {
    const { key } = await createUserWithKey('cy');
    const malformed = await api('POST', '/v1/sessions', key, '{"workspaceId":', { 'content-type': 'application/json' });
    expect(malformed).toMatchObject({ status: 400, json: { error: { code: 'COMMON.VALIDATION_FAILED' } } });
    expect(await api('GET', '/v1/nothing-here', key)).toMatchObject({ status: 404, json: { error: { code: 'COMMON.NOT_FOUND' } } });
    const big = new Uint8Array(UPLOAD_LIMIT + 1);
    const tooLarge = await api('POST', '/v1/workspaces', key, big, { 'content-type': 'application/gzip' });
    expect(tooLarge).toMatchObject({ status: 413, json: { error: { code: 'COMMON.PAYLOAD_TOO_LARGE' } } });
  });

  it('creates a workspace from a git URL on an allowed host and refuses any other host, naming it', async () => {
    const { key } = await createUserWithKey('gita');
    const cloned = await api('POST', '/v1/workspaces', key, { git: { url: 'https://git.example.com/acme/app.git', ref: 'main' } });
    expect(cloned.status).toBe(201);
    const refused = await api('POST', '/v1/workspaces', key, { git: { url: 'https://evil.example/acme/app.git' } });
    expect(refused).toMatchObject({ status: 403, json: { error: { code: 'AUTH.FORBIDDEN' } } });
    expect(refused.json.error?.message).toContain("'evil.example'");
    const bad = await api('POST', '/v1/workspaces', key, { git: { url: 'ext::sh -c id' } });
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'COMMON.VALIDATION_FAILED' } } });    // What a client asks before it offers the import.
    expect(await api('GET', '/v1/settings', key)).toMatchObject({ status: 200, json: { gitImportHosts: ['git.example.com'], workspaceUploadMaxBytes: UPLOAD_LIMIT } });
  });

  it('creates workspaces from {} or a tar.gz, serves files and rejects a bad archive naming the entry', async () => {
    const { key } = await createUserWithKey('dee');
    const empty = await api('POST', '/v1/workspaces', key, {});
    expect(empty.status).toBe(201);
    expect(String(empty.json.id)).toMatch(/^ws_[A-Za-z0-9_-]{8,64}$/);
    const uploaded = await api('POST', '/v1/workspaces', key, new Uint8Array([1, 2, 3]), { 'content-type': 'application/gzip' });
    expect(uploaded.status).toBe(201);
    const evil = await api('POST', '/v1/workspaces', key, new TextEncoder().encode('evil'), { 'content-type': 'application/gzip' });
    expect(evil).toMatchObject({ status: 400, json: { error: { code: 'TOOLS.ARCHIVE_REJECTED' } } });
    expect(evil.json.error?.message).toContain('../evil.txt');
    const list = await api('GET', '/v1/workspaces', key);
    expect((list.json.workspaces as unknown[]).length).toBe(2);

    const id = String(empty.json.id);
    const root = await api('GET', `/v1/workspaces/${id}/files`, key);
    expect(root).toMatchObject({ status: 200, json: { path: '.', entries: [{ name: 'README.md', type: 'file' }] } });
    const file = await fetch(`${base}/v1/workspaces/${id}/files/README.md`, { headers: { authorization: `Bearer ${key}` } });
    expect(file.headers.get('content-type')).toContain('application/octet-stream');
    expect(await file.text()).toBe('hello');
    const missing = await api('GET', `/v1/workspaces/${id}/files/docs/nope.md`, key);
    expect(missing).toMatchObject({ status: 404, json: { error: { code: 'TOOLS.FILE_NOT_FOUND' } } });
    const archive = await fetch(`${base}/v1/workspaces/${id}/archive`, { headers: { authorization: `Bearer ${key}` } });
    expect(archive.headers.get('content-type')).toContain('application/gzip');
  });

  it("holds uploads to the owner's workspace quota with a 413, and serves the export patch as text/x-diff", async () => {
    const { key } = await createUserWithKey('quin');
    const first = await api('POST', '/v1/workspaces', key, new Uint8Array(950), { 'content-type': 'application/gzip' });
    expect(first.status).toBe(201);
    // The fake tools worker reports 100 bytes per workspace: 900 are left, 950 do not fit.
    const second = await api('POST', '/v1/workspaces', key, new Uint8Array(950), { 'content-type': 'application/gzip' });
    expect(second).toMatchObject({ status: 413, json: { error: { code: 'COMMON.PAYLOAD_TOO_LARGE' } } });
    expect(second.json.error?.message).toContain('quota has 900 bytes left');

    const patch = await fetch(`${base}/v1/workspaces/${String(first.json.id)}/patch`, { headers: { authorization: `Bearer ${key}` } });
    expect(patch.status).toBe(200);
    expect(patch.headers.get('content-type')).toContain('text/x-diff');
    expect(await patch.text()).toBe(FAKE_PATCH);
    const other = await createUserWithKey('rex');
    expect((await api('GET', `/v1/workspaces/${String(first.json.id)}/patch`, other.key)).status).toBe(404);
  });

  it('lists models and rejects an unknown model, listing the known ones', async () => {
    const { key } = await createUserWithKey('eli');
    expect(await api('GET', '/v1/models', key)).toMatchObject({ status: 200, json: { models: [{ id: 'tiny' }] } });
    const ws = await api('POST', '/v1/workspaces', key, {});
    const bad = await api('POST', '/v1/sessions', key, { workspaceId: ws.json.id, model: 'gpt-9' });
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'INFERENCE.UNKNOWN_MODEL' } } });
    expect(bad.json.error?.message).toContain('tiny');
  });

  it("hides another user's workspace and session behind a 404", async () => {
    const a = await createUserWithKey('fay');
    const b = await createUserWithKey('gus');
    const ws = await api('POST', '/v1/workspaces', a.key, {});
    const session = await api('POST', '/v1/sessions', a.key, { workspaceId: ws.json.id, model: 'tiny' });
    const sid = String(session.json.id);
    expect((await api('GET', `/v1/sessions/${sid}`, b.key)).status).toBe(404);
    expect((await api('POST', `/v1/sessions/${sid}/messages`, b.key, { content: 'hi' })).status).toBe(404);
    expect((await api('GET', `/v1/sessions/${sid}/events`, b.key)).status).toBe(404);
    expect((await api('GET', `/v1/workspaces/${String(ws.json.id)}/files`, b.key)).status).toBe(404);
    const reuse = await api('POST', '/v1/sessions', b.key, { workspaceId: ws.json.id, model: 'tiny' });
    expect(reuse.status).toBe(404);
    expect((await api('GET', '/v1/sessions', b.key)).json).toEqual({ sessions: [] });
  });

  it('runs a turn with a tool call, streams its events, resumes with Last-Event-ID and refuses a second turn meanwhile', async () => {
    const { key } = await createUserWithKey('hal');
    const auth = { authorization: `Bearer ${key}` };
    const ws = await api('POST', '/v1/workspaces', key, {});
    const created = await api('POST', '/v1/sessions', key, { workspaceId: ws.json.id, model: 'tiny', title: 'demo' });
    const sid = String(created.json.id);
    const before = await api('GET', `/v1/sessions/${sid}`, key);
    expect(before.json).toMatchObject({ lastEventId: '0-0', activeTurnId: null, title: 'demo', messages: [] });

    const open = closeGate();
    const posted = await api('POST', `/v1/sessions/${sid}/messages`, key, { content: 'What does the README say?' });
    expect(posted.status).toBe(202);
    const turnId = String(posted.json.turnId);
    const busy = await api('POST', `/v1/sessions/${sid}/messages`, key, { content: 'again' });
    expect(busy).toMatchObject({ status: 409, json: { error: { code: 'AGENT.TURN_IN_PROGRESS' } } });

    const url = `${base}/v1/sessions/${sid}/events?after=${String(before.json.lastEventId)}`;
    const finished = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed';
    const events = await readEvents(url, auth, finished, (response) => {
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      open();
    });
    const types = events.map((e) => e.type);
    expect(types).toEqual([
      'message.created',
      'turn.started',
      'message.delta',
      'tool.called',
      'permission.decided',
      'tool.completed',
      // The fake model's two deltas arrive within one flush window: one event.
      'message.delta',
      'message.completed',
      'turn.completed',
    ]);
    expect(events.every((e) => e.turnId === turnId)).toBe(true);
    expect(events.at(-1)).toMatchObject({ usage: { promptTokens: 14, completionTokens: 6 }, iterations: 2 });
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ name: 'read_file', isError: false, output: '# Demo\nhello' });
    expect(fakeWorld.toolCalls.at(-1)).toEqual({ workspaceId: ws.json.id, tool: 'read_file', arguments: { path: 'README.md' } });

    const calledAt = events.findIndex((e) => e.type === 'tool.called');
    const resumed = await readEvents(
      `${base}/v1/sessions/${sid}/events?after=0-0`,
      { ...auth, 'last-event-id': events[calledAt]?.id ?? '' },
      finished,
    );
    expect(resumed.map((e) => e.id)).toEqual(events.slice(calledAt + 1).map((e) => e.id));

    const after = await api('GET', `/v1/sessions/${sid}`, key);
    expect(after.json.activeTurnId).toBeNull();
    expect(after.json.lastEventId).toBe(events.at(-1)?.id);
    expect((after.json.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const list = await api('GET', '/v1/sessions', key);
    expect(list.json.sessions).toEqual([expect.objectContaining({ id: sid, activeTurnId: null, model: 'tiny' })]);

    const next = await api('POST', `/v1/sessions/${sid}/messages`, key, { content: 'thanks' });
    expect(next.status).toBe(202);
  });

  // Last: it takes NATS away from every later test.
  it('reports not ready, naming NATS, when NATS is down', async () => {
    await gateway.stopNats();
    const ready = await api('GET', '/readyz');
    expect(ready).toMatchObject({ status: 503, json: { down: ['nats'], checks: { redis: 'up', nats: 'down' } } });
    expect((await api('GET', '/healthz')).status).toBe(200);
  });
});
