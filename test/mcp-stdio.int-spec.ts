import { mkdtemp, rm } from 'node:fs/promises';
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
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['mcp__py'] }),
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

describe("a workspace's stdio MCP server", () => {
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

    const listed = await client.api('GET', `/v1/sessions/${session.sessionId}/mcp`, f.key);
    expect(listed.json.servers).toEqual([
      expect.objectContaining({ name: 'py', scope: 'workspace', transport: 'stdio', state: 'ready', tools: [expect.objectContaining({ name: 'mcp__py__whoami' })] }),
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
