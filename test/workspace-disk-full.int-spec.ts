import { execFile } from 'node:child_process';
import { chmod, mkdtemp, open, readFile, readdir, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { ErrorCode, type StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../apps/gateway/src/test/scripted-workers';
import { type SessionFixture, ofType, sessionApi } from '../apps/gateway/src/test/session-api';
import { type SandboxHarness, startSandboxHarness } from '../apps/sandbox/src/testing/sandbox-harness';
import { startToolsWorker } from '../apps/tools/src/bootstrap';
import { tarGz } from '../apps/tools/src/testing/tar-fixtures';

/**
 * The workspaces volume is full: a real 1 MiB tmpfs holds WORKSPACES_DIR for a real tools worker,
 * a real sandbox worker and a real gateway (scripted model). What is stored survives every
 * refused write, the file tools and routes say so in a typed code, commands see ENOSPC
 * themselves, and writes work again once space is freed. Mounting needs root, as this machine's
 * test runs have.
 */
const run = promisify(execFile);
const ORIGINAL = `first line\n${'kept as it was\n'.repeat(20)}`;
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let sandbox: SandboxHarness;
let dir: string;
let client: ReturnType<typeof sessionApi>;
let f: SessionFixture;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-disk-full-'));
  await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
  gateway = await startGatewayUnderTest(ScriptedModelModule, { PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash', 'Write(**)', 'Edit(**)'] }) });
  tools = await startToolsWorker(loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: dir, LOG_LEVEL: 'silent' }), createLogger('tools', 'silent'));
  sandbox = await startSandboxHarness(gateway.natsUrl, { WORKSPACES_DIR: dir, SANDBOX_POOL_SIZE: '0' });
  client = sessionApi(gateway.base);
  f = await client.fixture('disk-full');
  // As an upload leaves it for the sandbox user (the tools worker here runs as root).
  await chmod(join(dir, f.workspaceId), 0o777);
});

afterAll(async () => {
  await sandbox?.close();
  await tools?.close();
  await gateway?.stop();
  if (dir) {
    await run('umount', [dir]).catch(() => undefined); // not mounted: beforeAll failed before it
    await rmdir(dir);
  }
});

const BALLAST = () => join(dir, 'ballast.bin');

/** Fills the filesystem to its last byte. */
async function fillDisk(): Promise<void> {
  const handle = await open(BALLAST(), 'w');
  const chunk = Buffer.alloc(16 * 1024, 1);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await handle.close();
  }
  // The last chunk may have half fitted: a byte at a time until not one more goes in.
  const tail = await open(BALLAST(), 'a');
  try {
    for (;;) await tail.write(Buffer.from('x'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await tail.close();
  }
}

async function turn(content: string) {
  const { after } = await client.start(f, '/messages', { content });
  return client.follow(f, after);
}

const results = (events: StoredSessionEvent[]) => ofType(events, 'tool.completed').map((e) => ({ isError: e.isError, output: e.output }));
const workspaceFile = (path: string) => readFile(join(dir, f.workspaceId, path), 'utf8');
const bash = (command: string) => ({ name: 'run_command', arguments: { command } });

describe('a full workspaces disk', () => {
  it('refuses file tool writes as a full disk and loses nothing, commands see ENOSPC, the turn goes on, and writes resume once space is freed', { timeout: 120_000 }, async () => {
    script(f.sessionId, [{ calls: [{ name: 'write_file', arguments: { path: 'src/keep.txt', content: ORIGINAL } }] }, { text: 'stored' }]);
    expect((await turn('store a file')).at(-1)?.type).toBe('turn.completed');

    await fillDisk();
    let events: StoredSessionEvent[];
    let created: StoredSessionEvent[];
    try {
      // Two refusals a turn: the loop guard stops a turn at the third identical error.
      script(f.sessionId, [
        {
          calls: [
            { name: 'write_file', arguments: { path: 'src/keep.txt', content: 'a new version\n'.repeat(500) } },
            bash('echo more > more.txt; echo "exit $?"'),
            { name: 'edit_file', arguments: { path: 'src/keep.txt', edits: [{ old: 'first line', new: 'edited' }] } },
          ],
        },
        { text: 'the disk is full' },
      ]);
      events = await turn('change it');
      script(f.sessionId, [{ calls: [{ name: 'write_file', arguments: { path: 'src/new.txt', content: 'new' } }] }, { text: 'still full' }]);
      created = await turn('add a file');
    } finally {
      await rm(BALLAST(), { force: true });
    }
    // What was stored is intact, and no half-written temporary file is left beside it.
    expect(await workspaceFile('src/keep.txt')).toBe(ORIGINAL);
    expect(await readdir(join(dir, f.workspaceId, 'src'))).toEqual(['keep.txt']);
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(created.at(-1)?.type).toBe('turn.completed');
    const [write, command, edit] = results(events);
    for (const refused of [write, edit, results(created)[0]]) {
      expect(refused?.isError).toBe(true);
      expect(refused?.output).toContain("The server's workspace disk is full");
      expect(refused?.output).toContain('nothing was changed');
    }
    expect(command?.output).toContain('No space left on device');

    script(f.sessionId, [{ calls: [{ name: 'write_file', arguments: { path: 'src/keep.txt', content: 'after\n' } }] }, { text: 'written' }]);
    const resumed = await turn('try again');
    expect(resumed.at(-1)?.type).toBe('turn.completed');
    expect(results(resumed)[0]?.isError).toBe(false);
    expect(await workspaceFile('src/keep.txt')).toBe('after\n');
  });

  it('answers uploads and syncs 507 WORKSPACE.DISK_FULL, leaving no half-unpacked workspace and the synced one as it was', { timeout: 60_000 }, async () => {
    const synced = { path: 'src/keep.txt', content: 'synced\n' };
    await client.api('POST', `/v1/workspaces/${f.workspaceId}/sync`, f.key, { archiveBase64: tarGz([synced]).toString('base64'), deleted: [] });
    const before = await workspaceFile('src/keep.txt');
    const workspaces = async () => (await readdir(dir)).filter((name) => name !== 'ballast.bin').sort();
    const folders = await workspaces();
    await fillDisk();
    try {
      const big = [{ path: 'src/keep.txt', content: 'x'.repeat(200_000) }, { path: 'src/more.txt', content: 'y'.repeat(200_000) }];
      const sync = await client.api('POST', `/v1/workspaces/${f.workspaceId}/sync`, f.key, { archiveBase64: tarGz(big).toString('base64'), deleted: ['src/keep.txt'] });
      expect(sync.status, sync.text).toBe(507);
      expect(sync.json.error).toMatchObject({ code: ErrorCode.WorkspaceDiskFull, message: expect.stringContaining('nothing was changed') });
      expect(await workspaceFile('src/keep.txt')).toBe(before);

      const upload = await fetch(`${gateway.base}/v1/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${f.key}`, 'content-type': 'application/gzip' },
        body: tarGz(big),
      });
      const answer = (await upload.json()) as { error?: { code: string } };
      expect(upload.status, JSON.stringify(answer)).toBe(507);
      expect(answer.error?.code).toBe(ErrorCode.WorkspaceDiskFull);
      // Nothing half unpacked: the workspaces are those there were, plus the ballast.
      expect(await workspaces()).toEqual(folders);
    } finally {
      await rm(BALLAST(), { force: true });
    }
    const again = await client.api('POST', `/v1/workspaces/${f.workspaceId}/sync`, f.key, { archiveBase64: tarGz([{ path: 'src/keep.txt', content: 'later\n' }]).toString('base64'), deleted: [] });
    expect(again.status, again.text).toBe(200);
    expect(await workspaceFile('src/keep.txt')).toBe('later\n');
  });
});
