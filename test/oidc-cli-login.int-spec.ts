import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../apps/cli/src/program';
import type { CliContext } from '../apps/cli/src/context';
import { type GatewayUnderTest, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedWorkersModule } from '../apps/gateway/src/test/scripted-workers';
import { BrowserClient } from './support/browser-client';
import { type OidcTestProvider, TEST_ACCOUNTS, startOidcTestProvider } from './support/oidc-test-provider';

/**
 * `weft login --url <gateway>` without a key: the device authorization grant against a real
 * OpenID provider, through the gateway; the user confirms the code in a browser, the CLI stores
 * a key of the user's own at mode 0600 and says so.
 */
let provider: OidcTestProvider;
let gateway: GatewayUnderTest;
let configHome: string;

beforeAll(async () => {
  provider = await startOidcTestProvider({
    bob: TEST_ACCOUNTS.bob,
    eve: TEST_ACCOUNTS.eve,
  });
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    ...provider.gatewaySettings,
    WEFT_OIDC_ALLOWED_GROUPS: 'weft-users',
  });
  provider.registerClient(`${gateway.base}/v1/auth/oidc/callback`);
  configHome = await mkdtemp(join(tmpdir(), 'weft-login-'));
});

afterAll(async () => {
  await gateway?.stop();
  await provider?.stop();
  await rm(configHome, { recursive: true, force: true });
});

function cliContext(): { ctx: CliContext; out: () => string; printed: Promise<string> } {
  let text = '';
  let seen: (url: string) => void = () => undefined;
  const printed = new Promise<string>((resolve) => (seen = resolve));
  const ctx: CliContext = {
    env: { XDG_CONFIG_HOME: configHome, NO_COLOR: '1' },
    cwd: configHome,
    stdin: new PassThrough(),
    stdout: {
      write: (chunk: string) => {
        text += chunk;
        const url = /open (\S+)/.exec(text)?.[1];
        if (url) seen(url);
        return true;
      },
    },
    stderr: { write: (chunk: string) => (text += chunk) },
    onInterrupt: () => () => undefined,
    exitCode: 0,
  };
  return { ctx, out: () => text, printed };
}

/** The person at the provider: opens the printed link, confirms the code, logs in, consents. */
async function confirmAtProvider(verificationUrl: string, login: string): Promise<string> {
  const browser = new BrowserClient();
  const confirm = await browser.go(verificationUrl);
  const loginForm = await browser.submitForm(confirm, { ...hiddenFields(confirm.text), confirm: 'yes' });
  const consent = await browser.submitForm(loginForm, { prompt: 'login', login, password: 'any' });
  const done = consent.text.includes('name="prompt" value="consent"') ? await browser.submitForm(consent, { prompt: 'consent' }) : consent;
  return done.text;
}

function hiddenFields(html: string): Record<string, string> {
  return Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]));
}

describe('weft login through the identity provider', () => {
  it('signs in with the device code, mints the user their own key, stores it at mode 0600 and says which', async () => {
    const { ctx, out, printed } = cliContext();
    const run = createProgram(ctx).parseAsync(['node', 'weft', 'login', '--url', gateway.base, '--key-name', 'laptop'], { from: 'node' });
    const page = await confirmAtProvider(await printed, 'bob');
    expect(page).toMatch(/success|signed in|You can close/i);
    await run;
    expect(out()).toMatch(/logged in to .* as bob/);
    expect(out()).toContain('minted an API key of your own, "laptop"');
    const file = join(configHome, 'weft', 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { key: string };
    const me = await fetch(`${gateway.base}/v1/me`, { headers: { authorization: `Bearer ${saved.key}` } });
    expect(await me.json()).toMatchObject({ name: 'bob' });
  });

  it('signs in through a browser on a loopback redirect when asked, and says so', async () => {
    const { ctx, out, printed } = cliContext();
    const run = createProgram(ctx).parseAsync(['node', 'weft', 'login', '--url', gateway.base, '--sign-in', 'browser', '--no-open', '--key-name', 'desk'], { from: 'node' });
    const link = new URL(await printed);
    expect(link.pathname).toBe('/v1/auth/oidc/cli-login');
    expect(link.searchParams.get('redirect')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // The browser: the gateway, the provider's login form and consent, back through the gateway to the CLI's loopback.
    const browser = new BrowserClient();
    const form = await browser.go(link.href);
    expect(form.url.startsWith(provider.issuer)).toBe(true);
    const consent = await browser.submitForm(form, { prompt: 'login', login: 'bob', password: 'any' });
    const done = consent.text.includes('name="prompt" value="consent"') ? await browser.submitForm(consent, { prompt: 'consent' }) : consent;
    expect(done.text).toContain('you can close this tab');
    // No browser session: the code went to the CLI.
    expect(browser.cookie(gateway.base, 'weft_session')).toBeUndefined();
    await run;
    expect(out()).toContain('with a browser sign-in on a loopback redirect');
    expect(out()).toContain('minted an API key of your own, "desk"');
    expect(out()).toContain('(mode 0600)');
    const file = join(configHome, 'weft', 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { key: string };
    const me = await fetch(`${gateway.base}/v1/me`, { headers: { authorization: `Bearer ${saved.key}` } });
    expect(await me.json()).toMatchObject({ name: 'bob' });
  });

  it('gives a key for the loopback code only with the PKCE verifier, and only once', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const loopback = 'http://127.0.0.1:9/callback';
    const query = new URLSearchParams({ redirect: loopback, challenge: createHash('sha256').update(verifier).digest('base64url'), state: 'state-of-this-test-0123' });
    const browser = new BrowserClient();
    const form = await browser.go(`${gateway.base}/v1/auth/oidc/cli-login?${query}`);
    const consent = await browser.submitForm(form, { prompt: 'login', login: 'bob', password: 'any' }, loopback);
    const back = consent.status === 0 ? consent : await browser.submitForm(consent, { prompt: 'consent' }, loopback);
    const redirected = new URL(back.url);
    expect(redirected.searchParams.get('state')).toBe('state-of-this-test-0123');
    const code = String(redirected.searchParams.get('code'));
    const redeem = (codeVerifier: string) =>
      fetch(`${gateway.base}/v1/auth/oidc/cli-token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, codeVerifier, keyName: 'pkce' }) });
    const wrong = await redeem(randomBytes(32).toString('base64url'));
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('code verifier does not match');
    // The wrong verifier used the code up: one try, as a stolen code must not be guessed at.
    expect((await redeem(verifier)).status).toBe(401);

    const refusedRedirect = await fetch(`${gateway.base}/v1/auth/oidc/cli-login?${new URLSearchParams({ redirect: 'https://evil.example/callback', challenge: 'x'.repeat(43), state: 'state-of-this-test-0123' })}`, { redirect: 'manual' });
    expect(refusedRedirect.status).toBe(400);
    expect(await refusedRedirect.text()).toContain('loopback');
  });

  it('refuses a user outside the allowed groups with the reason', async () => {
    const { ctx, printed } = cliContext();
    const run = createProgram(ctx).parseAsync(['node', 'weft', 'login', '--url', gateway.base], { from: 'node' });
    await confirmAtProvider(await printed, 'eve');
    await expect(run).rejects.toThrow(/none of the groups allowed/);
  });
});
