import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OidcTestProvider, startOidcTestProvider } from '../../../../../test/support/oidc-test-provider';
import { RedisKeys } from '../../infra/redis-keys';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../../test/gateway-under-test';
import { oidcBrowser } from '../../test/oidc-browser';
import { ScriptedWorkersModule } from '../../test/scripted-workers';

/**
 * Deleting a user signed in through the provider is final: the same person signing in again,
 * the provider still letting them in, is a new user with a new id and none of the old data.
 */
let provider: OidcTestProvider;
let gateway: GatewayUnderTest;
let redis: Redis;
let keys: RedisKeys;
let sso: ReturnType<typeof oidcBrowser>;

beforeAll(async () => {
  provider = await startOidcTestProvider({
    carol: { email: 'carol@example.com', name: 'carol', groups: ['weft-users'] },
    dave: { email: 'dave@example.com', name: 'dave', groups: ['weft-users'] },
  });
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    ...provider.gatewaySettings,
    WEFT_OIDC_ALLOWED_GROUPS: 'weft-users',
    WEFT_OIDC_GROUP_LIMITS: JSON.stringify({ 'weft-users': { tokensPerDay: 5000 } }),
    WEFT_OIDC_GROUP_MODELS: JSON.stringify({ 'weft-users': { allow: ['tiny'] } }),
  });
  sso = oidcBrowser(gateway.base, provider.issuer);
  provider.registerClient(sso.callbackPrefix);
  redis = new Redis(gateway.redisUrl);
  keys = new RedisKeys(gateway.redisKeyPrefix);
});

afterAll(async () => {
  redis?.disconnect();
  await gateway?.stop();
  await provider?.stop();
});

async function withKey(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const asAdmin = (method: string, path: string, body?: unknown) => withKey(TEST_ADMIN_TOKEN, method, path, body);

/** Every key under the prefix that names the user, usage aside. */
async function keysNaming(userId: string): Promise<string[]> {
  const found = await redis.keys(`${gateway.redisKeyPrefix}*${userId}*`);
  return found.filter((key) => !key.startsWith(`${gateway.redisKeyPrefix}usage:`)).sort();
}

describe('deleting a user signed in through the provider', () => {
  it('makes their next sign-in a new user with a new id and none of the old data', async () => {
    const first = await sso.signIn('carol');
    const old = (await sso.call(first.browser, 'GET', '/v1/me')).json;
    const oldId = String(old.id);
    const key = String((await sso.call(first.browser, 'POST', '/v1/me/keys', { 'x-weft-csrf': first.csrfToken }, { name: 'laptop' })).json.key);
    const workspaceId = String((await withKey(key, 'POST', '/v1/workspaces', {})).json.id);
    expect((await withKey(key, 'POST', '/v1/sessions', { workspaceId, model: 'tiny' })).status).toBe(201);
    const stored = await withKey(key, 'POST', '/openai/v1/responses', { model: 'tiny', input: 'remember this', max_output_tokens: 16 });
    expect(stored.status).toBe(200);
    const responseId = String(stored.json.id);
    expect((await withKey(key, 'GET', `/openai/v1/responses/${responseId}`)).status).toBe(200);

    const deleted = await asAdmin('DELETE', `/v1/admin/users/${oldId}`, { confirm: String(old.name) });
    expect(deleted).toMatchObject({ status: 200, json: { id: oldId, sessions: 1, workspaces: 1, keys: 1 } });
    expect((await sso.call(first.browser, 'GET', '/v1/me')).status).toBe(401);
    expect((await withKey(key, 'GET', '/v1/me')).status).toBe(401);
    expect(await keysNaming(oldId)).toEqual([]);

    const again = await sso.signIn('carol');
    const renewed = (await sso.call(again.browser, 'GET', '/v1/me')).json;
    expect(renewed).toMatchObject({ name: 'carol', role: 'member' });
    expect(renewed.id).not.toBe(oldId);
    expect((await sso.call(again.browser, 'GET', '/v1/sessions')).json).toEqual({ sessions: [] });
    expect((await sso.call(again.browser, 'GET', '/v1/workspaces')).json).toEqual({ workspaces: [] });
    expect((await sso.call(again.browser, 'GET', '/v1/me/keys')).json).toMatchObject({ keys: [] });
    const newKey = String((await sso.call(again.browser, 'POST', '/v1/me/keys', { 'x-weft-csrf': again.csrfToken }, { name: 'laptop' })).json.key);
    expect((await withKey(newKey, 'GET', `/openai/v1/responses/${responseId}`)).status).toBe(404);
    // What the provider's groups give is given afresh to the new user.
    expect((await sso.call(again.browser, 'GET', '/v1/me/limits')).json).toMatchObject({ limits: { tokensPerDay: 5000 } });
    expect((await withKey(newKey, 'POST', '/openai/v1/chat/completions', { model: 'senior', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(403);
    // Usage stays with the old id, for the team's accounts.
    const usage = await asAdmin('GET', `/v1/admin/usage?user=${oldId}`);
    expect(usage.json.rows).toEqual([expect.objectContaining({ userId: oldId, model: 'tiny' })]);
  });

  it('gives a new id to a user deleted before deletions unlinked the identity', async () => {
    const first = await sso.signIn('dave');
    const oldId = String((await sso.call(first.browser, 'GET', '/v1/me')).json.id);
    // What deletion removed until then: the user, their listing and their name; the identity stayed.
    await redis.multi().del(keys.user(oldId)).zrem(keys.users(), oldId).hdel(keys.userNames(), 'dave').exec();

    const again = await sso.signIn('dave');
    const renewed = (await sso.call(again.browser, 'GET', '/v1/me')).json;
    expect(renewed).toMatchObject({ name: 'dave' });
    expect(renewed.id).not.toBe(oldId);
    expect((await sso.call(again.browser, 'GET', '/v1/me')).json.id).toBe(renewed.id);
    // What the old id's sign-ins left (profile, quota class, model rules, browser sessions) goes then.
    expect((await keysNaming(oldId)).filter((key) => key.startsWith(`${gateway.redisKeyPrefix}oidc:`))).toEqual([]);
  });
});
