import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../../../../test/support/browser-client';
import { type OidcTestProvider, TEST_ACCOUNTS, startOidcTestProvider } from '../../../../../test/support/oidc-test-provider';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../../test/gateway-under-test';
import { oidcBrowser } from '../../test/oidc-browser';
import { ScriptedWorkersModule } from '../../test/scripted-workers';

/**
 * Browser sign-in through a real OpenID provider (oidc-provider, in-process) over real HTTP:
 * the code flow with PKCE, the checks that refuse a tampered or replayed callback, the session
 * cookie, CSRF, sign-out, and users made just in time from the claims.
 */
let provider: OidcTestProvider;
let gateway: GatewayUnderTest;
let callbackPrefix: string;
let sso: ReturnType<typeof oidcBrowser>;

beforeAll(async () => {
  provider = await startOidcTestProvider(TEST_ACCOUNTS);
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    ...provider.gatewaySettings,
    WEFT_OIDC_ALLOWED_GROUPS: 'weft-users,weft-admins',
    WEFT_OIDC_ADMIN_GROUPS: 'weft-admins',
    WEFT_OIDC_GROUP_LIMITS: JSON.stringify({ 'weft-users': { tokensPerDay: 5000, weight: 2 }, 'weft-admins': { tokensPerDay: 0 } }),
    WEFT_OIDC_GROUP_MODELS: JSON.stringify({ 'weft-users': { allow: ['tiny', 'jun*'] }, 'weft-admins': { allow: ['*'], deny: ['junior'] } }),
  });
  sso = oidcBrowser(gateway.base, provider.issuer);
  callbackPrefix = sso.callbackPrefix;
  provider.registerClient(callbackPrefix);
});

afterAll(async () => {
  await gateway?.stop();
  await provider?.stop();
});

describe('browser sign-in through the identity provider', () => {
  it('signs a new user in with the code flow, makes them from the claims, and sets an HttpOnly SameSite=Lax session cookie', async () => {
    const { browser, csrfToken } = await sso.signIn('bob');
    const setCookie = browser.hops.find((hop) => hop.url.startsWith(callbackPrefix))?.setCookies.find((line) => line.startsWith('weft_session='));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\//);
    // Served over plain http here: a Secure cookie would never come back.
    expect(setCookie).not.toMatch(/Secure/);
    const authorize = browser.hops.find((hop) => hop.location?.startsWith(`${provider.issuer}/auth`))?.location ?? '';
    expect(new URL(authorize).searchParams.get('code_challenge_method')).toBe('S256');

    const me = await sso.call(browser, 'GET', '/v1/me');
    expect(me).toMatchObject({ status: 200, json: { name: 'bob', role: 'member' } });
    expect(csrfToken.length).toBeGreaterThan(20);
    const session = await sso.call(browser, 'GET', '/v1/auth/session');
    expect(session.json).toMatchObject({ oidc: true, user: { name: 'bob', role: 'member' } });

    // The same person signing in again is the same user.
    const again = await sso.signIn('bob');
    expect((await sso.call(again.browser, 'GET', '/v1/me')).json.id).toBe(me.json.id);
  });

  it('maps the admin group to the admin role; a member cannot call the admin API with their session', async () => {
    const ada = await sso.signIn('ada');
    expect((await sso.call(ada.browser, 'GET', '/v1/me')).json).toMatchObject({ name: 'ada', role: 'admin' });
    expect((await sso.call(ada.browser, 'GET', '/v1/admin/users')).status).toBe(200);
    const bob = await sso.signIn('bob');
    expect(await sso.call(bob.browser, 'GET', '/v1/admin/users')).toMatchObject({ status: 403, json: { error: { code: 'AUTH.ADMIN_REQUIRED' } } });
  });

  it('gives each user the quota class of their groups, the most generous one winning, under an admin’s override', async () => {
    const bob = await sso.signIn('bob');
    expect((await sso.call(bob.browser, 'GET', '/v1/me/limits')).json).toMatchObject({ limits: { tokensPerDay: 5000, weight: 2 } });
    const ada = await sso.signIn('ada');
    expect((await sso.call(ada.browser, 'GET', '/v1/me/limits')).json).toMatchObject({ limits: { tokensPerDay: 0, weight: 2 } });
    const bobId = String((await sso.call(bob.browser, 'GET', '/v1/me')).json.id);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    await fetch(`${gateway.base}/v1/admin/users/${bobId}/limits`, { method: 'PUT', headers: admin, body: JSON.stringify({ tokensPerDay: 7000 }) });
    expect((await sso.call(bob.browser, 'GET', '/v1/me/limits')).json).toMatchObject({ limits: { tokensPerDay: 7000, weight: 2 } });
  });

  it('lets a user reach only the models their groups allow, a deny winning over any allow', async () => {
    const complete = async (browser: BrowserClient, csrfToken: string, model: string) =>
      sso.call(browser, 'POST', '/openai/v1/chat/completions', { 'x-weft-csrf': csrfToken }, { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
    const bob = await sso.signIn('bob');
    const refused = await complete(bob.browser, bob.csrfToken, 'senior');
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Your groups do not allow the model \\"senior\\"');
    expect((await complete(bob.browser, bob.csrfToken, 'tiny')).status).toBe(200);
    expect((await complete(bob.browser, bob.csrfToken, 'junior')).status).toBe(200);
    // ada is in both groups: weft-admins allows everything but denies junior, which weft-users allows.
    const ada = await sso.signIn('ada');
    expect((await complete(ada.browser, ada.csrfToken, 'senior')).status).toBe(200);
    expect((await complete(ada.browser, ada.csrfToken, 'junior')).status).toBe(403);
  });

  it('shows each user’s groups, quota class, model rules and where their role came from in the admin listing', async () => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const listed = async (name: string) => {
      const { users } = (await (await fetch(`${gateway.base}/v1/admin/users`, { headers: admin })).json()) as { users: Array<{ id: string; name: string; role: string; sso: unknown }> };
      return users.find((user) => user.name === name);
    };
    await sso.signIn('ada');
    expect(await listed('ada')).toMatchObject({
      role: 'admin',
      sso: { email: 'ada@example.com', groups: ['weft-admins', 'weft-users'], roleFrom: 'provider', quotaClass: { tokensPerDay: 0, weight: 2 }, models: { allow: ['*', 'tiny', 'jun*'], deny: ['junior'] } },
    });
    await sso.signIn('bob');
    const bob = await listed('bob');
    expect(bob).toMatchObject({ role: 'member', sso: { groups: ['weft-users'], roleFrom: 'provider', quotaClass: { tokensPerDay: 5000, weight: 2 }, models: { allow: ['tiny', 'jun*'], deny: [] } } });
    // An admin's change holds until the next sign-in, and the listing says it was made in Weft.
    await fetch(`${gateway.base}/v1/admin/users/${String(bob?.id)}`, { method: 'PATCH', headers: admin, body: JSON.stringify({ role: 'admin' }) });
    expect(await listed('bob')).toMatchObject({ role: 'admin', sso: { roleFrom: 'weft' } });
    await sso.signIn('bob');
    expect(await listed('bob')).toMatchObject({ role: 'member', sso: { roleFrom: 'provider' } });
    const created = await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'scripted' }) });
    expect(created.status).toBe(201);
    expect(await listed('scripted')).toMatchObject({ sso: null });
  });

  it('lists only the models a user’s groups allow on every models route, and refuses a denied one by name', async () => {
    const ids = async (browser: BrowserClient) => ({
      weft: ((await sso.call(browser, 'GET', '/v1/models')).json.models as Array<{ id: string }>).map((m) => m.id).sort(),
      openai: ((await sso.call(browser, 'GET', '/openai/v1/models')).json.data as Array<{ id: string }>).map((m) => m.id).sort(),
      anthropic: ((await sso.call(browser, 'GET', '/anthropic/v1/models')).json.data as Array<{ id: string }>).map((m) => m.id).sort(),
    });
    const bob = await sso.signIn('bob');
    expect(await ids(bob.browser)).toEqual({ weft: ['junior', 'tiny'], openai: ['junior', 'tiny'], anthropic: ['junior', 'tiny'] });
    const ada = await sso.signIn('ada');
    const adaModels = await ids(ada.browser);
    expect(adaModels.weft).toContain('senior');
    expect(adaModels.weft).not.toContain('junior');
    expect(adaModels.openai).toEqual(adaModels.weft);
    expect(adaModels.anthropic).toEqual(adaModels.weft);
    const denied = await sso.call(ada.browser, 'GET', '/openai/v1/models/junior');
    expect(denied.status).toBe(403);
    expect(denied.text).toContain('Your groups do not allow the model \\"junior\\"');
    // A key made by an admin, for a user who never signed in through the provider, lists every model.
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const user = (await (await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'keyed' }) })).json()) as { id: string };
    const key = (await (await fetch(`${gateway.base}/v1/admin/users/${user.id}/keys`, { method: 'POST', headers: admin, body: '{}' })).json()) as { key: string };
    const everything = (await (await fetch(`${gateway.base}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } })).json()) as { models: Array<{ id: string }> };
    expect(everything.models.map((m) => m.id)).toEqual(expect.arrayContaining(['junior', 'senior', 'tiny']));
  });

  it('refuses a user in none of the allowed groups with a page that says why, and makes no user', async () => {
    const browser = new BrowserClient();
    const refused = await browser.go(await sso.atProvider(browser, 'eve'));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/text\/html/);
    expect(refused.text).toContain('none of the groups allowed');
    expect(browser.cookie(gateway.base, 'weft_session')).toBeUndefined();
    const users = await fetch(`${gateway.base}/v1/admin/users`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(JSON.stringify(await users.json())).not.toContain('"eve"');
  });

  it('requires the session’s CSRF token on changes; with it, the user mints their own API key', async () => {
    const { browser, csrfToken } = await sso.signIn('bob');
    expect(await sso.call(browser, 'POST', '/v1/me/keys', {}, { name: 'cli' })).toMatchObject({ status: 403, json: { error: { code: 'AUTH.FORBIDDEN' } } });
    expect((await sso.call(browser, 'POST', '/v1/me/keys', { 'x-weft-csrf': `${csrfToken.slice(0, -1)}x` }, { name: 'cli' })).status).toBe(403);
    const created = await sso.call(browser, 'POST', '/v1/me/keys', { 'x-weft-csrf': csrfToken }, { name: 'cli' });
    expect(created).toMatchObject({ status: 201, json: { name: 'cli', key: expect.stringMatching(/^weft_/) } });
    const byKey = await fetch(`${gateway.base}/v1/me`, { headers: { authorization: `Bearer ${String(created.json.key)}` } });
    expect(await byKey.json()).toMatchObject({ name: 'bob' });
  });

  it('signs out: the cookie is cleared and the session no longer works', async () => {
    const { browser, csrfToken } = await sso.signIn('bob');
    const cookie = browser.cookieHeader(gateway.base);
    expect((await sso.call(browser, 'POST', '/v1/auth/logout')).status).toBe(403);
    const out = await sso.call(browser, 'POST', '/v1/auth/logout', { 'x-weft-csrf': csrfToken });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(/weft_session=;/);
    const after = await fetch(`${gateway.base}/v1/me`, { headers: cookie });
    expect(after.status).toBe(401);
  });

  it('ends the sessions of a user disabled in Weft, for good', async () => {
    const { browser } = await sso.signIn('bob');
    const me = await sso.call(browser, 'GET', '/v1/me');
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    await fetch(`${gateway.base}/v1/admin/users/${String(me.json.id)}`, { method: 'PATCH', headers: admin, body: JSON.stringify({ disabled: true }) });
    expect((await sso.call(browser, 'GET', '/v1/me')).status).toBe(403);
    await fetch(`${gateway.base}/v1/admin/users/${String(me.json.id)}`, { method: 'PATCH', headers: admin, body: JSON.stringify({ disabled: false }) });
    expect((await sso.call(browser, 'GET', '/v1/me')).status).toBe(401);
  });
});

describe('a callback that does not hold', () => {
  it('refuses a wrong state', async () => {
    const browser = new BrowserClient();
    const callback = new URL(await sso.atProvider(browser, 'bob'));
    callback.searchParams.set('state', 'forged-state');
    const refused = await browser.go(callback.href);
    expect(refused.status).toBe(401);
    expect(refused.text).toMatch(/state/i);
    expect(browser.cookie(gateway.base, 'weft_session')).toBeUndefined();
  });

  it('refuses a replayed code, even with the sign-in cookie put back', async () => {
    const browser = new BrowserClient();
    const callbackUrl = await sso.atProvider(browser, 'bob');
    const pending = browser.cookie(callbackPrefix, 'weft_signin');
    expect(pending).toBeDefined();
    expect((await browser.go(callbackUrl, { stopBefore: `${gateway.base}/` })).headers.get('location')).toBe('/');
    browser.setCookie(callbackPrefix, 'weft_signin', String(pending));
    const replayed = await browser.go(callbackUrl);
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('already used');
  });

  it('refuses an expired ID token', async () => {
    const now = Math.floor(Date.now() / 1000);
    provider.tamperIdTokens((token) => provider.resign(token, { iat: now - 7200, exp: now - 3600 }));
    try {
      const browser = new BrowserClient();
      const refused = await browser.go(await sso.atProvider(browser, 'bob'));
      expect(refused.status).toBe(401);
      expect(refused.text).toMatch(/exp/);
      expect(browser.cookie(gateway.base, 'weft_session')).toBeUndefined();
    } finally {
      provider.tamperIdTokens(undefined);
    }
  });

  it('refuses an ID token signed with a key the provider never published', async () => {
    provider.tamperIdTokens((token) => provider.signWithForeignKey(token));
    try {
      const browser = new BrowserClient();
      const refused = await browser.go(await sso.atProvider(browser, 'bob'));
      expect(refused.status).toBe(401);
      expect(refused.text).toMatch(/signature/i);
      expect(browser.cookie(gateway.base, 'weft_session')).toBeUndefined();
    } finally {
      provider.tamperIdTokens(undefined);
    }
  });
});
