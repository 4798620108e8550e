import type { StoredSessionEvent } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from './test/gateway-under-test';
import { ScriptedWorkersModule, requestsOf, script, scriptedWorld } from './test/scripted-workers';
import { type SessionFixture, ofType, sessionApi, turnEnded } from './test/session-api';

/**
 * Per-user quotas, limits and usage through the public HTTP API, on real Redis and NATS with
 * scripted workers (each generation reports 7 prompt and 3 completion tokens unless told otherwise).
 */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
const api = (...args: Parameters<typeof client.api>) => client.api(...args);
const admin = (method: string, path: string, body?: unknown) => client.api(method, path, TEST_ADMIN_TOKEN, body);
const setLimits = (f: SessionFixture, limits: Record<string, number>) => admin('PUT', `/v1/admin/users/${f.userId}/limits`, limits);

async function runTurn(f: SessionFixture, content: string): Promise<StoredSessionEvent[]> {
  const { after } = await client.start(f, '/messages', { content });
  return client.follow(f, after, turnEnded);
}

async function newSession(f: SessionFixture): Promise<SessionFixture> {
  const created = await api('POST', '/v1/sessions', f.key, { workspaceId: f.workspaceId, model: 'tiny' });
  return { ...f, sessionId: String(created.json.id) };
}

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, { INFERENCE_TIMEOUT_MS: '20000' });
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await gateway?.stop();
});

describe('usage', () => {
  it("sums each user's turns, generations, tokens and tool calls per model and day, matching the turns' own usage", async () => {
    const f = await client.fixture('usage-counted', {}, { 'a.txt': 'alpha' });
    const other = await client.fixture('usage-other');
    script(f.sessionId, [{ calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }], promptTokens: 11 }, { text: 'read it', promptTokens: 13 }]);
    const events = await runTurn(f, 'read a.txt');
    const completed = ofType(events, 'turn.completed')[0];
    expect(completed?.usage).toMatchObject({ promptTokens: 24, completionTokens: 6 });
    await runTurn(other, 'hello');

    const mine = await api('GET', '/v1/me/usage', f.key);
    expect(mine.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(mine.json.rows).toEqual([
      { date: today, model: 'tiny', turns: 1, generations: 2, promptTokens: 24, cachedTokens: 0, evaluatedTokens: 24, completionTokens: 6, toolCalls: 1, sandboxRuns: 0, sandboxMs: 0 },
    ]);
    expect(mine.json).toMatchObject({ from: expect.any(String), to: today, totals: { turns: 1, promptTokens: 24, toolCalls: 1 } });

    const all = await admin('GET', `/v1/admin/usage?user=${f.userId}`);
    expect(all.json.rows).toEqual([expect.objectContaining({ userId: f.userId, turns: 1, generations: 2, completionTokens: 6 })]);
    const everyone = await admin('GET', `/v1/admin/usage?from=${today}&to=${today}`);
    expect((everyone.json.rows as Array<{ userId: string }>).map((r) => r.userId)).toEqual(expect.arrayContaining([f.userId, other.userId]));

    const csv = await admin('GET', `/v1/admin/usage?user=${f.userId}&format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.text.trim().split('\n')).toEqual([
      'date,userId,model,turns,generations,promptTokens,cachedTokens,evaluatedTokens,completionTokens,toolCalls,sandboxRuns,sandboxMs',
      `${today},${f.userId},tiny,1,2,24,0,24,6,1,0,0`,
    ]);
  });

  it('refuses a bad range, and usage of other users to a user key', async () => {
    const f = await client.fixture('usage-bad-range');
    expect(await api('GET', '/v1/me/usage?from=2026-02-30', f.key)).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('query.from') } } });
    expect(await api('GET', '/v1/me/usage?from=2026-05-02&to=2026-05-01', f.key)).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('from must not be after to') } } });
    expect(await api('GET', '/v1/admin/usage', f.key)).toMatchObject({ status: 403 });
  });
});

describe('quotas', () => {
  it('answers 429 with Retry-After and QUOTA.EXCEEDED past the requests per minute, for this user only', async () => {
    const f = await client.fixture('rpm-limited');
    const other = await client.fixture('rpm-free');
    expect(await setLimits(f, { requestsPerMinute: 3 })).toMatchObject({ status: 200, json: { effective: { requestsPerMinute: 3 } } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api('GET', '/v1/me', f.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await api('GET', '/v1/me', f.key);
    expect(refused.json.error).toMatchObject({ code: 'QUOTA.EXCEEDED', details: { quota: 'requestsPerMinute', limit: 3 } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api('GET', '/v1/me', other.key)).status).toBe(200);
    // The compatible APIs count too, and answer in their own shape.
    const compat = await api('GET', '/openai/v1/models', f.key);
    expect(compat).toMatchObject({ status: 429, json: { error: { code: 'QUOTA.EXCEEDED' } } });
    await setLimits(f, {});
  });

  it('refuses a turn past the concurrent turns, and takes it once a running turn has ended', async () => {
    const f = await client.fixture('turns-limited');
    await setLimits(f, { concurrentTurns: 1 });
    const second = await newSession(f);
    script(f.sessionId, [{ hang: true }]);
    const { json, after } = await client.start(f, '/messages', { content: 'hang' });
    const refused = await api('POST', `/v1/sessions/${second.sessionId}/messages`, f.key, { content: 'me too' });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'QUOTA.EXCEEDED', details: { quota: 'concurrentTurns', limit: 1, used: 1 } });
    expect(refused.headers.get('retry-after')).toBe('5');

    await api('POST', `/v1/sessions/${f.sessionId}/turns/${String(json.turnId)}/cancel`, f.key);
    await client.follow(f, after, turnEnded);
    expect(ofType(await runTurn(second, 'now me'), 'turn.completed')).toHaveLength(1);
  });

  it('fails a turn that runs out of tokens for the day with QUOTA.EXCEEDED, keeps the history, and refuses compatible-API calls', async () => {
    const f = await client.fixture('tokens-limited');
    await setLimits(f, { tokensPerDay: 10 });
    script(f.sessionId, [{ text: 'first answer' }, { text: 'never said' }]);
    expect(ofType(await runTurn(f, 'first'), 'turn.completed')).toHaveLength(1);
    const failed = ofType(await runTurn(f, 'second'), 'turn.failed')[0];
    expect(failed).toMatchObject({ code: 'QUOTA.EXCEEDED', message: expect.stringContaining('10 tokens per day') });
    const messages = await api('GET', `/v1/sessions/${f.sessionId}/export?format=jsonl`, f.key);
    expect(messages.text).toContain('first answer');
    expect(messages.text).toContain('second');

    const compat = await api('POST', '/openai/v1/chat/completions', f.key, { model: 'tiny', messages: [{ role: 'user', content: 'hi' }] });
    expect(compat.status).toBe(429);
    expect(compat.json.error).toMatchObject({ code: 'QUOTA.EXCEEDED', message: expect.stringContaining('tokens per day') });
    expect(Number(compat.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api('GET', '/v1/me/limits', f.key)).json).toMatchObject({ limits: { tokensPerDay: 10 }, tokensUsedToday: 10 });
  });
});

describe('sandbox time', () => {
  it("counts each user's sandbox run time and refuses runs past their sandbox seconds for the day", async () => {
    const f = await client.fixture('sandbox-limited');
    await setLimits(f, { sandboxSecondsPerDay: 2 });
    expect((await api('PUT', '/v1/permissions/user', f.key, { allow: ['Bash(sleep:*)'], ask: [], deny: [] })).status).toBe(200);
    const sleep = (seconds: number) => ({ name: 'run_command', arguments: { command: `sleep ${seconds}` } });
    script(f.sessionId, [{ calls: [sleep(2.5)] }, { text: 'slept' }, { calls: [sleep(1)] }, { text: 'could not' }]);
    expect(ofType(await runTurn(f, 'sleep'), 'tool.completed')[0]).toMatchObject({ isError: false });
    const refused = ofType(await runTurn(f, 'sleep again'), 'tool.completed')[0];
    expect(refused).toMatchObject({ isError: true, output: expect.stringContaining('Over your quota of 2 sandbox seconds per day (2 used)') });

    const usage = await api('GET', '/v1/me/usage', f.key);
    expect(usage.json.rows).toEqual(expect.arrayContaining([expect.objectContaining({ model: 'sandbox', sandboxRuns: 1, sandboxMs: 2500 })]));
  });

  it('lets one of 5 parallel 3-second runs start with 2 sandbox seconds a day, and refuses the others before they start', async () => {
    const f = await client.fixture('sandbox-burst');
    await setLimits(f, { sandboxSecondsPerDay: 2 });
    expect((await api('PUT', '/v1/permissions/user', f.key, { allow: ['Bash(sleep:*)'], ask: [], deny: [] })).status).toBe(200);
    // Five spellings of `sleep 3` (the stand-in reports 3 s for each), so each run has its own gate.
    const commands = ['sleep 3', 'sleep 3.0', 'sleep 3.00', 'sleep 3.000', 'sleep 03'];
    let open = () => undefined as void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const started: string[] = [];
    const sessions = [f, ...(await Promise.all(commands.slice(1).map(() => newSession(f))))];
    const turns = await Promise.all(
      sessions.map(async (s, i) => {
        const command = commands[i] as string;
        scriptedWorld.execGates.set(command, gate);
        const running = new Promise<void>((resolve) => scriptedWorld.execStarted.set(command, () => (started.push(command), resolve())));
        script(s.sessionId, [{ calls: [{ name: 'run_command', arguments: { command } }] }, { text: 'done' }]);
        const { after } = await client.start(s, '/messages', { content: command });
        return { s, after, running };
      }),
    );
    // Every run has either reached the sandbox (held there by the gate) or been refused.
    await Promise.all(turns.map(({ s, after, running }) => Promise.race([running, client.follow(s, after, (e) => e.type === 'tool.completed')])));
    const startedBeforeOpen = started.length;
    open();
    // The first alone may cross the line (as one run always could); none beside it.
    expect(startedBeforeOpen).toBe(1);
    const outputs = (await Promise.all(turns.map(({ s, after }) => client.follow(s, after)))).map((events) => ofType(events, 'tool.completed')[0]);
    const refused = outputs.filter((o) => o?.isError && o.output.includes('Over your quota of 2 sandbox seconds per day'));
    expect(refused).toHaveLength(commands.length - started.length);
    const usage = await api('GET', '/v1/me/usage', f.key);
    expect(usage.json.rows).toEqual(expect.arrayContaining([expect.objectContaining({ model: 'sandbox', sandboxRuns: started.length, sandboxMs: 3000 * started.length })]));
    for (const command of commands) {
      scriptedWorld.execGates.delete(command);
      scriptedWorld.execStarted.delete(command);
    }
  });
});

describe('limits', () => {
  it("sends the user's fair-share weight with every generation", async () => {
    const f = await client.fixture('weighted');
    await setLimits(f, { weight: 3 });
    await runTurn(f, 'hello');
    expect(requestsOf(f.sessionId).at(-1)?.user).toEqual({ id: f.userId, weight: 3 });
  });

  it('shows defaults, overrides and what is in effect; refuses bad limits and unknown users', async () => {
    const f = await client.fixture('limits-shown');
    expect(await setLimits(f, { concurrentTurns: 2 })).toMatchObject({
      status: 200,
      json: { overrides: { concurrentTurns: 2 }, defaults: { concurrentTurns: 8, weight: 1, sandboxSecondsPerDay: 0 }, effective: { concurrentTurns: 2, requestsPerMinute: 600 } },
    });
    expect(await setLimits(f, { weight: 0 })).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('body.weight') } } });
    expect(await setLimits(f, { bogus: 1 } as Record<string, number>)).toMatchObject({ status: 400 });
    expect(await admin('GET', '/v1/admin/users/usr_nobody123/limits')).toMatchObject({ status: 404 });
    expect((await admin('GET', `/v1/admin/users/${f.userId}/limits`)).json).toMatchObject({ overrides: { concurrentTurns: 2 } });
  });
});

describe('metrics', () => {
  it('exposes the usage totals to Prometheus behind the admin token, labelled by model and quota, never by user', async () => {
    const f = await client.fixture('metered');
    await runTurn(f, 'hello');
    await setLimits(f, { requestsPerMinute: 1 });
    await api('GET', '/v1/me', f.key);
    expect((await api('GET', '/v1/me', f.key)).status).toBe(429);
    await setLimits(f, {});

    const scraped = await admin('GET', '/metrics');
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
    const value = (line: string) => Number(scraped.text.split('\n').find((l) => l.startsWith(line))?.slice(line.length + 1));
    expect(value('weft_gateway_generations_total{model="tiny"}')).toBeGreaterThanOrEqual(1);
    expect(value('weft_gateway_tokens_total{model="tiny",kind="completion"}')).toBeGreaterThanOrEqual(3);
    expect(value('weft_gateway_turns_total{model="tiny"}')).toBeGreaterThanOrEqual(1);
    expect(value('weft_gateway_quota_rejections_total{quota="requestsPerMinute"}')).toBeGreaterThanOrEqual(1);
    expect(scraped.text).not.toContain(f.userId);
    expect((await api('GET', '/metrics', f.key)).status).toBe(403);
  });
});
