import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchChromium } from '../../../../../e2e/support/browser';
import { type OidcTestProvider, TEST_ACCOUNTS, startOidcTestProvider } from '../../../../../test/support/oidc-test-provider';
import { type GatewayUnderTest, startGatewayUnderTest } from '../../test/gateway-under-test';
import { ScriptedWorkersModule } from '../../test/scripted-workers';

/**
 * The web page (apps/web/dist, `vite build`) signed in through a real OpenID provider in Chromium:
 * no key is kept in the browser, the session cookie is out of the page's reach, a member sees no
 * Admin page, and signing out ends the session.
 */
let provider: OidcTestProvider;
let gateway: GatewayUnderTest;
let browser: Browser;

const WEB_DIR = resolve(__dirname, '../../../../web');

/** The gateway serves apps/web/dist: build it when it is missing or older than the SSO sign-in. */
function ensureWebBuild(): void {
  const assets = join(WEB_DIR, 'dist/assets');
  const built = existsSync(assets) && readdirSync(assets).some((f) => f.endsWith('.js') && readFileSync(join(assets, f), 'utf8').includes('Sign in with SSO'));
  if (!built) execFileSync(process.execPath, [resolve(__dirname, '../../../../../node_modules/vite/bin/vite.js'), 'build'], { cwd: WEB_DIR, stdio: 'ignore', timeout: 300_000 });
}

beforeAll(async () => {
  ensureWebBuild();
  provider = await startOidcTestProvider({
    ada: TEST_ACCOUNTS.ada,
    bob: TEST_ACCOUNTS.bob,
  });
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    ...provider.gatewaySettings,
    WEFT_OIDC_ADMIN_GROUPS: 'weft-admins',
  });
  provider.registerClient(`${gateway.base}/v1/auth/oidc/callback`);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await provider?.stop();
});

async function signInAs(login: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(gateway.base);
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any');
  await page.locator('button[type=submit]').click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByText(`Signed in as ${login}`).waitFor(eventually);
  return { context, page };
}

describe('the web page signed in through the identity provider', () => {
  it('keeps no key in the browser and cannot read its session cookie; a member has no Admin page; sign-out ends the session', async () => {
    const { context, page } = await signInAs('bob');
    expect(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).not.toMatch(/weft_/);
    expect(await page.evaluate('document.cookie')).not.toContain('weft_session');
    const cookie = (await context.cookies(gateway.base)).find((c) => c.name === 'weft_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0);

    // A change through the page's own client, which sends the CSRF header: the user mints their own key.
    await page.goto(`${gateway.base}/#/me`);
    await page.getByLabel('Key name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('input.key-value').waitFor(eventually);
    expect(await page.locator('input.key-value').inputValue()).toMatch(/^weft_/);
    expect(await page.evaluate('JSON.stringify({ ...localStorage })')).not.toMatch(/weft_/);
    // The same change without the header is refused, though the cookie goes with it.
    const saved = await page.evaluate(`fetch('/v1/me/instructions', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"content":"x"}' }).then((r) => r.status)`);
    expect(saved).toBe(403);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor(eventually);
    const after = await page.evaluate(`fetch('/v1/me').then((r) => r.status)`);
    expect(after).toBe(401);
    await context.close();
  });

  it('shows the Admin page to a member of the admin group', async () => {
    const { context, page } = await signInAs('ada');
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.getByText('bob').first().waitFor(eventually);
    await context.close();
  });
});
