import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../../../../test/support/browser-client';
import { type OidcTestProvider, type TestAccount, startOidcTestProvider } from '../../../../../test/support/oidc-test-provider';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../../test/gateway-under-test';
import { ScriptedWorkersModule } from '../../test/scripted-workers';

/**
 * Browser sessions refreshed at a real OpenID provider (oidc-provider) every second here
 * (WEFT_OIDC_REFRESH_SECONDS=1): group changes at the provider apply at the refresh, and an
 * account the provider no longer knows loses its session and its open event stream.
 */
const accounts: Record<string, TestAccount> = {
  carol: { email: 'carol@example.com', name: 'Carol', groups: ['weft-users'] },
  dave: { email: 'dave@example.com', name: 'Dave', groups: ['weft-users'] },
  erin: { email: 'erin@example.com', name: 'Erin', groups: ['weft-users'] },
};
let provider: OidcTestProvider;
let gateway: GatewayUnderTest;

beforeAll(async () => {
  provider = await startOidcTestProvider(accounts);
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    ...provider.gatewaySettings,
    WEFT_OIDC_ALLOWED_GROUPS: 'weft-users,weft-admins',
    WEFT_OIDC_ADMIN_GROUPS: 'weft-admins',
    WEFT_OIDC_REFRESH_SECONDS: '1',
  });
  provider.registerClient(`${gateway.base}/v1/auth/oidc/callback`);
});

afterAll(async () => {
  await gateway?.stop();
  await provider?.stop();
});

async function signIn(login: string): Promise<{ browser: BrowserClient; csrf: string }> {
  const browser = new BrowserClient();
  const callback = `${gateway.base}/v1/auth/oidc/callback`;
  const form = await browser.go(`${gateway.base}/v1/auth/oidc/login`);
  const consent = await browser.submitForm(form, { prompt: 'login', login, password: 'any' }, callback);
  const back = consent.status === 0 ? consent : await browser.submitForm(consent, { prompt: 'consent' }, callback);
  await browser.go(back.url, { stopBefore: `${gateway.base}/` });
  const session = (await (await fetch(`${gateway.base}/v1/auth/session`, { headers: browser.cookieHeader(gateway.base) })).json()) as { csrfToken: string };
  return { browser, csrf: session.csrfToken };
}

async function asBrowser(browser: BrowserClient, path: string, init: { method?: string; csrf?: string; body?: unknown } = {}) {
  const response = await fetch(`${gateway.base}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...browser.cookieHeader(gateway.base), ...(init.csrf ? { 'x-weft-csrf': init.csrf } : {}), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** Asks again until `check` holds; the refresh is due after a second, so this is quick unless it never comes. */
async function eventually<T>(probe: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(200);
  }
}

describe('browser sessions refreshed at the identity provider', () => {
  it('applies a group change at the provider at the next refresh, the session going on', async () => {
    const { browser } = await signIn('carol');
    expect((await asBrowser(browser, '/v1/me')).json).toMatchObject({ name: 'carol', role: 'member' });
    accounts.carol = { ...accounts.carol!, groups: ['weft-users', 'weft-admins'] };
    const me = await eventually(() => asBrowser(browser, '/v1/me'), (answer) => answer.json.role === 'admin', 'carol made admin at the provider');
    expect(me.status).toBe(200);
    expect((await asBrowser(browser, '/v1/admin/users')).status).toBe(200);
  });

  it('ends the session and its event stream when the provider refuses the refresh (the account gone)', async () => {
    const { browser, csrf } = await signIn('dave');
    const workspace = await asBrowser(browser, '/v1/workspaces', { method: 'POST', csrf, body: {} });
    const session = await asBrowser(browser, '/v1/sessions', { method: 'POST', csrf, body: { workspaceId: workspace.json.id, model: 'tiny' } });
    expect(session.status).toBe(201);
    const stream = await fetch(`${gateway.base}/v1/sessions/${String(session.json.id)}/events`, { headers: browser.cookieHeader(gateway.base) });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const ended = (async () => {
      while (!(await reader.read()).done);
      return 'ended';
    })();

    delete accounts.dave;
    // No request from the browser: the gateway refreshes on its own, and the stream ends.
    expect(await ended).toBe('ended');
    const refused = await asBrowser(browser, '/v1/me');
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('Your sign-in has ended');
  });

  it('ends the session at the browser’s next request when the groups no longer admit the user', async () => {
    const { browser } = await signIn('erin');
    accounts.erin = { ...accounts.erin!, groups: ['contractors'] };
    const refused = await eventually(() => asBrowser(browser, '/v1/me'), (answer) => answer.status !== 200, 'erin moved out of the allowed groups');
    // Refused by the refresh itself (403, why), or by the keeper first (the session gone: 401).
    expect([401, 403]).toContain(refused.status);
    const admin = await fetch(`${gateway.base}/v1/admin/users`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    const erin = ((await admin.json()) as { users: Array<{ name: string; sso: { groups: string[] } | null }> }).users.find((user) => user.name === 'erin');
    expect(erin?.sso?.groups).toEqual(['weft-users']);
  });
});
