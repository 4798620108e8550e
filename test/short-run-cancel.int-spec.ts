import { randomInt } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import type { StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../apps/gateway/src/test/scripted-workers';
import { readEvents } from '../apps/gateway/src/test/sse-client';
import { hostProcessesWith, waitFor } from '../apps/sandbox/src/testing/attack-helpers';
import { type SandboxHarness, startSandboxHarness } from '../apps/sandbox/src/testing/sandbox-harness';
import { startToolsWorker } from '../apps/tools/src/bootstrap';

/**
 * A short command (request/reply, not the long-run queue) in flight when its turn is cancelled:
 * the gateway (in-process, scripted model) tells a real sandbox worker over real NATS, which
 * kills the process in the session's real container, instead of letting it run to its timeout.
 */
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let sandbox: SandboxHarness;
let dir: string;

async function api(method: string, path: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gateway.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}

/** A user, a workspace (the tools worker's, which the sandbox mounts), and a session on it. */
async function fixture(name: string) {
  const userId = String((await api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name })).json.id);
  const key = String((await api('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN)).json.key);
  const workspaceId = String((await api('POST', '/v1/workspaces', key, {})).json.id);
  const session = await api('POST', '/v1/sessions', key, { workspaceId, model: 'tiny' });
  expect(session.status).toBe(201);
  return { userId, key, sessionId: String(session.json.id) };
}

const ended = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';

/** Starts a turn whose model runs a 30 s sleep (a token of its own, to find it in /proc), once it runs. */
async function turnRunningSleep(f: { key: string; sessionId: string }) {
  const token = `30.${randomInt(100_000, 999_999)}`;
  script(f.sessionId, [{ calls: [{ name: 'run_command', arguments: { command: `sleep ${token}` } }] }, { text: 'slept' }]);
  const before = await api('GET', `/v1/sessions/${f.sessionId}`, f.key);
  const posted = await api('POST', `/v1/sessions/${f.sessionId}/messages`, f.key, { content: 'sleep a while' });
  expect(posted.status).toBe(202);
  await waitFor('the sleep to run in the container', async () => (await hostProcessesWith(token)).length > 0, 60_000);
  return { token, turnId: String(posted.json.turnId), after: String(before.json.lastEventId) };
}

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedModelModule, {
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash(sleep:*)'] }),
  });
  dir = await mkdtemp(join(tmpdir(), 'weft-short-cancel-'));
  await chmod(dir, 0o755);
  tools = await startToolsWorker(
    loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: dir, LOG_LEVEL: 'silent' }),
    createLogger('tools', 'silent'),
  );
  // No REDIS_URL: this worker takes no long runs, so every command goes over request/reply.
  sandbox = await startSandboxHarness(gateway.natsUrl, { WORKSPACES_DIR: dir, SANDBOX_POOL_SIZE: '0', SANDBOX_TIMEOUT_MS: '120000' });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await tools?.close();
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('a short command in flight when its turn is cancelled', () => {
  it('is killed in its container within seconds, and the turn ends cancelled', async () => {
    const f = await fixture('short-cancel');
    const { token, turnId, after } = await turnRunningSleep(f);
    const cancelledAt = Date.now();
    expect((await api('POST', `/v1/sessions/${f.sessionId}/turns/${turnId}/cancel`, f.key)).status).toBe(202);
    const events = await readEvents(`${gateway.base}/v1/sessions/${f.sessionId}/events?after=${after}`, { authorization: `Bearer ${f.key}` }, ended);
    expect(events.at(-1)).toMatchObject({ type: 'turn.cancelled', turnId });
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ isError: true, output: expect.stringContaining('the turn was cancelled') });
    await waitFor('the sleep to be killed', async () => (await hostProcessesWith(token)).length === 0, 10_000);
    expect(Date.now() - cancelledAt).toBeLessThan(10_000);
  }, 120_000);

  it('is killed too when the admin disables its user', async () => {
    const f = await fixture('short-disable');
    const { token, turnId, after } = await turnRunningSleep(f);
    const disabledAt = Date.now();
    expect(await api('PATCH', `/v1/admin/users/${f.userId}`, TEST_ADMIN_TOKEN, { disabled: true })).toMatchObject({ status: 200, json: { cancelledTurns: 1 } });
    await waitFor('the sleep to be killed', async () => (await hostProcessesWith(token)).length === 0, 10_000);
    expect(Date.now() - disabledAt).toBeLessThan(10_000);
    // The disabled user cannot read the log any more: the admin re-enables them to.
    await api('PATCH', `/v1/admin/users/${f.userId}`, TEST_ADMIN_TOKEN, { disabled: false });
    const events = await readEvents(`${gateway.base}/v1/sessions/${f.sessionId}/events?after=${after}`, { authorization: `Bearer ${f.key}` }, ended);
    expect(events.at(-1)).toMatchObject({ type: 'turn.cancelled', turnId });
  }, 120_000);
});
