import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { createSandboxApp } from '../app';
import { POOL_SERVER_CMD } from '../exec/container-spec';
import { seccompProfile } from '../docker/seccomp-profile';
import { waitFor } from '../testing/attack-helpers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { engineRuntimes } from '../testing/test-runtimes';

const poolLabel = 'weft.sandbox.pool';

describe('warm pool (real Docker, real NATS)', () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;

  const idle = async () => (await sandbox.containers()).filter((c) => c.Labels[poolLabel] === '1' && c.State === 'running');
  const shortIds = async () => (await idle()).map((c) => c.Id.slice(0, 12));

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url);
    await sandbox.pool.whenFull();
  });

  afterAll(async () => {
    await sandbox?.close();
    await nats?.stop();
  });

  it('keeps SANDBOX_POOL_SIZE containers started, confined like a cold run', async () => {
    const warm = await idle();
    expect(warm).toHaveLength(2);
    const info = await sandbox.docker.getContainer(warm[0]!.Id).inspect();
    expect(info.Config.User).toBe('10001:10001');
    expect(info.HostConfig).toMatchObject({ CapDrop: ['ALL'], NetworkMode: 'none', ReadonlyRootfs: true, Memory: 128 * 1024 * 1024 });
    expect(info.HostConfig.SecurityOpt).toEqual(['no-new-privileges', `seccomp=${seccompProfile()}`]);
  });

  it('runs a snippet in a pooled container, then destroys it and starts a replacement', async () => {
    const before = await shortIds();
    const result = await sandbox.exec({ mode: 'code', language: 'python', code: 'import socket; print(socket.gethostname())' });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    const used = result.stdout.trim();
    expect(before).toContain(used);
    await sandbox.pool.whenFull();
    const after = await shortIds();
    expect(after).not.toContain(used);
    expect(after).toHaveLength(2);
    await waitFor('the used container to be removed', async () =>
      (await sandbox.containers()).every((c) => !c.Id.startsWith(used)),
    );
  });

  it('runs lua, node and bash, with stdin, warm', async () => {
    await sandbox.pool.whenFull();
    const lua = await sandbox.exec({ mode: 'code', language: 'lua', code: 'local s = io.read("a"); print(#s, s:upper())', stdin: 'hi\n' });
    expect(lua).toMatchObject({ exitCode: 0, stdout: '3\tHI\n\n' });
    const node = await sandbox.exec({ mode: 'code', language: 'node', code: 'console.log(process.argv.length, process.env.WEFT_IDLE_SECONDS)' });
    expect(node).toMatchObject({ exitCode: 0, stdout: '1 undefined\n' });
    const bash = await sandbox.exec({ mode: 'code', language: 'bash', code: 'printf "%s|" "$0" "$@"; echo; exit 3' });
    expect(bash).toMatchObject({ exitCode: 3, stdout: 'bash|\n' });
    expect(sandbox.pool.stats.hits).toBeGreaterThanOrEqual(3);
  });

  it('gives a warm run the same timeout, output cap and OOM report as a cold one', async () => {
    await sandbox.pool.whenFull();
    const [slow, loud] = await Promise.all([
      sandbox.exec({ mode: 'code', language: 'bash', code: 'sleep 30', timeoutMs: 1_000 }),
      sandbox.exec({ mode: 'code', language: 'bash', code: 'head -c 100000 /dev/zero' }),
    ]);
    expect(slow).toMatchObject({ timedOut: true, exitCode: null });
    expect(slow.durationMs).toBeLessThan(5_000);
    expect(loud).toMatchObject({ exitCode: 0, stdoutTruncated: true });
    expect(loud.stdoutCutBytes).toBe(100_000 - 4096);
    await sandbox.pool.whenFull();
    const oom = await sandbox.exec({ mode: 'code', language: 'python', code: 'b = bytearray(512 * 1024 * 1024)' });
    expect(oom.oomKilled).toBe(true);
  });

  it('falls back to a cold start when the pool is empty', async () => {
    await sandbox.pool.whenFull();
    const misses = sandbox.pool.stats.misses;
    const burst = await Promise.all(
      Array.from({ length: 4 }, () => sandbox.exec({ mode: 'code', language: 'python', code: 'print(1)' })),
    );
    expect(burst.map((r) => r.stdout)).toEqual(['1\n', '1\n', '1\n', '1\n']);
    expect(sandbox.pool.stats.misses - misses).toBeGreaterThanOrEqual(2);
  });

  it('never hands a job to a pooled container that died idle, and replaces it', async () => {
    await sandbox.pool.whenFull();
    const dead = await idle();
    await Promise.all(dead.map((c) => sandbox.docker.getContainer(c.Id).kill()));
    const result = await sandbox.exec({ mode: 'code', language: 'python', code: 'print(1)' });
    expect(result).toMatchObject({ exitCode: 0, stdout: '1\n' });
    await sandbox.pool.whenFull();
    const fresh = (await idle()).map((c) => c.Id);
    expect(fresh).toHaveLength(2);
    expect(fresh.some((id) => dead.some((c) => c.Id === id))).toBe(false);
  });

  it('lets an idle server give up by itself, so a lost pooled container stops', async () => {
    const container = await sandbox.docker.createContainer({
      Image: 'weft/sandbox-runtime:latest',
      Cmd: POOL_SERVER_CMD,
      User: '10001:10001',
      Env: ['WEFT_IDLE_SECONDS=1', 'WEFT_ONE_SHOT=1'],
      OpenStdin: true,
      Labels: { 'weft.sandbox': '1', 'weft.sandbox.deadline': '0', 'weft.sandbox.instance': sandbox.instance },
      HostConfig: { NetworkMode: 'none', LogConfig: { Type: 'none', Config: {} } },
    });
    try {
      await container.start();
      await expect(container.wait()).resolves.toMatchObject({ StatusCode: 0 });
    } finally {
      await container.remove({ force: true });
    }
  });

  it('removes its pooled containers when the worker shuts down', async () => {
    const other = await startSandboxHarness(nats.url);
    await other.pool.whenFull();
    expect(await other.containers()).toHaveLength(2);
    await other.close();
    expect(await other.containers()).toEqual([]);
  });
});

describe('warm pool sized by demand (real Docker, real NATS)', () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_MAX: '3' });
    await sandbox.pool.whenFull();
  });

  afterAll(async () => {
    await sandbox?.close();
    await nats?.stop();
  });

  it('grows to a burst it could not serve warm, up to SANDBOX_POOL_MAX, and serves the next one warm', async () => {
    const burst = () =>
      Promise.all(Array.from({ length: 4 }, () => sandbox.exec({ mode: 'code', language: 'python', code: 'print(1)' })));
    expect((await burst()).map((r) => r.stdout)).toEqual(['1\n', '1\n', '1\n', '1\n']);
    expect(sandbox.pool.target).toBe(3);
    await sandbox.pool.whenFull();
    const pooled = (await sandbox.containers()).filter((c) => c.Labels[poolLabel] === '1' && c.State === 'running');
    expect(pooled).toHaveLength(3);
    const hits = sandbox.pool.stats.hits;
    await burst();
    expect(sandbox.pool.stats.hits - hits).toBe(3);
  });
});

const gvisorListed = engineRuntimes().includes('runsc');

describe('SANDBOX_RUNTIME (real Docker)', () => {
  // Only where the engine lacks gVisor: elsewhere SANDBOX_RUNTIME=runsc is a runtime it knows.
  it.skipIf(gvisorListed)('fails the boot with a clear error when the engine does not know the runtime', async () => {
    const config = loadConfig(sandboxConfigSchema, { SANDBOX_RUNTIME: 'runsc', SANDBOX_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
    await expect(createSandboxApp(config)).rejects.toThrow(/SANDBOX_RUNTIME=runsc: runsc is not a runtime this engine knows/);
  });

  it('refuses a runtime that is not auto, runsc or runc, before touching the engine', () => {
    expect(() => loadConfig(sandboxConfigSchema, { SANDBOX_RUNTIME: 'runsc-not-installed' })).toThrow(/SANDBOX_RUNTIME/);
  });
});
