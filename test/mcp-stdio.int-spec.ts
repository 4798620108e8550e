import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../apps/gateway/src/test/scripted-workers';
import { ofType, sessionApi } from '../apps/gateway/src/test/session-api';
import { type SandboxHarness, startSandboxHarness } from '../apps/sandbox/src/testing/sandbox-harness';
import { PYTHON_MCP_SERVER } from '../apps/sandbox/src/testing/stdio-mcp-fixture';
import { tarGz } from '../apps/tools/src/testing/tar-fixtures';
import { startToolsWorker } from '../apps/tools/src/bootstrap';
import { copyPackageClosure } from './support/package-closure';

/**
 * A workspace's stdio MCP server end to end: declared in its `.weft/mcp.json`, started by the
 * real sandbox worker inside the session's own container, its tool offered to the model by the
 * real gateway and called through the permission gate (real tools worker, Redis, NATS, Docker).
 */
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let sandbox: SandboxHarness;
let dir: string;
let client: ReturnType<typeof sessionApi>;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedModelModule, {
    MCP_WORKSPACE_STDIO: 'true',
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['mcp__py', 'mcp__fs'] }),
  });
  dir = await mkdtemp(join(tmpdir(), 'weft-mcp-stdio-'));
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

/** Uploads `files` as a new workspace of the fixture's user and opens a session on it. */
async function sessionOn(name: string, files: Array<{ path: string; content: string }>) {
  const f = await client.fixture(name);
  const upload = await fetch(`${gateway.base}/v1/workspaces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${f.key}`, 'content-type': 'application/gzip' },
    body: tarGz(files),
  });
  expect(upload.status).toBe(201);
  const workspaceId = String(((await upload.json()) as { id: string }).id);
  const created = await client.api('POST', '/v1/sessions', f.key, { workspaceId, model: 'tiny', sandboxNetwork: 'none' });
  return { ...f, workspaceId, sessionId: String(created.json.id) };
}

/**
 * The session's MCP servers once none is still starting: the listing answers at once, a server
 * `starting` while its container is made and it comes up (seconds on a loaded machine).
 */
async function startedServers(sessionId: string, key: string): Promise<Array<Record<string, unknown>>> {
  let servers: Array<Record<string, unknown>> = [];
  await expect
    .poll(
      async () => {
        servers = (await client.api('GET', `/v1/sessions/${sessionId}/mcp`, key)).json.servers as Array<Record<string, unknown>>;
        return servers.some((server) => server.state === 'starting');
      },
      { timeout: 60_000, interval: 250 },
    )
    .toBe(false);
  return servers;
}

describe("a workspace's stdio MCP server", () => {
  it('runs a reference server from the npm registry (server-filesystem) in the sandbox, confined to the workspace', async () => {
    const mcpJson = { mcpServers: { fs: { command: 'node', args: ['.mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '/workspace'] } } };
    const session = await sessionOn('mcp-fs', [
      { path: 'hello.txt', content: 'hello from the workspace\n' },
      { path: '.weft/mcp.json', content: JSON.stringify(mcpJson) },
    ]);
    // The package as npm installed it for this repository, copied in: the sandbox has no registry here.
    await copyPackageClosure('@modelcontextprotocol/server-filesystem', join(dir, session.workspaceId, '.mcp'));
    // As an upload leaves it for the sandbox user (the tools worker here runs as root).
    await chmod(join(dir, session.workspaceId), 0o777);
    const [fs] = (await startedServers(session.sessionId, session.key)) as Array<{ state: string; tools: Array<{ name: string }> }>;
    expect(fs?.state).toBe('ready');
    expect(fs?.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__fs__read_text_file', 'mcp__fs__write_file', 'mcp__fs__list_directory']));

    script(session.sessionId, [
      { calls: [{ name: 'mcp__fs__read_text_file', arguments: { path: '/workspace/hello.txt' } }] },
      { calls: [{ name: 'mcp__fs__write_file', arguments: { path: '/workspace/out.txt', content: 'written through MCP' } }] },
      { calls: [{ name: 'mcp__fs__read_text_file', arguments: { path: '/etc/passwd' } }] },
      { text: 'done' },
    ]);
    const { after } = await client.start(session, '/messages', { content: 'use the files' });
    const events = await client.follow(session, after);
    expect(events.at(-1)?.type).toBe('turn.completed');
    const [read, write, outside] = ofType(events, 'tool.completed');
    expect(read).toMatchObject({ isError: false, output: 'hello from the workspace\n' });
    expect(write).toMatchObject({ isError: false });
    expect(await readFile(join(dir, session.workspaceId, 'out.txt'), 'utf8')).toBe('written through MCP');
    // The server's own confinement, inside the sandbox's: /etc/passwd is outside its allowed folder.
    expect(outside).toMatchObject({ isError: true, output: expect.stringContaining('MCP.TOOL_FAILED') });
  });

  it("runs in the session's sandbox container, offers its tools and answers a call", async () => {
    const f = await client.fixture('mcp-stdio');
    // The workspace as a user uploads it: the server's code and its declaration.
    const archive = tarGz([
      { path: 'server.py', content: PYTHON_MCP_SERVER },
      { path: '.weft/mcp.json', content: JSON.stringify({ mcpServers: { py: { command: 'python3', args: ['server.py'], env: { FIXTURE_TOKEN: 'from-the-file' } } } }) },
    ]);
    const upload = await fetch(`${gateway.base}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.key}`, 'content-type': 'application/gzip' },
      body: archive,
    });
    expect(upload.status).toBe(201);
    const workspaceId = String(((await upload.json()) as { id: string }).id);
    const created = await client.api('POST', '/v1/sessions', f.key, { workspaceId, model: 'tiny', sandboxNetwork: 'none' });
    const session = { ...f, workspaceId, sessionId: String(created.json.id) };

    expect(await startedServers(session.sessionId, f.key)).toEqual([
      expect.objectContaining({ name: 'py', scope: 'workspace', transport: 'stdio', state: 'ready', tools: [expect.objectContaining({ name: 'mcp__py__whoami' }), expect.objectContaining({ name: 'mcp__py__crash' })] }),
    ]);

    script(session.sessionId, [{ calls: [{ name: 'mcp__py__whoami', arguments: { greeting: 'hello' } }] }, { text: 'done' }]);
    const { after } = await client.start(session, '/messages', { content: 'who is there?' });
    const events = await client.follow(session, after);
    expect(events.at(-1)?.type).toBe('turn.completed');
    const [result] = ofType(events, 'tool.completed');
    expect(result).toMatchObject({ isError: false, output: expect.stringMatching(/^hello from \w+ uid 10001 cwd \/workspace token from-the-file$/) });
    const containers = (await sandbox.containers()).filter((c) => c.Labels['weft.sandbox.session'] === session.sessionId);
    expect(containers).toHaveLength(1);
    expect(result?.output).toContain(containers[0]?.Id.slice(0, 12));
  });
});
