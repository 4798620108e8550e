import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, startWeft } from '../apps/cli/src/testing/built-cli';
import { admin, call } from './support/api';
import { eventually, launchChromium, textOf } from './support/browser';
import { callbackUrl, oidcIssuer, ssoChromiumArgs, startSso, stopSso, tamperIdTokens } from './support/oidc-provider';
import { gatewayUrl } from './support/stack';
import { SCREENSHOTS } from '../test/support/screenshots';

/**
 * Single sign-on on the compose stack (#32): the gateway signs people in through a real OpenID
 * provider (oidc-provider, in a container of its own on the stack's network) with three people:
 * ada (weft-admins and weft-users), bob (weft-users) and eve (contractors, not allowed). The
 * browser is Debian's Chromium, the CLI the built `weft`; e2e/scripts/sso-hello.json answers the turn.
 */
const MODEL = 'scripted/sso-hello';
/** Allowed to no group: bob's groups allow scripted/sso-* and tiny only. */
const OTHER_MODEL = 'scripted/kill-quick';
const SETTINGS = {
  WEFT_OIDC_ALLOWED_GROUPS: 'weft-users,weft-admins',
  WEFT_OIDC_ADMIN_GROUPS: 'weft-admins',
  WEFT_OIDC_GROUP_LIMITS: JSON.stringify({ 'weft-users': { tokensPerDay: 50000, weight: 2 }, 'weft-admins': { tokensPerDay: 0, weight: 4 } }),
  // ada is in both: weft-users allows tiny, weft-admins denies it, and the deny wins.
  WEFT_OIDC_GROUP_MODELS: JSON.stringify({ 'weft-users': { allow: ['scripted/sso-*', 'tiny'] }, 'weft-admins': { deny: ['tiny'] } }),
};

let browser: Browser;
let home: string;
let cliBuilt: Promise<void>;
/** ada's browser, signed in by the Admin page test; bob's key, minted by `weft login`: the classes and rules test uses both. */
let ada: { context: BrowserContext; csrf: string } | undefined;
let bobKey = '';
/** Errors the Weft pages logged (the provider's own pages are not Weft's). */
const pageErrors: string[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-e2e-sso-'));
  await mkdir(SCREENSHOTS, { recursive: true });
  cliBuilt = buildCli();
  cliBuilt.catch(() => undefined);
  await startSso(SETTINGS);
  browser = await launchChromium(ssoChromiumArgs);
});

afterAll(async () => {
  await browser?.close();
  await stopSso();
  if (home) await rm(home, { recursive: true, force: true });
});

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A failed load is named with its address by the response handler below.
    if (message.type() === 'error' && page.url().startsWith(gatewayUrl) && !/^Failed to load resource/.test(message.text())) pageErrors.push(`console: ${message.text()}`);
  });
  page.on('response', (res) => {
    // The refusals under test are the callback's 401 and 403 pages.
    if (res.status() >= 400 && res.url().startsWith(gatewayUrl) && !res.url().startsWith(callbackUrl)) pageErrors.push(`${res.status()} ${res.request().method()} ${res.url()}`);
  });
  return { context, page };
}

/** At the provider's pages: logs in as `login` (any password) and consents, which sends the browser back to the gateway. */
async function atProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The gateway's answer to the provider's redirect back (wait before the consent that leads to it). */
const callbackAnswer = (page: Page): Promise<Response> => page.waitForResponse((res) => res.url().startsWith(callbackUrl));

/** Signs in on the web page through "Sign in with SSO"; the page is then the chat. */
async function signIn(login: string): Promise<{ context: BrowserContext; page: Page; csrf: string }> {
  const { context, page } = await newPage();
  await page.goto(`${gatewayUrl}/`);
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await expect.poll(() => page.url(), eventually).toContain(oidcIssuer);
  await atProvider(page, login);
  await page.getByText(`Signed in as ${login}`).waitFor();
  const session = await context.request.get(`${gatewayUrl}/v1/auth/session`);
  return { context, page, csrf: ((await session.json()) as { csrfToken: string }).csrfToken };
}

/** A call with the browser's cookies (and the CSRF header when given), as the page's own client makes it. */
async function asBrowser(context: BrowserContext, method: string, path: string, csrf?: string, body?: unknown) {
  const res = await context.request.fetch(`${gatewayUrl}${path}`, {
    method,
    headers: csrf ? { 'x-weft-csrf': csrf } : {},
    ...(body === undefined ? {} : { data: body }),
  });
  const text = await res.text();
  return { status: res.status(), text, json: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** Everything a script in the page could read: web storage, cookies, IndexedDB, Cache Storage. */
const READABLE_STORAGE = `(async () => JSON.stringify({
  local: { ...localStorage },
  session: { ...sessionStorage },
  cookies: document.cookie,
  indexedDb: (await indexedDB.databases()).map((d) => d.name),
  caches: await caches.keys(),
}))()`;

/**
 * Follows one sign-in up to the provider's redirect back, and holds that request in the browser:
 * the gateway never sees it. Chromium's own interception (CDP Fetch), since Playwright's routes
 * do not see the hops of a redirect.
 */
async function heldCallback(login: string): Promise<{ context: BrowserContext; page: Page; url: string }> {
  const { context, page } = await newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${callbackUrl}?*`, requestStage: 'Request' }] });
  const held = new Promise<string>((resolveUrl) => {
    cdp.on('Fetch.requestPaused', (event) => {
      resolveUrl(event.request.url);
      const heldPage = '<!doctype html><link rel="icon" href="data:,"><p>Held by the test.</p>';
      void cdp.send('Fetch.fulfillRequest', { requestId: event.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body: Buffer.from(heldPage).toString('base64') });
    });
  });
  await page.goto(`${gatewayUrl}/v1/auth/oidc/login`);
  await atProvider(page, login);
  const url = await held;
  await cdp.detach();
  expect(url).toContain('code=');
  return { context, page, url };
}

describe('single sign-on through an identity provider in its own container', () => {
  it('signs a member in with the browser, lands in the chat, runs a turn, keeps no key where a script can read it, and signs out', async () => {
    const startedAt = Date.now();
    const { context, page, csrf } = await signIn('bob');
    const session = (await context.cookies(gatewayUrl)).find((c) => c.name === 'weft_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    // The sign-in's own cookie is gone once it served the callback.
    expect((await context.cookies(callbackUrl)).map((c) => c.name)).not.toContain('weft_signin');

    // A member: no Admin link, and the page at its address says it is not theirs.
    const pages = page.getByRole('navigation', { name: 'Pages' });
    expect(await pages.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await page.goto(`${gatewayUrl}/#/admin`);
    await expect.poll(textOf(page.getByRole('alert')), eventually).toContain('This page is for admin users');
    expect((await asBrowser(context, 'GET', '/v1/admin/users')).status).toBe(403);

    // A session on an uploaded folder, and a turn: every change the page makes carries the CSRF token.
    const folder = join(home, 'hello');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'README.md'), '# Hello\n');
    await pages.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('link', { name: 'New session' }).click();
    await page.getByLabel('Model').selectOption(MODEL);
    await page.getByLabel('Title (optional)').fill('Signed in through SSO');
    await page.getByLabel('Choose a folder, or drop one here').setInputFiles(folder);
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => page.url(), eventually).toMatch(/#\/sessions\/ses_/);
    await page.getByLabel('Message to the agent').fill('Who am I talking to?');
    await page.getByLabel('Message to the agent').press('Enter');
    await expect.poll(textOf(page.locator('.bubble.assistant.final')), eventually).toContain('the user the identity provider vouched for');
    await expect.poll(() => page.getByRole('button', { name: /Cancel turn/ }).count(), eventually).toBe(0);
    await expect.poll(textOf(page.getByText('Live', { exact: true })), eventually).toBe('Live');
    await page.screenshot({ path: join(SCREENSHOTS, 'sso-chat.png') });

    // No API key anywhere a script could read it, none minted for the browser, and the session cookie out of reach.
    const readable = await page.evaluate<string>(READABLE_STORAGE);
    expect(JSON.parse(readable)).toMatchObject({ indexedDb: [], caches: [] });
    expect(readable).not.toMatch(/weft_/);
    const keys = (await asBrowser(context, 'GET', '/v1/me/keys')).json.keys as Array<{ createdAt: string }>;
    expect(keys.filter((key) => Date.parse(key.createdAt) >= startedAt)).toEqual([]);

    // CSRF: the cookie alone does not change anything, nor does a wrong token; the session's token does.
    const instructions = { content: 'Answer briefly.' };
    expect(await asBrowser(context, 'PUT', '/v1/me/instructions', undefined, instructions)).toMatchObject({ status: 403, json: { error: { code: 'AUTH.FORBIDDEN' } } });
    expect((await asBrowser(context, 'PUT', '/v1/me/instructions', `${csrf.slice(0, -2)}xx`, instructions)).status).toBe(403);
    expect((await asBrowser(context, 'PUT', '/v1/me/instructions', csrf, instructions)).status).toBeLessThan(300);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    expect((await context.cookies(gatewayUrl)).map((c) => c.name)).not.toContain('weft_session');
    // The old cookie, replayed, is worth nothing.
    const replayed = await fetch(`${gatewayUrl}/v1/me`, { headers: { cookie: `weft_session=${session?.value}` } });
    expect(replayed.status).toBe(401);
    await context.close();
  });

  it('shows the Admin page to a member of the admin group', async () => {
    const { context, page, csrf } = await signIn('ada');
    ada = { context, csrf };
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor();
    await page.getByRole('row').filter({ hasText: 'bob' }).first().waitFor();
  });

  it('refuses a user outside the allowed groups with a page that says why, and makes no user', async () => {
    const { context, page } = await newPage();
    await page.goto(`${gatewayUrl}/`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    const answered = callbackAnswer(page);
    await atProvider(page, 'eve');
    const refused = await answered;
    expect(refused.status()).toBe(403);
    await page.getByRole('heading', { name: 'You may not sign in to this Weft' }).waitFor();
    expect(await page.locator('#reason').textContent()).toContain('none of the groups allowed');
    await page.screenshot({ path: join(SCREENSHOTS, 'sso-refused.png') });
    expect((await context.cookies(gatewayUrl)).map((c) => c.name)).not.toContain('weft_session');
    const users = (await admin('GET', '/v1/admin/users')).body as { users: Array<{ name: string }> };
    expect(users.users.map((user) => user.name)).not.toContain('eve');
    await context.close();
  });

  it('signs the CLI in with the device flow: the code confirmed in a browser, a key of the user’s own stored at 0600', async () => {
    await cliBuilt;
    const env = { XDG_CONFIG_HOME: join(home, 'config'), HOME: home };
    const login = startWeft(['login', '--url', gatewayUrl, '--key-name', 'laptop'], env);
    await login.waitFor('confirm the code');
    const link = /open (\S+)/.exec(login.output().stdout)?.[1] ?? '';
    expect(link.startsWith(`${oidcIssuer}/device`)).toBe(true);

    const { context, page } = await newPage();
    await page.goto(link);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('input[name=login]').fill('bob');
    await page.locator('input[name=password]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Sign-in Success' }).waitFor();
    await context.close();

    const done = await login.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/logged in to .* as bob .* through your identity provider, with the device code/);
    expect(done.stdout).toContain('minted an API key of your own, "laptop"');
    const saved = join(home, 'config/weft/config.json');
    expect((await stat(saved)).mode & 0o777).toBe(0o600);
    bobKey = (JSON.parse(await readFile(saved, 'utf8')) as { key: string }).key;
    expect(await call('GET', '/v1/me', bobKey)).toMatchObject({ status: 200, body: { name: 'bob', role: 'member' } });
  });

  it('applies the groups’ quota classes and model rules to browser sessions and minted keys alike, a deny winning over an allow', async () => {
    if (!ada || !bobKey) throw new Error('needs ada signed in and bob’s key from the tests above');
    const signedIn = ada;
    expect(await call('GET', '/v1/me/limits', bobKey)).toMatchObject({ status: 200, body: { limits: { tokensPerDay: 50000, weight: 2 } } });
    // ada's two classes: the more generous value of each field.
    expect((await asBrowser(signedIn.context, 'GET', '/v1/me/limits')).json).toMatchObject({ limits: { tokensPerDay: 0, weight: 4 } });

    const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 });
    const asBob = (model: string) => call('POST', '/openai/v1/chat/completions', bobKey, chat(model));
    const asAda = (model: string) => asBrowser(signedIn.context, 'POST', '/openai/v1/chat/completions', signedIn.csrf, chat(model));
    expect((await asBob(MODEL)).status).toBe(200);
    expect((await asBob('tiny')).status).toBe(200);
    const refused = await asBob(OTHER_MODEL);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'AUTH.FORBIDDEN', message: expect.stringContaining(`Your groups do not allow the model "${OTHER_MODEL}"`) } } });
    expect((await asAda(MODEL)).status).toBe(200);
    expect((await asAda('tiny')).status).toBe(403);
    await signedIn.context.close();
  });
});

describe('a sign-in that does not hold is refused', () => {
  it('refuses a callback whose state was changed', async () => {
    const { context, page, url } = await heldCallback('bob');
    const forged = new URL(url);
    forged.searchParams.set('state', 'forged-state');
    const refused = await page.goto(forged.href);
    expect(refused?.status()).toBe(401);
    expect(await page.locator('#reason').textContent()).toMatch(/state/i);
    expect((await context.cookies(gatewayUrl)).map((c) => c.name)).not.toContain('weft_session');
    await context.close();
  });

  it('refuses a replayed code, even with the sign-in cookie put back', async () => {
    const { context, page, url } = await heldCallback('bob');
    const pending = (await context.cookies(callbackUrl)).find((c) => c.name === 'weft_signin');
    expect(pending).toBeDefined();
    await page.goto(url);
    await page.getByText('Signed in as bob').waitFor();
    await context.addCookies([pending!]);
    const replayed = await page.goto(url);
    expect(replayed?.status()).toBe(401);
    expect(await page.locator('#reason').textContent()).toContain('already used');
    await context.close();
  });

  for (const [tamper, named] of [
    ['expired', /exp/],
    ['foreign-key', /signature/i],
  ] as const) {
    it(`refuses an ID token ${tamper === 'expired' ? 'that has expired' : 'signed with a key the provider never published'}`, async () => {
      await tamperIdTokens(tamper);
      try {
        const { context, page } = await newPage();
        await page.goto(`${gatewayUrl}/v1/auth/oidc/login`);
        const answered = callbackAnswer(page);
        await atProvider(page, 'bob');
        const refused = await answered;
        expect(refused.status()).toBe(401);
        await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
        expect(await page.locator('#reason').textContent()).toMatch(named);
        expect((await context.cookies(gatewayUrl)).map((c) => c.name)).not.toContain('weft_session');
        await context.close();
      } finally {
        await tamperIdTokens(undefined);
      }
    });
  }

  it('logged no errors in any Weft page', () => {
    expect(pageErrors).toEqual([]);
  });
});
