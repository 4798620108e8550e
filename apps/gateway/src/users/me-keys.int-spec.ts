import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule } from '../test/scripted-workers';
import { sessionApi } from '../test/session-api';

/** A user managing their own keys through /v1/me/keys, on real Redis and NATS. */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
const admin = (method: string, path: string, body?: unknown) => client.api(method, path, TEST_ADMIN_TOKEN, body);

/** A user with one key made by the admin. */
async function member(name: string): Promise<{ id: string; key: string; keyId: string }> {
  const user = await admin('POST', '/v1/admin/users', { name });
  const key = await admin('POST', `/v1/admin/users/${String(user.json.id)}/keys`, { name: 'first' });
  return { id: String(user.json.id), key: String(key.json.key), keyId: String(key.json.id) };
}

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule);
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await gateway?.stop();
});

describe('own keys', () => {
  it('tells the caller their role', async () => {
    const ada = await member('role-ada');
    expect(await client.api('GET', '/v1/me', ada.key)).toMatchObject({ status: 200, json: { id: ada.id, name: 'role-ada', role: 'member' } });
    await admin('PATCH', `/v1/admin/users/${ada.id}`, { role: 'admin' });
    expect((await client.api('GET', '/v1/me', ada.key)).json).toMatchObject({ role: 'admin' });
  });

  it('lists, creates and revokes the caller’s keys; the new key is shown once and works at once, a revoked one is refused at once', async () => {
    const ada = await member('keys-ada');
    const created = await client.api('POST', '/v1/me/keys', ada.key, { name: 'laptop', expiresAt: '2099-01-01T00:00:00Z' });
    expect(created).toMatchObject({ status: 201, json: { name: 'laptop', expiresAt: '2099-01-01T00:00:00.000Z', lastUsedAt: null, key: expect.stringMatching(/^weft_/) } });
    const laptop = String(created.json.key);
    expect(created.json.prefix).toBe(`${laptop.slice(0, 12)}…`);
    expect(await client.api('GET', '/v1/me', laptop)).toMatchObject({ status: 200, json: { id: ada.id } });

    const listed = await client.api('GET', '/v1/me/keys', ada.key);
    expect(listed.json.keys).toEqual([
      { id: ada.keyId, name: 'first', prefix: expect.stringMatching(/^weft_.{7}…$/), createdAt: expect.any(String), expiresAt: null, lastUsedAt: expect.any(String), current: true },
      { id: created.json.id, name: 'laptop', prefix: created.json.prefix, createdAt: expect.any(String), expiresAt: '2099-01-01T00:00:00.000Z', lastUsedAt: expect.any(String), current: false },
    ]);
    expect(listed.text).not.toContain(laptop);
    expect(listed.text).not.toContain(ada.key);
    expect((await client.api('GET', '/v1/me/keys', laptop)).json.keys).toMatchObject([{ current: false }, { current: true }]);

    expect((await client.api('DELETE', `/v1/me/keys/${String(created.json.id)}`, ada.key)).status).toBe(204);
    expect(await client.api('GET', '/v1/me', laptop)).toMatchObject({ status: 401, json: { error: { message: 'Invalid API key' } } });
    expect((await client.api('GET', '/v1/me/keys', ada.key)).json.keys).toMatchObject([{ id: ada.keyId }]);
    expect(await client.api('DELETE', `/v1/me/keys/${String(created.json.id)}`, ada.key)).toMatchObject({ status: 404 });
  });

  it('makes an unnamed key that never expires from an empty request, and refuses an expiry in the past', async () => {
    const ada = await member('bare-ada');
    expect(await client.api('POST', '/v1/me/keys', ada.key)).toMatchObject({ status: 201, json: { name: null, expiresAt: null } });
    expect(await client.api('POST', '/v1/me/keys', ada.key, { expiresAt: '2001-01-01T00:00:00Z' })).toMatchObject({
      status: 400,
      json: { error: { message: expect.stringContaining('body.expiresAt: must be in the future') } },
    });
  });

  it("answers 404 for another user's key and leaves it working", async () => {
    const ada = await member('owner-ada');
    const bob = await member('other-bob');
    expect(await client.api('DELETE', `/v1/me/keys/${bob.keyId}`, ada.key)).toMatchObject({ status: 404, json: { error: { code: 'COMMON.NOT_FOUND', message: `You have no key ${bob.keyId}` } } });
    expect((await client.api('GET', '/v1/me', bob.key)).status).toBe(200);
    expect(await client.api('DELETE', '/v1/me/keys/not-a-key', ada.key)).toMatchObject({ status: 400 });
  });

  it('refuses to revoke the key the request came with, so a user cannot lock themselves out', async () => {
    const ada = await member('self-ada');
    expect(await client.api('DELETE', `/v1/me/keys/${ada.keyId}`, ada.key)).toMatchObject({
      status: 409,
      json: { error: { code: 'COMMON.CONFLICT', message: expect.stringContaining('it is the key this request was made with') } },
    });
    expect((await client.api('GET', '/v1/me', ada.key)).status).toBe(200);
    const spare = await client.api('POST', '/v1/me/keys', ada.key, { name: 'spare' });
    expect((await client.api('DELETE', `/v1/me/keys/${ada.keyId}`, String(spare.json.key))).status).toBe(204);
    expect((await client.api('GET', '/v1/me', ada.key)).status).toBe(401);
  });

  it('records the user’s own key changes in the admin audit log with them as the actor', async () => {
    const ada = await member('audit-ada');
    const created = await client.api('POST', '/v1/me/keys', ada.key, { name: 'ci' });
    await client.api('DELETE', `/v1/me/keys/${String(created.json.id)}`, ada.key);
    const entries = (await admin('GET', '/v1/admin/audit?limit=2')).json.entries as Array<Record<string, unknown>>;
    expect(entries).toMatchObject([
      { action: 'key.revoked', actor: ada.id, actorKeyId: ada.keyId, userId: ada.id, details: { keyId: created.json.id } },
      { action: 'key.created', actor: ada.id, actorKeyId: ada.keyId, userId: ada.id, details: { name: 'ci' } },
    ]);
    expect(JSON.stringify(entries)).not.toContain(String(created.json.key));
  });

  it('needs a key', async () => {
    expect((await client.api('GET', '/v1/me/keys')).status).toBe(401);
    expect((await client.api('POST', '/v1/me/keys', TEST_ADMIN_TOKEN, {})).status).toBe(401);
  });
});
