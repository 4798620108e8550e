import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHarness, startSandboxHarness } from '../../../../test/support/app-harnesses';
import { type GatewayUnderTest, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule } from '../test/scripted-workers';
import { type SessionFixture, sessionApi } from '../test/session-api';

/**
 * Stdio MCP servers that do not come up, through the public API with a real sandbox worker (real
 * Docker) starting them in the session's container: listing a session's servers answers at once
 * with what is known (a starting server's stderr so far included), and a server that exits or
 * hangs is reported with its own last words.
 */
const STDIO_START_TIMEOUT_MS = 8_000;
let gateway: GatewayUnderTest;
let sandbox: SandboxHarness;
let client: ReturnType<typeof sessionApi>;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    MCP_SERVERS: JSON.stringify({
      mcpServers: {
        // What `npx -y <server>` does where npm cannot install it: says why on stderr and exits.
        dies: { command: 'sh', args: ['-c', 'echo "npm error code SELF_SIGNED_CERT_IN_CHAIN" >&2; sleep 1; exit 1'] },
        // And where npm retries a registry it cannot reach: says so, and never answers.
        hangs: { command: 'sh', args: ['-c', 'echo "npm http fetch GET https://registry.npmjs.org/x attempt 1 failed" >&2; exec sleep 600'] },
      },
    }),
    MCP_STDIO_START_TIMEOUT_MS: String(STDIO_START_TIMEOUT_MS),
  });
  sandbox = await startSandboxHarness(gateway.natsUrl, { SANDBOX_POOL_SIZE: '0' });
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await sandbox?.close();
  await gateway?.stop();
});

/** A session whose workspace the sandbox worker holds (the scripted tools worker only names it). */
async function sessionWithSandbox(name: string): Promise<SessionFixture> {
  const f = await client.fixture(name);
  await mkdir(join(sandbox.root, f.workspaceId));
  await chmod(join(sandbox.root, f.workspaceId), 0o777);
  return f;
}

async function servers(f: SessionFixture): Promise<Record<string, Record<string, unknown>>> {
  const listed = await client.api('GET', `/v1/sessions/${f.sessionId}/mcp`, f.key);
  expect(listed.status, listed.text).toBe(200);
  return Object.fromEntries((listed.json.servers as Array<Record<string, unknown>>).map((s) => [String(s.name), s]));
}

describe("a session's stdio MCP servers that do not come up", () => {
  it('are listed as starting while they start, then as failed with what they said: the one that exits within seconds, the one that hangs at its start timeout', async () => {
    const f = await sessionWithSandbox('mcp-stdio-failing');

    // Its container is being made and the servers started: the listing does not wait for that.
    const first = await servers(f);
    expect(first.hangs).toMatchObject({ transport: 'stdio', scope: 'server', state: 'starting', tools: [] });
    expect(['starting', 'failed']).toContain(first.dies?.state);

    // Failed by its exit (not by the start timeout, whose message differs), with its stderr.
    await expect
      .poll(async () => (await servers(f)).dies, { timeout: 30_000, interval: 250 })
      .toMatchObject({ state: 'failed', problem: expect.stringContaining('did not start: it exited with code 1 (it said: npm error code SELF_SIGNED_CERT_IN_CHAIN)') });

    // While it starts, the listing shows what it said so far.
    await expect
      .poll(async () => (await servers(f)).hangs, { timeout: 30_000, interval: 250 })
      .toMatchObject({ state: 'starting', said: 'npm http fetch GET https://registry.npmjs.org/x attempt 1 failed' });

    await expect
      .poll(async () => (await servers(f)).hangs, { timeout: 30_000, interval: 500 })
      .toMatchObject({
        state: 'failed',
        problem: expect.stringMatching(/no answer to initialize within 8 s .*\(it said: npm http fetch GET https:\/\/registry\.npmjs\.org\/x attempt 1 failed\)/),
      });
  });
});
