import { createParser } from 'eventsource-parser';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../../../../test/support/browser-client';
import { type OidcTestProvider, TEST_ACCOUNTS, startOidcTestProvider } from '../../../../../test/support/oidc-test-provider';
import { EVENT_FIELD, encodeEvent } from '../../events/event-codec';
import { RedisKeys } from '../../infra/redis-keys';
import { type GatewayUnderTest, startGatewayUnderTest } from '../../test/gateway-under-test';
import { ScriptedWorkersModule } from '../../test/scripted-workers';

/**
 * The event stream of a browser signed in through the identity provider, read with its session
 * cookie as the web page reads it: it stays open and delivers the session's events (it used to
 * end at once, the browser session taken for a revoked API key), and sign-out ends it.
 */
let provider: OidcTestProvider;
let gateway: GatewayUnderTest;
let redis: Redis;
let keys: RedisKeys;

beforeAll(async () => {
  provider = await startOidcTestProvider({ bob: TEST_ACCOUNTS.bob });
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, provider.gatewaySettings);
  provider.registerClient(`${gateway.base}/v1/auth/oidc/callback`);
  redis = new Redis(gateway.redisUrl);
  keys = new RedisKeys(gateway.redisKeyPrefix);
});

afterAll(async () => {
  redis?.disconnect();
  await gateway?.stop();
  await provider?.stop();
});

/** Signs bob in with the code flow; the browser then holds the session cookie. */
async function signIn(): Promise<{ browser: BrowserClient; csrf: string }> {
  const browser = new BrowserClient();
  const callback = `${gateway.base}/v1/auth/oidc/callback`;
  const form = await browser.go(`${gateway.base}/v1/auth/oidc/login`);
  const consent = await browser.submitForm(form, { prompt: 'login', login: 'bob', password: 'any' }, callback);
  const back = await browser.submitForm(consent, { prompt: 'consent' }, callback);
  await browser.go(back.url, { stopBefore: `${gateway.base}/` });
  const session = (await (await fetch(`${gateway.base}/v1/auth/session`, { headers: browser.cookieHeader(gateway.base) })).json()) as { csrfToken: string };
  return { browser, csrf: session.csrfToken };
}

async function asBrowser(browser: BrowserClient, csrf: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.base}${path}`, {
    method,
    headers: { ...browser.cookieHeader(gateway.base), 'x-weft-csrf': csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (response.status === 204 ? {} : await response.json()) as Record<string, unknown> };
}

/** The session's events as text, its comments, and when the server ended the response. */
async function follow(browser: BrowserClient, sessionId: string) {
  const response = await fetch(`${gateway.base}/v1/sessions/${sessionId}/events`, { headers: browser.cookieHeader(gateway.base) });
  expect(response.status).toBe(200);
  const texts: string[] = [];
  const comments: string[] = [];
  const waiting = new Map<string, () => void>();
  const parser = createParser({
    onEvent: (message) => {
      const event = JSON.parse(message.data) as { type: string; text?: string };
      if (event.type !== 'message.delta' || !event.text) return;
      texts.push(event.text);
      waiting.get(event.text)?.();
    },
    onComment: (comment) => comments.push(comment.trim()),
  });
  const ended = (async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return 'ended' as const;
      parser.feed(value);
    }
  })();
  const received = (text: string) => (texts.includes(text) ? Promise.resolve('received' as const) : new Promise<'received'>((resolve) => waiting.set(text, () => resolve('received'))));
  return { texts, comments, ended, received };
}

/** Appends to the session's log as a turn does. */
async function append(sessionId: string, text: string): Promise<void> {
  await redis.xadd(keys.sessionEvents(sessionId), '*', EVENT_FIELD, encodeEvent({ type: 'message.delta', turnId: 'turn_web_session', text }));
}

describe('the event stream of a browser signed in through the identity provider', () => {
  it('stays open and delivers the session’s events; sign-out ends it', async () => {
    const { browser, csrf } = await signIn();
    const workspace = await asBrowser(browser, csrf, 'POST', '/v1/workspaces', {});
    const session = await asBrowser(browser, csrf, 'POST', '/v1/sessions', { workspaceId: workspace.json.id, model: 'tiny' });
    expect(session.status).toBe(201);
    const sessionId = String(session.json.id);

    const stream = await follow(browser, sessionId);
    await append(sessionId, 'hello');
    expect(await Promise.race([stream.received('hello'), stream.ended])).toBe('received');

    expect((await asBrowser(browser, csrf, 'POST', '/v1/auth/logout')).status).toBe(204);
    expect(await stream.ended).toBe('ended');
    expect(stream.comments).toContainEqual('closed: signed out');
  });
});
