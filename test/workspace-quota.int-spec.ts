import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { ErrorCode, type StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../apps/gateway/src/test/scripted-workers';
import { ofType, sessionApi } from '../apps/gateway/src/test/session-api';
import { type SandboxHarness, startSandboxHarness } from '../apps/sandbox/src/testing/sandbox-harness';
import { startToolsWorker } from '../apps/tools/src/bootstrap';

/**
 * The per-user workspace quota holds for files written by commands, not only by file tools:
 * real gateway (scripted model), real tools worker and real sandbox worker in real containers
 * on one folder, real Redis and NATS.
 */
const QUOTA_BYTES = 20_000;
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let sandbox: SandboxHarness;
let dir: string;
let client: ReturnType<typeof sessionApi>;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedModelModule, {
    WORKSPACE_QUOTA_BYTES: String(QUOTA_BYTES),
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash', 'Write(**)', 'Delete(**)'] }),
  });
  dir = await mkdtemp(join(tmpdir(), 'weft-quota-'));
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

const bash = (command: string) => ({ name: 'run_command', arguments: { command } });
const results = (events: StoredSessionEvent[]) => ofType(events, 'tool.completed').map((e) => ({ isError: e.isError, output: e.output }));

describe('the workspace quota and commands', () => {
  it('reports a command that pushed the workspaces past the quota, refuses the next writes (file tools and commands), keeps everything, and lets writes resume after a delete', async () => {
    const f = await client.fixture('quota-commands');
    const root = join(dir, f.workspaceId);
    // As an upload leaves it for the sandbox user (the tools worker here runs as root).
    await chmod(root, 0o777);
    const turn = async (content: string) => {
      const { after } = await client.start(f, '/messages', { content });
      const events = await client.follow(f, after);
      expect(events.at(-1)?.type).toBe('turn.completed');
      return results(events);
    };

    script(f.sessionId, [{ calls: [bash(`head -c ${QUOTA_BYTES + 5_000} /dev/zero > big.bin && echo written`)] }, { text: 'wrote it' }]);
    const [filled] = await turn('make a big file');
    expect(filled?.output).toContain('written');
    expect(filled?.output).toContain('big.bin');
    expect(filled?.output).toContain(`${ErrorCode.WorkspaceQuotaExceeded}: the workspaces now hold`);
    expect(filled?.output).toContain('the next write will be refused');

    script(f.sessionId, [
      { calls: [bash('echo more > more.txt; echo "exit $?"'), { name: 'write_file', arguments: { path: 'notes.txt', content: 'x' } }] },
      { text: 'could not write' },
    ]);
    const [command, write] = await turn('write more');
    expect(command?.output).toContain('This run had the workspace read-only');
    expect(command?.output).toContain('Read-only file system');
    expect(write).toMatchObject({ isError: true, output: expect.stringContaining(ErrorCode.WorkspaceQuotaExceeded) });
    // Nothing already stored was lost, nothing new was written.
    expect((await stat(join(root, 'big.bin'))).size).toBe(QUOTA_BYTES + 5_000);
    expect((await readdir(root)).sort()).toEqual(['.weft', 'big.bin']);

    script(f.sessionId, [
      { calls: [{ name: 'delete_file', arguments: { path: 'big.bin' } }] },
      { calls: [bash('echo ok > ok.txt && cat ok.txt')] },
      { text: 'cleaned up' },
    ]);
    const [deleted, resumed] = await turn('clean up and write again');
    expect(deleted?.isError).toBe(false);
    expect(resumed?.output).not.toContain(ErrorCode.WorkspaceQuotaExceeded);
    expect(resumed?.output).toContain('ok');
    expect((await readdir(root)).sort()).toEqual(['.weft', 'ok.txt']);
  });
});
