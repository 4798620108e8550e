import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest, TEST_ADMIN_TOKEN } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../apps/gateway/src/test/scripted-workers';
import { ofType, sessionApi } from '../apps/gateway/src/test/session-api';
import { type SandboxHarness, startSandboxHarness } from '../apps/sandbox/src/testing/sandbox-harness';
import { PYTHON_MCP_SERVER } from '../apps/sandbox/src/testing/stdio-mcp-fixture';
import { tarGz } from '../apps/tools/src/testing/tar-fixtures';
import { startToolsWorker } from '../apps/tools/src/bootstrap';

/** The fixture server, whose `whoami` also sleeps `nap` seconds when asked to. */
const NAPPING_SERVER = PYTHON_MCP_SERVER.replace('import json, os, socket, sys', 'import json, os, socket, sys, time').replace(
  'args = msg["params"].get("arguments") or {}',
  'args = msg["params"].get("arguments") or {}\n        time.sleep(float(args.get("nap", 0)))',
);

/**
 * A stdio MCP server runs in the session's sandbox container: its tool listing and calls count
 * against the owner's sandbox seconds like commands (real gateway, tools and sandbox workers, Docker).
 */
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let sandbox: SandboxHarness;
let dir: string;
let client: ReturnType<typeof sessionApi>;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedModelModule, {
    MCP_WORKSPACE_STDIO: 'true',
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['mcp__py'] }),
  });
  dir = await mkdtemp(join(tmpdir(), 'weft-mcp-quota-'));
  tools = await startToolsWorker(
    loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: dir, LOG_LEVEL: 'silent' }),
    createLogger('tools', 'silent'),
  );
  sandbox = await startSandboxHarness(gateway.natsUrl, { WORKSPACES_DIR: dir, SANDBOX_POOL_SIZE: '0' });
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await sandbox?.close();
  await tools?.close();
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("a stdio MCP server's sandbox time", () => {
  it("records a call's time in usage, and refuses a call past the sandbox seconds for the day in the quota's words, which the model sees", async () => {
    const f = await client.fixture('mcp-quota');
    const upload = await fetch(`${gateway.base}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.key}`, 'content-type': 'application/gzip' },
      body: tarGz([
        { path: 'server.py', content: NAPPING_SERVER },
        { path: '.weft/mcp.json', content: JSON.stringify({ mcpServers: { py: { command: 'python3', args: ['server.py'] } } }) },
      ]),
    });
    expect(upload.status).toBe(201);
    const workspaceId = String(((await upload.json()) as { id: string }).id);
    const created = await client.api('POST', '/v1/sessions', f.key, { workspaceId, model: 'tiny', sandboxNetwork: 'none' });
    const session = { ...f, workspaceId, sessionId: String(created.json.id) };
    const sandboxUsage = async () => {
      const rows = (await client.api('GET', '/v1/me/usage', f.key)).json.rows as Array<{ model: string; sandboxRuns: number; sandboxMs: number }>;
      return rows.find((row) => row.model === 'sandbox') ?? { sandboxRuns: 0, sandboxMs: 0 };
    };

    // No quota yet: the listing that starts the server and the call are both counted.
    script(session.sessionId, [{ calls: [{ name: 'mcp__py__whoami', arguments: { greeting: 'hello' } }] }, { text: 'done' }]);
    let started = await client.start(session, '/messages', { content: 'who is there?' });
    let events = await client.follow(session, started.after);
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({ isError: false, output: expect.stringMatching(/^hello from /) });
    const first = await sandboxUsage();
    expect(first.sandboxRuns).toBe(2);
    expect(first.sandboxMs).toBeGreaterThan(0);

    // Room for the listing of a running server and one call, not for a 4-second nap and another call.
    const secondsPerDay = Math.ceil(first.sandboxMs / 1000) + 2;
    const limits = await fetch(`${gateway.base}/v1/admin/users/${f.userId}/limits`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sandboxSecondsPerDay: secondsPerDay }),
    });
    expect(limits.status).toBe(200);
    script(session.sessionId, [
      { calls: [{ name: 'mcp__py__whoami', arguments: { greeting: 'napped', nap: 4 } }] },
      { calls: [{ name: 'mcp__py__whoami', arguments: { greeting: 'again' } }] },
      { text: 'out of sandbox time' },
    ]);
    started = await client.start(session, '/messages', { content: 'nap, then again' });
    events = await client.follow(session, started.after);
    expect(events.at(-1)?.type).toBe('turn.completed');
    const [napped, refused] = ofType(events, 'tool.completed');
    expect(napped).toMatchObject({ isError: false, output: expect.stringMatching(/^napped from /) });
    expect(refused).toMatchObject({ isError: true, output: expect.stringContaining(`Over your quota of ${secondsPerDay} sandbox seconds per day`) });
    const second = await sandboxUsage();
    // The listing and the nap ran and were counted; the refused call never reached the sandbox.
    expect(second.sandboxRuns).toBe(4);
    expect(second.sandboxMs - first.sandboxMs).toBeGreaterThanOrEqual(4000);
  });
});
