import { gzipSync } from 'node:zlib';
import { apiRoutes, openApiDocument } from '@weft/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from './test/gateway-under-test';
import type { HttpRoute } from './test/http-routes';
import { type RawRequest, type RawResponse, sendBytes, sendRaw } from './test/raw-request';
import { type SessionFixture, sessionApi } from './test/session-api';
import { EveryWorkerModule } from './test/stub-workers';

/**
 * Every route of the gateway, sent malformed input: bad ids, broken or misplaced JSON, wrong
 * content types, odd query strings and headers, bad or missing credentials. Whatever comes in, the
 * answer comes within ANSWER_WITHIN_MS, is never a 5xx, and a 4xx is the API's JSON error with no
 * path of the server and no stack trace in it.
 */
const ANSWER_WITHIN_MS = 5000;
const RUNS_PER_ROUTE = 50;
const ROUTE_TIME_LIMIT_MS = 15_000;

/** What a message may not show: the server's own folders, a stack frame. */
const HOST_PATH = /\/(tmp|var\/lib|work|home|root|usr|proc)\//i;
const STACK_FRAME = /\n\s+at |\bat [^\s()]+ \([^)]*:\d+:\d+\)|node:internal/;

let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
/** Another user's, to send ids that exist but belong to someone else. */
let stranger: SessionFixture;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(EveryWorkerModule, { QUOTA_REQUESTS_PER_MINUTE: '0', NATS_REQUEST_TIMEOUT_MS: '3000' });
  client = sessionApi(gateway.base);
  stranger = await client.fixture('fuzz-stranger');
});

afterAll(async () => {
  await gateway?.stop();
});

// ---- what goes in -------------------------------------------------------------------------

const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));
const weirdString = fc.oneof(
  fc.constantFrom('', ' ', '.', '..', '../', '../../etc/passwd', '%00', 'a%00b', '%2e%2e', '%2e%2e%2f', '%', '%zz', '%C0%AE', '\\', '..\\..', 'null', 'undefined', '[object Object]', '__proto__', 'constructor', 'prototype', '0', '-1', '1e309', 'NaN', '\u202e', '\ufeff', '💥', 'ses_', 'ws_', 'usr_'),
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: anyCodePoint, maxLength: 8 }),
  fc.integer({ min: 65, max: 3000 }).map((n) => 'a'.repeat(n)),
);
/** Ids that pass a prefix check at a glance, and ones that do not. */
const badId = fc.oneof(
  { weight: 3, arbitrary: weirdString },
  { weight: 1, arbitrary: fc.stringMatching(/^(ses|ws|usr|note|key|turn|perm)_[A-Za-z0-9_-]{8,64}$/) },
  { weight: 1, arbitrary: fc.constantFrom('ses', 'ws', 'usr', 'note', 'key', 'turn', 'perm').map((p) => `${p}_${'A'.repeat(65)}`) },
);
const hugeNumber = fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 64, -0, 0.1, 5e-324, -1);
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  weirdString,
  hugeNumber,
  fc.constantFrom(true, false, null),
  fc.array(fc.oneof(weirdString, hugeNumber), { maxLength: 3 }),
  fc.dictionary(weirdString, weirdString, { maxKeys: 3 }),
  fc.constant('x'.repeat(250_000)),
);
/** Field names the API's bodies use, with values of the wrong kind or size. */
const FIELDS = ['content', 'name', 'model', 'workspaceId', 'title', 'decision', 'scope', 'rules', 'allow', 'ask', 'deny', 'disabled', 'confirm', 'text', 'git', 'url', 'ref', 'inputs', 'mode', 'to', 'messages', 'prompt', 'input', 'max_tokens', 'stream', 'reason', 'expiresAt', 'requestsPerMinute', 'tokensPerDay', 'maxIterations', 'planning', 'sandboxImage', '__proto__', 'constructor'];
const plausibleBody = fc.dictionary(fc.constantFrom(...FIELDS), weirdValue, { maxKeys: 4 });

type Body = { text: string | Buffer } | undefined;
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: plausibleBody.map((b) => ({ text: JSON.stringify(b) })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v) })) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('{', '{"a":', '[1,2', 'nul', '{"a":1}x', "{'a':1}", '\u0000', '{"a":"\\ud800"}', '{"content":1e400}', '{"limit":123456789012345678901234567890}', '[]', '""', '0', '{"__proto__":{"isAdmin":true}}', '{"a":1,"a":2}')
      .map((text) => ({ text })),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 20_000 }).map((depth) => ({ text: '['.repeat(depth) + ']'.repeat(depth) })) },
  { weight: 1, arbitrary: fc.constant({ text: `{"content":"${'y'.repeat(1_100_000)}"}` }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ text: Buffer.from(bytes) })) },
  { weight: 1, arbitrary: plausibleBody.map((b) => ({ text: gzipSync(JSON.stringify(b)) })) },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    '',
    'text/plain',
    'application/gzip',
    'application/x-gzip',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/json; charset=nope',
    'application/*',
    '*/*',
    'nonsense',
    'application/vnd.api+json',
  ),
);

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((name) => !HOP_BY_HOP.has(name));
const HOP_BY_HOP = new Set(['connection', 'content-length', 'transfer-encoding', 'host', 'expect', 'upgrade', 'te', 'trailer', 'keep-alive', 'proxy-connection']);
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c < 0x7f || c > 0x9f).map((c) => String.fromCharCode(c)), maxLength: 40 }).map((v) => v.trim());
const extraHeaders = fc.oneof(
  fc.dictionary(headerName, headerValue, { maxKeys: 3 }),
  fc.record(
    {
      'last-event-id': fc.oneof(weirdString.map(latin1), fc.constantFrom('0-0', '99999999999999999999-1', '-1', '1-')),
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nope'),
      accept: fc.constantFrom('text/event-stream', 'application/xml', '*/*', ''),
      'x-forwarded-for': fc.constantFrom('127.0.0.1', '::1, 10.0.0.1', 'garbage'),
    },
    { requiredKeys: [] },
  ),
);

type Who = 'user' | 'admin' | 'stranger' | 'none' | 'garbage' | 'x-api-key' | 'basic' | 'empty-bearer';
const who = fc.constantFrom<Who>('user', 'user', 'user', 'admin', 'admin', 'stranger', 'none', 'garbage', 'x-api-key', 'basic', 'empty-bearer');

const query = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc
      .dictionary(fc.constantFrom('after', 'limit', 'format', 'from', 'to', 'model', 'user', 'name', 'x'), weirdString, { maxKeys: 3 })
      .map((q) => `?${new URLSearchParams(q as Record<string, string>).toString()}`),
  },
  fc.constantFrom('?', '?%', '?a=%zz', '?limit=1e400', '?limit=-1', '?limit=1&limit=2', '?after=0-0', '?after=99999999999999999999-1', '?format=xml', '?from=2020-13-45&to=9999-99-99', '?a[b][c]=1', '?__proto__[x]=1', `?x=${'q'.repeat(6000)}`),
);

function latin1(value: string): string {
  return [...value].filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) <= 0xff && (c.charCodeAt(0) < 0x7f || c.charCodeAt(0) > 0x9f)).join('').trim();
}

/** A value in a path segment: percent-encoded (a lone surrogate as U+FFFD), or sent as written where it is plain ASCII. */
function inPath(value: string, raw: boolean, wildcard: boolean): string {
  if (raw && /^[\x21-\x7e]*$/.test(value) && !/[?#]/.test(value)) return value;
  const encode = (part: string) => encodeURIComponent(Buffer.from(part, 'utf8').toString('utf8'));
  return wildcard ? value.split('/').map(encode).join('/') : encode(value);
}

// ---- the routes ---------------------------------------------------------------------------

/** A value for each path parameter that names something of the fixture (or a well-formed unknown id). */
function validParam(route: string, param: string, f: SessionFixture): string {
  switch (param) {
    case 'id':
      if (route.startsWith('/v1/workspaces') || route.startsWith('/v1/permissions/workspace')) return f.workspaceId;
      if (route.startsWith('/v1/sessions') || route.startsWith('/v1/permissions/session')) return f.sessionId;
      if (route.startsWith('/v1/admin/users')) return f.userId;
      if (route.startsWith('/openai/v1/models') || route.startsWith('/v1/admin/models')) return 'tiny';
      if (route.startsWith('/openai/v1/responses')) return 'resp_00000000000000000000000000000000';
      break;
    case 'noteId':
      return 'note_AAAAAAAAAAAAAAAA';
    case 'keyId':
      return 'key_AAAAAAAAAAAAAAAA';
    case 'turnId':
      return 'turn_AAAAAAAAAAAAAAAA';
    case 'requestId':
      return 'perm_AAAAAAAAAAAAAAAA';
    case 'name':
      return 'review';
    case 'path':
      return 'src/index.ts';
  }
  throw new Error(`the fuzz test has no value for :${param} of ${route}; add one to validParam`);
}

/**
 * Rotating or turning off the bootstrap token with it would lock the rest of the run out (every
 * fixture is made with it): those routes are fuzzed with every other credential;
 * admin-users.int-spec drives them as the admin.
 */
function retiresAdminToken(route: HttpRoute): boolean {
  // Any method: a variant of the GET route may be sent as DELETE.
  return route.path.startsWith('/v1/admin/bootstrap-token');
}

function paramsOf(route: string): string[] {
  return [...route.matchAll(/[:*](\w+)/g)].map((m) => m[1] as string);
}

interface Variant {
  method: string;
  params: Record<string, { valid: boolean; value: string; raw: boolean }>;
  /** Optional groups (`{/*path}`) left out. */
  dropOptional: boolean;
  query: string;
  who: Who;
  contentType: string | null;
  headers: Record<string, string>;
  body: Body;
}

function variants(route: HttpRoute): fc.Arbitrary<Variant> {
  const params = Object.fromEntries(
    paramsOf(route.path).map((name) => [
      name,
      fc.record({ valid: fc.boolean(), value: badId, raw: fc.boolean() }),
    ]),
  );
  return fc.record({
    method: fc.oneof({ weight: 8, arbitrary: fc.constant(route.method) }, fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS')),
    params: fc.record(params) as fc.Arbitrary<Variant['params']>,
    dropOptional: fc.boolean(),
    query,
    who,
    contentType: fc.option(contentType, { freq: 5, nil: null }),
    headers: extraHeaders as fc.Arbitrary<Record<string, string>>,
    body,
  });
}

function render(route: HttpRoute, v: Variant, f: SessionFixture): RawRequest {
  let path = route.path.replace(/\{([^}]*)\}/g, (_group, inner: string) => (v.dropOptional ? '' : inner));
  for (const name of paramsOf(route.path)) {
    const p = v.params[name];
    if (!p) continue;
    const value = p.valid ? validParam(route.path, name, f) : p.value;
    path = path.replace(new RegExp(`[:*]${name}\\b`), () => inPath(value, p.raw, route.path.includes(`*${name}`)));
  }
  const headers: Record<string, string> = { ...v.headers };
  const keyOf: Record<Who, string | undefined> = {
    user: `Bearer ${f.key}`,
    admin: `Bearer ${TEST_ADMIN_TOKEN}`,
    stranger: `Bearer ${stranger.key}`,
    none: undefined,
    garbage: `Bearer wk_${'z'.repeat(40)}`,
    'x-api-key': undefined,
    basic: `Basic ${Buffer.from('admin:admin').toString('base64')}`,
    'empty-bearer': 'Bearer ',
  };
  const auth = keyOf[v.who];
  if (auth !== undefined) headers.authorization = auth;
  if (v.who === 'x-api-key') headers['x-api-key'] = f.key;
  if (v.contentType !== null) headers['content-type'] = v.contentType;
  const body = v.body === undefined ? undefined : Buffer.isBuffer(v.body.text) ? v.body.text : Buffer.from(v.body.text, 'utf8');
  return { method: v.method, path: `${path}${v.query}`, headers, body };
}

/** The request's own text, decoded where it can be, to keep inputs that would look like a leak out of the run. */
function echoesAsLeak(raw: RawRequest): boolean {
  const text = [raw.path, ...Object.values(raw.headers), raw.body?.toString('utf8') ?? ''].join('\n');
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // Not valid percent-encoding: the raw text is all there is to check.
  }
  return [text, decoded].some((t) => HOST_PATH.test(t) || STACK_FRAME.test(t));
}

// ---- what must come out -------------------------------------------------------------------

/** Why the answer is wrong, or undefined. */
function problemWith(raw: RawRequest, response: RawResponse): string | undefined {
  if (response.status >= 500) return `answered ${response.status}`;
  if (response.status < 400 || raw.method === 'HEAD') return undefined;
  if (!response.contentType.startsWith('application/json')) return `a ${response.status} of type '${response.contentType}', not JSON`;
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    return `a ${response.status} whose body is not JSON`;
  }
  if (!hasErrorShape(raw.path, json)) return `a ${response.status} without the error shape`;
  if (HOST_PATH.test(response.text)) return `a ${response.status} naming a server path`;
  if (STACK_FRAME.test(response.text)) return `a ${response.status} holding a stack trace`;
  return undefined;
}

function hasErrorShape(path: string, json: unknown): boolean {
  const error = (json as { error?: { code?: unknown; message?: unknown; type?: unknown } } | null)?.error;
  if (typeof error?.message !== 'string' || error.message === '') return false;
  const weft = typeof error.code === 'string' && /^[A-Z]+\.[A-Z_]+$/.test(error.code);
  // The compatible APIs answer in their own shape (Anthropic's has a type where Weft has a code).
  if (path.startsWith('/openai/')) return weft || (typeof error.type === 'string' && typeof error.code === 'string');
  if (path.startsWith('/anthropic/')) return weft || ((json as { type?: unknown }).type === 'error' && typeof error.type === 'string');
  return weft;
}

/** The request in one line, credentials by name (`<user key>`), not value. */
function shortRequest(raw: RawRequest, f: SessionFixture): string {
  const names: Array<[string, string]> = [[f.key, '<user key>'], [stranger.key, '<stranger key>'], [TEST_ADMIN_TOKEN, '<admin token>']];
  const named = (value: string) => names.reduce((text, [secret, name]) => text.replaceAll(secret, name), value);
  const body = raw.body === undefined ? '' : ` body(${raw.body.length} bytes)=${JSON.stringify(raw.body.toString('utf8').slice(0, 200))}`;
  return named(`${raw.method} ${raw.path.slice(0, 300)} headers=${JSON.stringify(raw.headers)}${body}`);
}

// ---- the tests ----------------------------------------------------------------------------

describe('the HTTP API under malformed input', () => {
  it('knows a valid value for every path parameter of every route', async () => {
    const f = await client.fixture('fuzz-params');
    expect(gateway.routes.length).toBeGreaterThan(40);
    for (const route of gateway.routes) for (const param of paramsOf(route.path)) expect(() => validParam(route.path, param, f)).not.toThrow();
  });

  it('serves exactly the routes of the contract table, which /openapi.json documents without a key', async () => {
    const served = gateway.routes.map((r) => `${r.method} ${r.path}`).sort();
    const contract = Object.values(apiRoutes).map((r) => `${r.method} ${r.path}`).sort();
    expect(served).toEqual(contract);
    const response = await fetch(`${gateway.base}/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(openApiDocument('0.1.0'));
  });

  it('answers every route within the bound, never with a 5xx, and every 4xx as a JSON error without server paths or stack traces', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    for (const route of gateway.routes) {
      const f = await client.fixture(`fuzz-${route.method}-${route.path}`.slice(0, 90));
      const result = await fc.check(
        fc.asyncProperty(
          variants(route)
            .filter((v) => !(v.who === 'admin' && retiresAdminToken(route)))
            .map((v) => render(route, v, f))
            .filter((raw) => !echoesAsLeak(raw)),
          async (raw) => {
            let response: RawResponse;
            try {
              response = await sendRaw(gateway.base, raw, ANSWER_WITHIN_MS);
            } catch (error) {
              throw new Error(`no answer: ${String(error)}`);
            }
            const problem = problemWith(raw, response);
            if (problem) throw new Error(`${problem}: ${response.text.slice(0, 500)}`);
          },
        ),
        { numRuns: RUNS_PER_ROUTE, interruptAfterTimeLimit: ROUTE_TIME_LIMIT_MS },
      );
      if (result.failed) {
        const [raw] = result.counterexample ?? [];
        failures.push(`${route.method} ${route.path}: ${String((result.errorInstance as Error | undefined)?.message)}\n  request: ${raw ? shortRequest(raw, f) : '?'}\n  seed ${result.seed}, path ${result.counterexamplePath}`);
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  });

  it('answers a request too large or too broken for the HTTP parser with the same JSON error', async () => {
    const long = await sendRaw(gateway.base, { method: 'GET', path: `/v1/sessions/${'a'.repeat(20_000)}`, headers: {} }, ANSWER_WITHIN_MS);
    expect(long.status).toBe(431);
    expect(problemWith({ method: 'GET', path: '/v1/sessions', headers: {} }, long)).toBeUndefined();
    for (const bytes of ['GARBAGE\r\n\r\n', 'GET v1/me HTTP/1.1\r\nHost: x\r\n\r\n', 'POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n']) {
      const answer = await sendBytes(gateway.base, bytes, ANSWER_WITHIN_MS);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head, JSON.stringify(bytes)).toMatch(/^HTTP\/1\.1 400 [^\r]*\r\nContent-Type: application\/json/);
      expect(JSON.parse(body), JSON.stringify(bytes)).toMatchObject({ error: { code: 'COMMON.VALIDATION_FAILED', message: expect.any(String) } });
    }
  });
});
