import { expect } from 'vitest';
import { BrowserClient } from '../../../../test/support/browser-client';

export interface SignedInBrowser {
  browser: BrowserClient;
  csrfToken: string;
}

/**
 * A person signing in to the gateway in a browser through the test provider (oidc-provider), and
 * the requests that browser then makes with its session cookie.
 */
export function oidcBrowser(gatewayBase: string, issuer: string) {
  const callbackPrefix = `${gatewayBase}/v1/auth/oidc/callback`;

  /** Logs in at the provider's form and consents; stops before the provider's redirect back to the gateway. */
  async function atProvider(browser: BrowserClient, login: string): Promise<string> {
    const form = await browser.go(`${gatewayBase}/v1/auth/oidc/login`);
    expect(form.url.startsWith(issuer)).toBe(true);
    const consent = await browser.submitForm(form, { prompt: 'login', login, password: 'any' }, callbackPrefix);
    // A first sign-in asks for consent; a later one in the same browser goes straight back.
    const back = consent.status === 0 ? consent : await browser.submitForm(consent, { prompt: 'consent' }, callbackPrefix);
    expect(back.url.startsWith(callbackPrefix)).toBe(true);
    return back.url;
  }

  async function signIn(login: string): Promise<SignedInBrowser> {
    const browser = new BrowserClient();
    const callback = await browser.go(await atProvider(browser, login), { stopBefore: `${gatewayBase}/` });
    expect(callback.headers.get('location')).toBe('/');
    const session = await call(browser, 'GET', '/v1/auth/session');
    return { browser, csrfToken: String((session.json as { csrfToken: string }).csrfToken) };
  }

  async function call(browser: BrowserClient, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
    const url = `${gatewayBase}${path}`;
    const response = await fetch(url, {
      method,
      headers: { ...browser.cookieHeader(url), ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown>, text, headers: response.headers };
  }

  return { callbackPrefix, atProvider, signIn, call };
}
