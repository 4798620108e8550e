import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { ErrorCode, Routes, type ExecRequest } from '@weft/contracts';
import { connectRpcClient, type RpcClient } from '@weft/messaging';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, TestImages, type StartedService } from '../../../../test/support/containers';
import { waitFor } from '../testing/attack-helpers';
import { createSandboxApp } from '../app';

const docker = new Docker({ socketPath: '/var/run/docker.sock' });
// Other suites may share the engine: look only at the containers this one's worker started.
const INSTANCE = `exec-int-${process.pid}`;

function labelled() {
  return docker.listContainers({ all: true, filters: { label: [`weft.sandbox.instance=${INSTANCE}`] } });
}

describe('sandbox exec (real Docker, real NATS)', () => {
  let nats: StartedService;
  let app: INestMicroservice;
  let rpc: { client: RpcClient; close: () => Promise<void> };
  let root: string;
  let leftover: string;
  let orphan: string;
  let counter = 0;

  const exec = (request: ExecRequest) => rpc.client.request(Routes.sandboxExec, request, { timeoutMs: 60_000 });

  async function newWorkspace(): Promise<string> {
    const id = `ws_exectest${String(++counter).padStart(3, '0')}`;
    await mkdir(join(root, id, 'sub'), { recursive: true });
    // The sandbox runs as uid 10001; let it write where a test asks for writes.
    await chmod(join(root, id), 0o777);
    await chmod(join(root, id, 'sub'), 0o777);
    return id;
  }

  beforeAll(async () => {
    // A container a crashed predecessor left behind, long past its deadline.
    const stale = await docker.createContainer({
      Image: TestImages.sandbox,
      Cmd: ['true'],
      Labels: { 'weft.sandbox': '1', 'weft.sandbox.deadline': '0' },
    });
    leftover = stale.id;
    // And one of a predecessor in this worker's place (its instance id), still running a command
    // with an hour left: the worker that held its deadline is gone.
    const running = await docker.createContainer({
      Image: TestImages.sandbox,
      Cmd: ['sleep', '3600'],
      Labels: { 'weft.sandbox': '1', 'weft.sandbox.deadline': String(Date.now() + 3_600_000), 'weft.sandbox.instance': INSTANCE },
    });
    await running.start();
    orphan = running.id;
    nats = await startNats();
    root = await mkdtemp(join(tmpdir(), 'weft-sandbox-'));
    const config = loadConfig(sandboxConfigSchema, {
      NATS_URL: nats.url,
      WORKSPACES_DIR: root,
      SANDBOX_IMAGE: TestImages.sandbox,
      SANDBOX_MEMORY_MB: '128',
      SANDBOX_TIMEOUT_MS: '20000',
      SANDBOX_OUTPUT_MAX_BYTES: '4096',
      SANDBOX_POOL_SIZE: '0',
      SANDBOX_INSTANCE_ID: INSTANCE,
      LOG_LEVEL: 'silent',
    });
    app = await createSandboxApp(config);
    await app.listen();
    rpc = await connectRpcClient(nats.url, 60_000);
  });

  afterAll(async () => {
    await rpc?.close();
    await app?.close();
    await nats?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('removes labelled containers a crashed predecessor left', async () => {
    await expect(docker.getContainer(leftover).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('removes the containers a predecessor with its instance id left running, deadline or not', async () => {
    await expect(docker.getContainer(orphan).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('runs python code', async () => {
    const result = await exec({ mode: 'code', language: 'python', code: 'print(1)' });
    expect(result).toMatchObject({ exitCode: 0, stdout: '1\n', timedOut: false, oomKilled: false });
  });

  it('runs lua code', async () => {
    const result = await exec({ mode: 'code', language: 'lua', code: 'print(_VERSION, 6 * 7)' });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'Lua 5.4\t42\n' });
  });

  it('pipes stdin to the code', async () => {
    const code = 'process.stdin.on("data", (d) => process.stdout.write(String(d).toUpperCase()))';
    const result = await exec({ mode: 'code', language: 'node', code, stdin: 'hello sandbox' });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'HELLO SANDBOX' });
  });

  it('runs as uid 10001 with no effective capabilities', async () => {
    const result = await exec({ mode: 'code', language: 'bash', code: 'id -u; grep CapEff /proc/self/status' });
    expect(result.stdout).toMatch(/^10001\nCapEff:\s+0{16}\n$/);
  });

  it('has no network interface but loopback', async () => {
    const result = await exec({ mode: 'code', language: 'bash', code: 'ls /sys/class/net' });
    expect(result.stdout.trim()).toBe('lo');
  });

  it('kills a run past its timeout and removes its container', async () => {
    const result = await exec({ mode: 'code', language: 'bash', code: 'sleep 30', timeoutMs: 1500 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(result.durationMs).toBeLessThan(10_000);
    await waitFor('its container to be removed', async () => (await labelled()).length === 0);
  });

  it('caps huge stdout and stderr and flags them truncated', async () => {
    const code = 'head -c 5000000 /dev/zero | tr "\\0" a; head -c 100000 /dev/zero | tr "\\0" b >&2; echo done >&2';
    const result = await exec({ mode: 'code', language: 'bash', code });
    expect(result).toMatchObject({ exitCode: 0, stdoutTruncated: true, stderrTruncated: true });
    // The first and last halves of the cap, with what was cut between them.
    expect(result.stdout).toBe(`${'a'.repeat(2048)}\n[... ${5_000_000 - 4096} bytes cut ...]\n${'a'.repeat(2048)}`);
    expect(result.stdoutCutBytes).toBe(5_000_000 - 4096);
    expect(result.stderr.endsWith('b'.repeat(2043) + 'done\n')).toBe(true);
  });

  it('reports a memory bomb as oomKilled', async () => {
    const result = await exec({ mode: 'code', language: 'python', code: 's = "a" * (512 * 1024 * 1024)' });
    expect(result.oomKilled).toBe(true);
    expect(result.exitCode).not.toBe(0);
  });

  it('ends a run that fills /tmp with empty files with "No space left on device", not killed for memory', async () => {
    const code = 'for i in $(seq 1 100000); do : > /tmp/f$i || { echo "stopped at $i"; exit 3; }; done';
    const result = await exec({ mode: 'code', language: 'bash', code });
    expect(result).toMatchObject({ exitCode: 3, oomKilled: false });
    expect(result.stderr).toContain('No space left on device');
  });

  it('refuses writes to a read-only workspace and to the root filesystem', async () => {
    const workspaceId = await newWorkspace();
    const result = await exec({ mode: 'command', workspaceId, command: 'touch /workspace/x || touch /etc/x' });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('Read-only file system');
  });

  it('writes a file visible on the host when writable, in the requested cwd', async () => {
    const workspaceId = await newWorkspace();
    const result = await exec({ mode: 'command', workspaceId, cwd: 'sub', command: 'pwd; echo hi > out.txt', writable: true });
    expect(result).toMatchObject({ exitCode: 0, stdout: '/workspace/sub\n' });
    await expect(readFile(join(root, workspaceId, 'sub', 'out.txt'), 'utf8')).resolves.toBe('hi\n');
  });

  it('starts every run with an empty /tmp', async () => {
    await exec({ mode: 'code', language: 'bash', code: 'echo x > /tmp/marker' });
    const result = await exec({ mode: 'code', language: 'bash', code: 'test -e /tmp/marker && echo kept || echo gone' });
    expect(result.stdout).toBe('gone\n');
  });

  it('rejects an unknown workspace and a cwd that leaves the workspace', async () => {
    await expect(exec({ mode: 'command', workspaceId: 'ws_doesnotexist', command: 'ls' })).rejects.toMatchObject({
      code: ErrorCode.WorkspaceNotFound,
    });
    const workspaceId = await newWorkspace();
    await expect(exec({ mode: 'command', workspaceId, cwd: '../..', command: 'ls' })).rejects.toMatchObject({
      code: ErrorCode.PathOutsideWorkspace,
    });
  });

  it('leaves no labelled containers behind', async () => {
    await waitFor('every container to be removed', async () => (await labelled()).length === 0);
  });
});
