import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisKeys } from './infra/redis-keys';
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
    expect((audit.json.entries as unknown[])[2]).toMatchObject({ userId: id, at: expect.any(String), actor: 'bootstrap', details: { tokensPerDay: 1000 } });
    expect(JSON.stringify(audit.json)).not.toContain(String(key.json.key));
    expect(await admin('GET', '/v1/admin/audit?limit=0')).toMatchObject({ status: 400 });
    expect((await api('GET', '/v1/admin/audit', String(key.json.key))).status).toBe(401);
  });
});

/**
 * Admin users, and the bootstrap token rotated and then turned off. These run last and in order:
 * once the token is rotated, TEST_ADMIN_TOKEN (and the fixtures above) no longer work.
 */
describe('admin users and the bootstrap token', () => {
  type Entry = { actor: string; actorKeyId?: string; action: string; userId?: string; details?: Record<string, unknown> };
  const as = (token: string) => (method: string, path: string, body?: unknown) => client.api(method, path, token, body);
  const audit = async (token: string, limit: number) => (await as(token)('GET', `/v1/admin/audit?limit=${limit}`)).json.entries as Entry[];
  let lead: { id: string; key: string; keyId: string };
  /** The bootstrap token in effect after the rotations. */
  let bootstrap: string;

  async function userWithKey(name: string, role?: 'admin' | 'member', by = admin) {
    const user = await by('POST', '/v1/admin/users', role ? { name, role } : { name });
    expect(user.status, user.text).toBe(201);
    const key = await by('POST', `/v1/admin/users/${String(user.json.id)}/keys`, { name: 'laptop' });
    return { id: String(user.json.id), key: String(key.json.key), keyId: String(key.json.id) };
  }

  it('refuses to turn the bootstrap token off while no enabled admin user exists', async () => {
    expect(await admin('GET', '/v1/admin/bootstrap-token')).toMatchObject({ status: 200, json: { state: 'env', changedAt: null, enabledAdmins: 0 } });
    const off = await admin('DELETE', '/v1/admin/bootstrap-token');
    expect(off).toMatchObject({ status: 409, json: { error: { code: 'AUTH.LAST_ADMIN', message: expect.stringContaining('no enabled admin user exists') } } });
    expect((await admin('GET', '/v1/admin/users')).status).toBe(200);
  });

  it("lets an admin user's key manage users and read metrics, and the audit log names them as the actor", async () => {
    lead = await userWithKey('team-lead', 'admin');
    expect(await api('GET', '/v1/me', lead.key)).toMatchObject({ status: 200, json: { id: lead.id, name: 'team-lead', role: 'admin' } });
    const asLead = as(lead.key);

    const dev = await asLead('POST', '/v1/admin/users', { name: 'dev-by-lead' });
    expect(dev).toMatchObject({ status: 201, json: { name: 'dev-by-lead', role: 'member' } });
    const devId = String(dev.json.id);
    expect((await asLead('POST', `/v1/admin/users/${devId}/keys`, { name: 'ci' })).status).toBe(201);
    expect((await asLead('PUT', `/v1/admin/users/${devId}/limits`, { tokensPerDay: 500 })).status).toBe(200);
    expect((await asLead('PATCH', `/v1/admin/users/${devId}`, { disabled: true })).json).toMatchObject({ disabled: true, role: 'member' });
    const listed = (await asLead('GET', '/v1/admin/users')).json.users as Array<{ id: string; role: string }>;
    expect(listed.find((u) => u.id === lead.id)?.role).toBe('admin');
    expect(listed.find((u) => u.id === devId)?.role).toBe('member');
    expect((await asLead('GET', '/metrics')).text).toContain('weft_gateway_');

    const entries = await audit(lead.key, 6);
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ['user.disabled', lead.id],
      ['limits.set', lead.id],
      ['key.created', lead.id],
      ['user.created', lead.id],
      ['key.created', 'bootstrap'],
      ['user.created', 'bootstrap'],
    ]);
    expect(entries[0]).toMatchObject({ actorKeyId: lead.keyId, userId: devId });
    expect(entries[5]).toMatchObject({ userId: lead.id, details: { name: 'team-lead', role: 'admin' } });
    expect(entries[5]?.actorKeyId).toBeUndefined();
  });

  it("refuses a member's key with 403 AUTH.ADMIN_REQUIRED until they are made admin, and a disabled admin's", async () => {
    const member = await userWithKey('plain-member');
    const refused = await as(member.key)('GET', '/v1/admin/users');
    expect(refused).toMatchObject({ status: 403, json: { error: { code: 'AUTH.ADMIN_REQUIRED', message: expect.stringContaining('User plain-member is a member, not an admin') } } });
    expect((await as(member.key)('GET', '/metrics')).status).toBe(403);
    expect((await api('GET', '/v1/admin/users')).status).toBe(401);
    expect((await api('GET', '/metrics')).status).toBe(401);
    expect((await api('GET', '/v1/me', member.key)).json).toMatchObject({ role: 'member' });

    expect((await as(lead.key)('PATCH', `/v1/admin/users/${member.id}`, { role: 'admin' })).json).toMatchObject({ role: 'admin', disabled: false });
    expect((await as(member.key)('GET', '/v1/admin/users')).status).toBe(200);
    expect((await as(lead.key)('PATCH', `/v1/admin/users/${member.id}`, { disabled: true })).status).toBe(200);
    expect(await as(member.key)('GET', '/v1/admin/users')).toMatchObject({ status: 403, json: { error: { code: 'AUTH.FORBIDDEN' } } });
    expect((await as(lead.key)('PATCH', `/v1/admin/users/${member.id}`, { disabled: false, role: 'member' })).json).toMatchObject({ role: 'member', disabled: false });
    expect((await as(member.key)('GET', '/v1/admin/users')).status).toBe(403);

    const entries = await audit(lead.key, 5);
    expect(entries.slice(0, 2).map((e) => e.action).sort()).toEqual(['role.set', 'user.enabled']);
    expect(entries.find((e) => e.action === 'role.set')).toMatchObject({ actor: lead.id, userId: member.id, details: { role: 'member', previous: 'admin' } });
    expect(await admin('PATCH', `/v1/admin/users/${member.id}`, { role: 'owner' })).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('must be "admin" or "member"') } } });
    expect(await admin('PATCH', `/v1/admin/users/${member.id}`, {})).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('send "disabled", "role" or both') } } });
    expect((await admin('POST', '/v1/admin/users', { name: 'bad-role', role: 'root' })).status).toBe(400);
  });

  it('reads a user stored without a role as a member', async () => {
    const legacy = await userWithKey('stored-before-roles', 'admin');
    const redis = new Redis(gateway.redisUrl);
    try {
      const keys = new RedisKeys(gateway.redisKeyPrefix);
      await redis.multi().hdel(keys.user(legacy.id), 'role').srem(keys.enabledAdmins(), legacy.id).exec();
    } finally {
      redis.disconnect();
    }
    expect((await admin('GET', `/v1/admin/users/${legacy.id}`)).json).toMatchObject({ role: 'member' });
    expect((await as(legacy.key)('GET', '/v1/admin/users')).status).toBe(403);
  });

  it('rotates the bootstrap token without a restart: the old one fails and the new one works at once', async () => {
    const rotated = await admin('POST', '/v1/admin/bootstrap-token/rotate');
    expect(rotated).toMatchObject({ status: 201, json: { token: expect.stringMatching(/^weft_bootstrap_\S{43}$/), state: 'rotated', changedAt: expect.any(String) } });
    const first = String(rotated.json.token);
    expect(await admin('GET', '/v1/admin/users')).toMatchObject({
      status: 401,
      json: { error: { code: 'AUTH.UNAUTHORIZED', message: expect.stringContaining('WEFT_ADMIN_TOKEN was replaced by a rotated bootstrap token') } },
    });
    expect((await as(first)('GET', '/v1/admin/users')).status).toBe(200);
    expect((await as(first)('GET', '/metrics')).status).toBe(200);

    // An admin user rotates it again: the first rotated token is refused like any wrong token.
    const second = String((await as(lead.key)('POST', '/v1/admin/bootstrap-token/rotate')).json.token);
    expect(await as(first)('GET', '/v1/admin/users')).toMatchObject({ status: 401, json: { error: { message: 'Invalid admin token' } } });
    expect((await as(second)('GET', '/v1/admin/users')).status).toBe(200);

    const entries = await audit(second, 2);
    expect(entries.map((e) => [e.action, e.actor, e.details])).toEqual([
      ['bootstrap-token.rotated', lead.id, { previous: 'rotated' }],
      ['bootstrap-token.rotated', 'bootstrap', { previous: 'env' }],
    ]);
    expect(JSON.stringify(entries)).not.toContain(first.slice(15));
    const redis = new Redis(gateway.redisUrl);
    try {
      const stored = await redis.hgetall(new RedisKeys(gateway.redisKeyPrefix).adminBootstrap());
      expect(stored).toEqual({ mode: 'rotated', hash: expect.stringMatching(/^[0-9a-f]{64}$/), changedAt: expect.any(String) });
    } finally {
      redis.disconnect();
    }
    bootstrap = second;
  });

  it('turns the bootstrap token off once an admin exists, then refuses to demote, disable or delete the last enabled admin', async () => {
    const off = await as(bootstrap)('DELETE', '/v1/admin/bootstrap-token');
    expect(off).toMatchObject({ status: 200, json: { state: 'off', enabledAdmins: 1 } });
    expect(await as(bootstrap)('GET', '/v1/admin/users')).toMatchObject({ status: 401, json: { error: { message: 'Invalid admin token' } } });
    expect(await admin('GET', '/v1/admin/users')).toMatchObject({ status: 401, json: { error: { message: expect.stringContaining('The bootstrap admin token was turned off') } } });
    const asLead = as(lead.key);
    expect((await audit(lead.key, 1))[0]).toMatchObject({ action: 'bootstrap-token.turned-off', actor: 'bootstrap', details: { previous: 'rotated' } });

    const demote = await asLead('PATCH', `/v1/admin/users/${lead.id}`, { role: 'member' });
    expect(demote).toMatchObject({ status: 409, json: { error: { code: 'AUTH.LAST_ADMIN', message: expect.stringContaining('Refusing to demote team-lead') } } });
    expect(await asLead('PATCH', `/v1/admin/users/${lead.id}`, { disabled: true })).toMatchObject({ status: 409, json: { error: { message: expect.stringContaining('Refusing to disable team-lead') } } });
    const deleted = await asLead('DELETE', `/v1/admin/users/${lead.id}`, { confirm: 'team-lead' });
    expect(deleted).toMatchObject({ status: 409, json: { error: { code: 'AUTH.LAST_ADMIN', message: expect.stringContaining('Refusing to delete team-lead') } } });
    expect((await asLead('GET', `/v1/admin/users/${lead.id}`)).json).toMatchObject({ role: 'admin', disabled: false });

    // With a second admin, the first may go; then the second is the last.
    const deputy = await userWithKey('deputy', 'admin', asLead);
    expect((await asLead('PATCH', `/v1/admin/users/${lead.id}`, { role: 'member' })).status).toBe(200);
    expect((await asLead('GET', '/v1/admin/users')).status).toBe(403);
    const asDeputy = as(deputy.key);
    expect((await asDeputy('GET', '/v1/admin/bootstrap-token')).json).toMatchObject({ state: 'off', enabledAdmins: 1 });
    expect((await asDeputy('PATCH', `/v1/admin/users/${deputy.id}`, { role: 'member' })).status).toBe(409);

    // Rotating turns the bootstrap token back on, and the last admin may step down.
    const again = String((await asDeputy('POST', '/v1/admin/bootstrap-token/rotate')).json.token);
    expect((await asDeputy('PATCH', `/v1/admin/users/${deputy.id}`, { role: 'member' })).status).toBe(200);
    expect(await as(again)('GET', '/v1/admin/bootstrap-token')).toMatchObject({ status: 200, json: { state: 'rotated', enabledAdmins: 0 } });
  });
});
