import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../../../../test/support/browser-client';
import { type OidcTestProvider, TEST_ACCOUNTS, startOidcTestProvider } from '../../../../../test/support/oidc-test-provider';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../../test/gateway-under-test';
import { ScriptedWorkersModule } from '../../test/scripted-workers';

/**
 * The bootstrap admin token with sign-in through a real OpenID provider: it may be turned off only
 * once an admin has signed in through the provider, and WEFT_ADMIN_TOKEN_RESTORE brings it back at start.
 */
let provider: OidcTestProvider;
let gateway: GatewayUnderTest;
let restarted: GatewayUnderTest | undefined;
const settings = () => ({ ...provider.gatewaySettings, WEFT_OIDC_ADMIN_GROUPS: 'weft-admins' });

beforeAll(async () => {
  provider = await startOidcTestProvider(TEST_ACCOUNTS);
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, settings());
  provider.registerClient(`${gateway.base}/v1/auth/oidc/callback`);
});

afterAll(async () => {
  await restarted?.stop();
  await gateway?.stop();
  await provider?.stop();
});

const bootstrap = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

async function signIn(login: string): Promise<void> {
  const browser = new BrowserClient();
  const callbackPrefix = `${gateway.base}/v1/auth/oidc/callback`;
  const form = await browser.go(`${gateway.base}/v1/auth/oidc/login`);
  const consent = await browser.submitForm(form, { prompt: 'login', login, password: 'any' }, callbackPrefix);
  const back = consent.status === 0 ? consent : await browser.submitForm(consent, { prompt: 'consent' }, callbackPrefix);
  const callback = await browser.go(back.url, { stopBefore: `${gateway.base}/` });
  expect(callback.headers.get('location')).toBe('/');
}

describe('turning the bootstrap token off with single sign-on on', () => {
  it('is refused while no admin has signed in through the provider, even with an admin made in Weft', async () => {
    const made = await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: bootstrap, body: JSON.stringify({ name: 'local-admin', role: 'admin' }) });
    expect(made.status).toBe(201);
    const refused = await fetch(`${gateway.base}/v1/admin/bootstrap-token`, { method: 'DELETE', headers: bootstrap });
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('AUTH.LAST_ADMIN');
    expect(body.error.message).toContain('no enabled admin has signed in through the identity provider');
    expect(body.error.message).toContain('weft-admins');
    // Still on: the bootstrap token works.
    expect((await fetch(`${gateway.base}/v1/admin/bootstrap-token`, { headers: bootstrap })).status).toBe(200);
  });

  it('turns off once an admin signed in through the provider, and WEFT_ADMIN_TOKEN_RESTORE brings it back at start', async () => {
    await signIn('bob');
    expect((await fetch(`${gateway.base}/v1/admin/bootstrap-token`, { method: 'DELETE', headers: bootstrap })).status).toBe(409);
    await signIn('ada');
    const off = await fetch(`${gateway.base}/v1/admin/bootstrap-token`, { method: 'DELETE', headers: bootstrap });
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ state: 'off' });
    expect((await fetch(`${gateway.base}/v1/admin/users`, { headers: bootstrap })).status).toBe(401);

    // Break glass: a gateway started on the same store with WEFT_ADMIN_TOKEN_RESTORE=true.
    restarted = await startGatewayUnderTest(ScriptedWorkersModule, {
      ...settings(),
      REDIS_URL: gateway.redisUrl,
      REDIS_KEY_PREFIX: gateway.redisKeyPrefix,
      WEFT_ADMIN_TOKEN_RESTORE: 'true',
    });
    const state = await fetch(`${restarted.base}/v1/admin/bootstrap-token`, { headers: bootstrap });
    expect(state.status).toBe(200);
    expect(await state.json()).toMatchObject({ state: 'env' });
    const audit = (await (await fetch(`${restarted.base}/v1/admin/audit?limit=5`, { headers: bootstrap })).json()) as { entries: Array<{ action: string; details?: unknown }> };
    expect(audit.entries[0]).toMatchObject({ action: 'bootstrap-token.restored', details: { previous: 'off', via: 'WEFT_ADMIN_TOKEN_RESTORE' } });
  });
});
