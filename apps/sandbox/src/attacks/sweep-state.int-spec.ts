import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Routes, type ExecSession } from '@weft/contracts';
import { connectRpcClient } from '@weft/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { hostProcessesWith, uniqueToken, waitFor } from '../testing/attack-helpers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { PYTHON_MCP_SERVER } from '../testing/stdio-mcp-fixture';
import { runtimeCases } from '../testing/test-runtimes';

/** The session containers' idle limit here: short, so "past its idle limit" is seconds. */
const IDLE_MS = 4_000;

/**
 * What a command leaves to make the command server believe a run is still going: a pid file
 * naming a live process of its own (the straggler), and a last-run time in the future.
 */
const fakeRunState = (token: string) =>
  `mkdir -p /tmp/.weft-runs; setsid sleep 1${token} </dev/null >/dev/null 2>&1 & echo $! > /tmp/.weft-runs/fake.pid; ` +
  'touch -d "+1 day" /tmp/.weft-runs/.last; true';

describe.each(runtimeCases())("attack: the state that a session container's sweep and idle exit go by on $title", ({ runtime }) => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  let rpc: Awaited<ReturnType<typeof connectRpcClient>>;
  let sessions = 0;
  const session = (): ExecSession => ({ sessionId: `ses_sweep${process.pid}x${++sessions}`, ownerId: `usr_sweep${process.pid}` });
  const sessionContainer = async (sessionId: string) =>
    (await sandbox.containers()).find((c) => c.Labels['weft.sandbox.session'] === sessionId && c.State === 'running');

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_RUNTIME: runtime, SANDBOX_POOL_SIZE: '0', SANDBOX_SESSION_IDLE_MS: String(IDLE_MS), SANDBOX_PACKAGE_CACHE: 'false' });
    rpc = await connectRpcClient(nats.url, 60_000);
  });
  afterAll(async () => {
    await rpc?.close();
    await sandbox?.close();
    await nats?.stop();
  });

  it.each([
    ['the command server', 'true'],
    ['docker exec', 'false'],
  ])('a fake run pid file keeps no straggler alive, nor the container past its idle limit (%s)', async (_path, commandServer) => {
    // A worker of its own (its own NATS: workers share their queue group) for the docker exec path.
    const ownNats = commandServer === 'true' ? undefined : await startNats();
    const own = ownNats ? await startSandboxHarness(ownNats.url, {
      SANDBOX_POOL_SIZE: '0', SANDBOX_SESSION_IDLE_MS: String(IDLE_MS), SANDBOX_PACKAGE_CACHE: 'false', SANDBOX_COMMAND_SERVER: 'false',
    }) : sandbox;
    try {
      const token = uniqueToken();
      const who = session();
      const workspaceId = await own.newWorkspace();
      const result = await own.exec({ mode: 'command', workspaceId, command: fakeRunState(token), writable: true, session: who });
      expect(result.exitCode).toBe(0);
      // The straggler is killed once its command is over, pid file or not.
      await waitFor('the straggler to be killed', async () => (await hostProcessesWith(`sleep 1${token}`)).length === 0, 5_000);
      // And the container stops at its idle limit (the worker then removes it).
      const started = Date.now();
      await waitFor('the idle container to stop', async () =>
        !(await own.containers()).some((c) => c.Labels['weft.sandbox.session'] === who.sessionId && c.State === 'running'), IDLE_MS + 10_000);
      expect(Date.now() - started).toBeLessThan(IDLE_MS + 10_000);
    } finally {
      if (own !== sandbox) await own.close();
      await ownNats?.stop();
    }
  });

  it('a running stdio MCP server survives the sweep after a command but does not keep the container past its idle limit', async () => {
    const workspaceId = await sandbox.newWorkspace();
    await writeFile(join(sandbox.root, workspaceId, 'server.py'), PYTHON_MCP_SERVER);
    const who = session();
    const target = {
      workspaceId, session: who, writable: true, network: 'none' as const, timeoutMs: 30_000,
      server: { name: 'py', command: 'python3', args: ['server.py'], env: {} },
    };
    expect((await rpc.client.request(Routes.sandboxMcpListTools, target, { timeoutMs: 60_000 })).tools).toHaveLength(2);
    // A command ends and the sweep runs: the server is not a straggler.
    const probe = await sandbox.exec({ mode: 'command', workspaceId, command: "pgrep -fc '^python3 server.py'", writable: true, session: who });
    expect(probe.stdout.trim()).toBe('1');
    const called = await rpc.client.request(Routes.sandboxMcpCallTool, { ...target, tool: 'whoami', arguments: { greeting: 'still' } }, { timeoutMs: 60_000 });
    expect(called.content).toEqual([{ type: 'text', text: expect.stringMatching(/^still from /) }]);
    // Nobody uses the session any more: the container stops at its idle limit, server and all.
    expect(await sessionContainer(who.sessionId)).toBeDefined();
    await waitFor('the idle container to stop', async () => (await sessionContainer(who.sessionId)) === undefined, IDLE_MS + 10_000);
    await sandbox.release(who.sessionId);
  });
});
