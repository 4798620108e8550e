import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, Routes } from '@weft/contracts';
import { connectRpcClient } from '@weft/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedService, startNats } from '../../../../test/support/containers';
import { type SandboxHarness, startSandboxHarness } from '../testing/sandbox-harness';
import { PYTHON_MCP_SERVER } from '../testing/stdio-mcp-fixture';

/** Stdio MCP servers in session containers, through the worker's NATS routes (real Docker, real NATS). */
describe('stdio MCP servers in a session container', () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  let rpc: Awaited<ReturnType<typeof connectRpcClient>>;
  let sessions = 0;
  const session = () => ({ sessionId: `ses_mcptest${process.pid}x${++sessions}`, ownerId: 'usr_mcp01' });
  const server = { name: 'py', command: 'python3', args: ['server.py'], env: { FIXTURE_TOKEN: 't0k' } };

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0' });
    rpc = await connectRpcClient(nats.url, 60_000);
  });
  afterAll(async () => {
    await rpc?.close();
    await sandbox?.close();
    await nats?.stop();
  });

  async function workspaceWithServer(): Promise<string> {
    const workspaceId = await sandbox.newWorkspace();
    await writeFile(join(sandbox.root, workspaceId, 'server.py'), PYTHON_MCP_SERVER);
    return workspaceId;
  }

  it("lists and calls a server's tools, the server running in the session's own container as the sandbox user", async () => {
    const workspaceId = await workspaceWithServer();
    const target = { workspaceId, session: session(), writable: true, network: 'none', server, timeoutMs: 30_000 } as const;
    const listed = await rpc.client.request(Routes.sandboxMcpListTools, target, { timeoutMs: 60_000 });
    expect(listed.tools.map((t) => t.name)).toEqual(['whoami', 'crash']);
    const called = await rpc.client.request(Routes.sandboxMcpCallTool, { ...target, tool: 'whoami', arguments: { greeting: 'hello' } }, { timeoutMs: 60_000 });
    const host = (await sandbox.exec({ mode: 'command', workspaceId, command: 'hostname', writable: true, session: target.session })).stdout.trim();
    expect(called.content).toEqual([{ type: 'text', text: `hello from ${host} uid 10001 cwd /workspace token t0k` }]);
    // Started once: the second call talks to the same process.
    const containers = (await sandbox.containers()).filter((c) => c.Labels['weft.sandbox.session'] === target.session.sessionId);
    expect(containers).toHaveLength(1);
    const processes = await sandbox.exec({ mode: 'command', workspaceId, command: "pgrep -fc '^python3 server.py' || true", writable: true, session: target.session });
    expect(processes.stdout.trim()).toBe('1');

    // A server that dies mid-call: the call fails with its name and its last words; the next one starts it again.
    await expect(
      rpc.client.request(Routes.sandboxMcpCallTool, { ...target, tool: 'crash', arguments: {} }, { timeoutMs: 60_000 }),
    ).rejects.toMatchObject({ code: ErrorCode.McpToolFailed, message: expect.stringMatching(/"py" failed.*crashing on purpose/s) });
    const again = await rpc.client.request(Routes.sandboxMcpCallTool, { ...target, tool: 'whoami', arguments: { greeting: 'back' } }, { timeoutMs: 60_000 });
    expect(again.content).toEqual([{ type: 'text', text: expect.stringMatching(/^back from /) }]);
  });

  it("reports a server that cannot start with its name and its own words, and is gone with the session's container", async () => {
    const workspaceId = await workspaceWithServer();
    const target = { workspaceId, session: session(), writable: false, network: 'none', timeoutMs: 10_000 } as const;
    await expect(
      rpc.client.request(Routes.sandboxMcpListTools, { ...target, server: { ...server, args: ['missing.py'] } }, { timeoutMs: 60_000 }),
    ).rejects.toMatchObject({ code: ErrorCode.McpToolFailed, message: expect.stringMatching(/"py" did not start.*missing\.py/s) });
    await rpc.client.request(Routes.sandboxMcpListTools, { ...target, server }, { timeoutMs: 60_000 });
    expect(await sandbox.release(target.session.sessionId)).toBe(1);
    // A new container and a new server process for the next call.
    const again = await rpc.client.request(Routes.sandboxMcpListTools, { ...target, server }, { timeoutMs: 60_000 });
    expect(again.tools).toHaveLength(2);
  });

  it('fails a server that exits while starting at once, saying how it ended and what it said; it sees the CA variables commands get, and npm logs its fetches', async () => {
    const workspaceId = await sandbox.newWorkspace();
    // What `npx -y <server>` does where the network re-signs HTTPS and npm is not given the CA.
    const npx = {
      name: 'npx',
      command: 'sh',
      args: ['-c', 'echo "npm error code SELF_SIGNED_CERT_IN_CHAIN (cafile $npm_config_cafile, node $NODE_EXTRA_CA_CERTS, log $npm_config_loglevel)" >&2; sleep 1; exit 1'],
    };
    const target = { workspaceId, session: session(), writable: false, network: 'none', server: npx, timeoutMs: 120_000 } as const;
    await expect(rpc.client.request(Routes.sandboxMcpListTools, target, { timeoutMs: 125_000 })).rejects.toMatchObject({
      code: ErrorCode.McpToolFailed,
      message: expect.stringContaining(
        '"npx" did not start: it exited with code 1 (it said: npm error code SELF_SIGNED_CERT_IN_CHAIN (cafile /etc/weft/ca-certificates.pem, node /etc/weft/ca-certificates.pem, log http))',
      ),
    });
  });

  it('gives up on a server that never answers at its deadline, container start included, with what it said so far, and stops it', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const stuck = { name: 'stuck', command: 'sh', args: ['-c', 'echo "npm http fetch GET https://registry.npmjs.org/x attempt 1 failed" >&2; exec sleep 600'] };
    const target = { workspaceId, session: session(), writable: false, network: 'none', server: stuck, timeoutMs: 5_000 } as const;
    await expect(rpc.client.request(Routes.sandboxMcpListTools, target, { timeoutMs: 60_000 })).rejects.toMatchObject({
      code: ErrorCode.McpToolFailed,
      message: expect.stringMatching(/"stuck" did not start: no answer to initialize within 5 s .*\(it said: npm http fetch GET https:\/\/registry\.npmjs\.org\/x attempt 1 failed\)/),
    });
    const left = () => sandbox.exec({ mode: 'command', workspaceId, command: "pgrep -fc '^sleep 600' || true", writable: false, network: 'none', session: target.session });
    await expect.poll(async () => (await left()).stdout.trim(), { timeout: 20_000 }).toBe('0');
  });
});
