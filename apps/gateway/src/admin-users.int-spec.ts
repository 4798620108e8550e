import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from './test/gateway-under-test';
import { ScriptedWorkersModule, script } from './test/scripted-workers';
import { ofType, sessionApi, turnEnded } from './test/session-api';

/** What a team lead does with users and keys, through the admin API on real Redis and NATS. */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
const api = (...args: Parameters<typeof client.api>) => client.api(...args);
const admin = (method: string, path: string, body?: unknown) => client.api(method, path, TEST_ADMIN_TOKEN, body);

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, { INFERENCE_TIMEOUT_MS: '20000' });
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await gateway?.stop();
});

describe('users and keys', () => {
  it('refuses a second user of the same name, whatever its case', async () => {
    expect((await admin('POST', '/v1/admin/users', { name: 'Grace Hopper' })).status).toBe(201);
    const again = await admin('POST', '/v1/admin/users', { name: 'grace hopper' });
    expect(again).toMatchObject({ status: 409, json: { error: { code: 'COMMON.CONFLICT', message: 'A user named "grace hopper" already exists' } } });
  });

  it('lists users with their keys: name, prefix, created, expiry and last use, never the key', async () => {
    const user = await admin('POST', '/v1/admin/users', { name: 'listed' });
    const id = String(user.json.id);
    const named = await admin('POST', `/v1/admin/users/${id}/keys`, { name: 'laptop', expiresAt: '2099-01-01T00:00:00Z' });
    expect(named).toMatchObject({ status: 201, json: { name: 'laptop', expiresAt: '2099-01-01T00:00:00.000Z', key: expect.stringMatching(/^weft_/) } });
    const key = String(named.json.key);
    expect(named.json.prefix).toBe(`${key.slice(0, 12)}…`);
    await admin('POST', `/v1/admin/users/${id}/keys`);
    expect((await api('GET', '/v1/me', key)).status).toBe(200);

    const listed = await admin('GET', '/v1/admin/users');
    const entry = (listed.json.users as Array<{ id: string; keys: Array<Record<string, unknown>> }>).find((u) => u.id === id);
    expect(entry).toMatchObject({ name: 'listed', disabled: false, createdAt: expect.any(String) });
    expect(entry?.keys).toEqual([
      { id: named.json.id, name: 'laptop', prefix: named.json.prefix, createdAt: expect.any(String), expiresAt: '2099-01-01T00:00:00.000Z', lastUsedAt: expect.any(String) },
      expect.objectContaining({ name: null, expiresAt: null, lastUsedAt: null }),
    ]);
    expect(listed.text).not.toContain(key);
    expect((await admin('GET', `/v1/admin/users/${id}`)).json).toMatchObject({ id, keys: expect.any(Array) });
  });

  it('refuses a revoked key at once, and an expired one with a message that says so', async () => {
    const f = await client.fixture('keys-revoked');
    const spare = await admin('POST', `/v1/admin/users/${f.userId}/keys`, { name: 'spare' });
    expect((await api('GET', '/v1/me', String(spare.json.key))).status).toBe(200);
    expect((await admin('DELETE', `/v1/admin/users/${f.userId}/keys/${String(spare.json.id)}`)).status).toBe(204);
    expect(await api('GET', '/v1/me', String(spare.json.key))).toMatchObject({ status: 401, json: { error: { message: 'Invalid API key' } } });
    expect((await api('GET', '/v1/me', f.key)).status).toBe(200);
    expect(await admin('DELETE', `/v1/admin/users/${f.userId}/keys/key_nosuchkey1`)).toMatchObject({ status: 404 });

    const soon = await admin('POST', `/v1/admin/users/${f.userId}/keys`, { expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect((await api('GET', '/v1/me', String(soon.json.key))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    expect(await api('GET', '/v1/me', String(soon.json.key))).toMatchObject({ status: 401, json: { error: { message: expect.stringContaining('expired at') } } });
    expect(await admin('POST', `/v1/admin/users/${f.userId}/keys`, { expiresAt: '2001-01-01T00:00:00Z' })).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('body.expiresAt: must be in the future') } } });
  });

  it("disabling a user refuses their keys at once and cancels their running turn; enabling lets them back to their history", async () => {
    const f = await client.fixture('paused-dev');
    script(f.sessionId, [{ hang: true }]);
    const { after } = await client.start(f, '/messages', { content: 'work forever' });
    const disabled = await admin('PATCH', `/v1/admin/users/${f.userId}`, { disabled: true });
    expect(disabled).toMatchObject({ status: 200, json: { disabled: true, cancelledTurns: 1 } });
    expect(await api('GET', `/v1/sessions/${f.sessionId}`, f.key)).toMatchObject({ status: 403, json: { error: { code: 'AUTH.FORBIDDEN', message: 'User paused-dev is disabled; ask your admin' } } });

    expect((await admin('PATCH', `/v1/admin/users/${f.userId}`, { disabled: false })).json).toMatchObject({ disabled: false });
    const events = await client.follow(f, after, turnEnded);
    expect(ofType(events, 'turn.cancelled')[0]).toMatchObject({ userId: 'admin' });
    const exported = await api('GET', `/v1/sessions/${f.sessionId}/export?format=jsonl`, f.key);
    expect(exported.text).toContain('work forever');
    expect(await admin('PATCH', `/v1/admin/users/${f.userId}`, { disabled: 'yes' })).toMatchObject({ status: 400 });
    expect(await admin('PATCH', '/v1/admin/users/usr_nobody1234', { disabled: true })).toMatchObject({ status: 404 });
  });

  it('keeps an audit log of what admins did, newest first', async () => {
    const user = await admin('POST', '/v1/admin/users', { name: 'audited' });
    const id = String(user.json.id);
    const key = await admin('POST', `/v1/admin/users/${id}/keys`, { name: 'ci' });
    await admin('PUT', `/v1/admin/users/${id}/limits`, { tokensPerDay: 1000 });
    await admin('DELETE', `/v1/admin/users/${id}/keys/${String(key.json.id)}`);
    await admin('PATCH', `/v1/admin/users/${id}`, { disabled: true });
    const audit = await admin('GET', '/v1/admin/audit?limit=5');
    expect((audit.json.entries as Array<{ action: string }>).map((e) => e.action)).toEqual(['user.disabled', 'key.revoked', 'limits.set', 'key.created', 'user.created']);
    expect((audit.json.entries as unknown[])[2]).toMatchObject({ userId: id, at: expect.any(String), details: { tokensPerDay: 1000 } });
    expect(JSON.stringify(audit.json)).not.toContain(String(key.json.key));
    expect(await admin('GET', '/v1/admin/audit?limit=0')).toMatchObject({ status: 400 });
    expect((await api('GET', '/v1/admin/audit', String(key.json.key))).status).toBe(401);
  });
});
