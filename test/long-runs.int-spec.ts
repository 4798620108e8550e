import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredSessionEvent } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedWorkersModule, script } from '../apps/gateway/src/test/scripted-workers';
import { readEvents } from '../apps/gateway/src/test/sse-client';
import { hostProcessesWith, waitFor } from '../apps/sandbox/src/testing/attack-helpers';
import { type SandboxHarness, startSandboxHarness } from '../apps/sandbox/src/testing/sandbox-harness';

/**
 * A long run end to end across two processes' code: the gateway (in-process, scripted model)
 * classifies the command, queues it on real Redis, and relays the output a real sandbox worker
 * streams from a real container over real NATS into the session's events.
 */
let gateway: GatewayUnderTest;
let sandbox: SandboxHarness;

async function api(method: string, path: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gateway.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown> & { error?: { message: string } } };
}

/** A user, a workspace the sandbox can mount (holding `files`), and a session on it. */
async function fixture(name: string, files: Record<string, string>) {
  const userId = String((await api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name })).json.id);
  const key = String((await api('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN)).json.key);
  const workspaceId = String((await api('POST', '/v1/workspaces', key, {})).json.id);
  // The tools worker is scripted; the sandbox reads the workspace from its own folder.
  await mkdir(join(sandbox.root, workspaceId));
  for (const [path, content] of Object.entries(files)) await writeFile(join(sandbox.root, workspaceId, path), content);
  await chmod(join(sandbox.root, workspaceId), 0o755);
  const session = await api('POST', '/v1/sessions', key, { workspaceId, model: 'tiny' });
  expect(session.status).toBe(201);
  return { key, workspaceId, sessionId: String(session.json.id) };
}

async function post(f: { key: string; sessionId: string }, content: string) {
  const before = await api('GET', `/v1/sessions/${f.sessionId}`, f.key);
  const posted = await api('POST', `/v1/sessions/${f.sessionId}/messages`, f.key, { content });
  expect(posted.status).toBe(202);
  return { turnId: String(posted.json.turnId), after: String(before.json.lastEventId) };
}

function follow(f: { key: string; sessionId: string }, after: string, until: (e: StoredSessionEvent) => boolean) {
  return readEvents(`${gateway.base}/v1/sessions/${f.sessionId}/events?after=${after}`, { authorization: `Bearer ${f.key}` }, until);
}

const ended = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';
const unittest = (module: string) => ({ name: 'run_command', arguments: { command: `python3 -m unittest -v ${module}` } });

const TICKS = [
  'import time, unittest',
  'class Slow(unittest.TestCase):',
  '    def test_ticks(self):',
  '        for i in range(3):',
  '            print(f"tick {i}", flush=True)',
  '            time.sleep(1)',
].join('\n');
const HANG = ['import time, unittest', 'class Hang(unittest.TestCase):', '    def test_hang(self):', '        print("started", flush=True)', '        time.sleep(300)'].join('\n');

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash(python3 -m unittest:*)'] }),
  });
  sandbox = await startSandboxHarness(gateway.natsUrl, {
    REDIS_URL: gateway.redisUrl,
    REDIS_KEY_PREFIX: gateway.redisKeyPrefix,
    SANDBOX_POOL_SIZE: '0',
    SANDBOX_TIMEOUT_MS: '120000',
  });
});

afterAll(async () => {
  await sandbox?.close();
  await gateway?.stop();
});

describe('long runs through the gateway', () => {
  it("relays a test suite's output into the session's events as it runs, then its result", async () => {
    const f = await fixture('long-run', { 'test_ticks.py': TICKS });
    script(f.sessionId, [{ calls: [unittest('test_ticks')] }, { text: 'tests pass' }]);
    const { after } = await post(f, 'run the tests');
    const events = await follow(f, after, ended);
    const outputs = events.filter((e) => e.type === 'tool.output');
    const completed = events.find((e) => e.type === 'tool.completed');
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(outputs.filter((e) => e.stream === 'stdout').map((e) => e.text).join('')).toBe('tick 0\ntick 1\ntick 2\n');
    // The first tick was logged while the suite still had two seconds to run.
    expect(Date.parse(completed!.at) - Date.parse(outputs[0]!.at)).toBeGreaterThan(1_500);
    expect(events.indexOf(outputs.at(-1)!)).toBeLessThan(events.indexOf(completed!));
    expect(completed).toMatchObject({ isError: false, output: expect.stringContaining('tick 2') });
  });

  it("kills the run's processes promptly when the turn is cancelled mid-run, in the session's container", async () => {
    const f = await fixture('long-cancel', { 'test_hang.py': HANG });
    script(f.sessionId, [{ calls: [unittest('test_hang')] }]);
    const { turnId, after } = await post(f, 'run the hanging test');
    const running = await follow(f, after, (e) => e.type === 'tool.output' && e.text.includes('started'));
    const ofSession = async () => (await sandbox.containers()).filter((c) => c.Labels['weft.sandbox.session'] === f.sessionId);
    expect(await ofSession()).toHaveLength(1);
    expect(await hostProcessesWith('test_hang')).not.toEqual([]);
    const cancelledAt = Date.now();
    expect((await api('POST', `/v1/sessions/${f.sessionId}/turns/${turnId}/cancel`, f.key)).status).toBe(202);
    const rest = await follow(f, running.at(-1)!.id, ended);
    expect(rest.at(-1)?.type).toBe('turn.cancelled');
    // The container stays for the session's next command; the run's process group is gone.
    await waitFor('the hanging test to be killed', async () => (await hostProcessesWith('test_hang')).length === 0, 10_000);
    expect(Date.now() - cancelledAt).toBeLessThan(10_000);
  });

  it('refuses a session asking for egress on a server that does not allow it, naming the setting', async () => {
    const f = await fixture('no-egress', {});
    const refused = await api('POST', '/v1/sessions', f.key, { workspaceId: f.workspaceId, model: 'tiny', sandboxNetwork: 'egress' });
    expect(refused.status).toBe(403);
    expect(refused.json.error?.message).toContain('SANDBOX_EGRESS_ALLOWED');
    expect((await api('GET', `/v1/sessions/${f.sessionId}`, f.key)).json.sandboxNetwork).toBe('none');
  });
});
