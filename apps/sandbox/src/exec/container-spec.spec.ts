import { describe, expect, it } from 'vitest';
import { GVISOR_PIDS_ALLOWANCE, buildContainerSpec, buildWarmSpec, type SpecInput, type SpecLimits } from './container-spec';

const limits: SpecLimits = {
  SANDBOX_IMAGE: 'weft/sandbox-runtime:latest',
  SANDBOX_MEMORY_MB: 256,
  SANDBOX_CPUS: 1.5,
  SANDBOX_PIDS_LIMIT: 64,
  SANDBOX_TMPFS_MB: 32,
};
const base = { cwd: '', timeoutMs: 5_000, now: 1_000 };

function build(input: Partial<SpecInput> & Pick<SpecInput, 'request'>) {
  return buildContainerSpec({ ...base, ...input }, limits);
}

describe('buildContainerSpec', () => {
  it('runs a command through a login bash in the workspace cwd, read-only by default', () => {
    const spec = build({
      request: { mode: 'command', network: 'none', workspaceId: 'ws_abcdefgh', command: 'ls', writable: false },
      workspaceHostPath: '/host/ws/ws_abcdefgh',
      cwd: 'src/app',
    });
    expect(spec.cmd).toEqual(['bash', '-c', 'ls']);
    expect(spec.workingDir).toBe('/workspace/src/app');
    expect(spec.mount).toEqual({ hostPath: '/host/ws/ws_abcdefgh', target: '/workspace', readOnly: true });
  });

  it('mounts the workspace writable only when the request says so', () => {
    const spec = build({
      request: { mode: 'command', network: 'none', workspaceId: 'ws_abcdefgh', command: 'ls', writable: true },
      workspaceHostPath: '/host/ws/ws_abcdefgh',
    });
    expect(spec.mount?.readOnly).toBe(false);
    expect(spec.workingDir).toBe('/workspace');
  });

  it.each([
    ['python', ['python3', '-c', 'x']],
    ['node', ['node', '-e', 'x']],
    ['bash', ['bash', '-c', 'x']],
    ['lua', ['lua5.4', '-e', 'x']],
  ] as const)('runs %s code with its interpreter', (language, cmd) => {
    const spec = build({ request: { mode: 'code', network: 'none', language, code: 'x' } });
    expect(spec.cmd).toEqual(cmd);
    expect(spec.mount).toBeUndefined();
    expect(spec.workingDir).toBe('/tmp');
  });

  it('mounts a code run workspace read-only and opens stdin only when given', () => {
    const spec = build({
      request: { mode: 'code', network: 'none', language: 'python', code: 'x', workspaceId: 'ws_abcdefgh', stdin: '' },
      workspaceHostPath: '/host/ws/ws_abcdefgh',
    });
    expect(spec.mount?.readOnly).toBe(true);
    expect(spec.openStdin).toBe(true);
    expect(build({ request: { mode: 'code', network: 'none', language: 'python', code: 'x' } }).openStdin).toBe(false);
  });

  it('applies the configured limits as the unprivileged user', () => {
    const spec = build({ request: { mode: 'code', network: 'none', language: 'bash', code: 'x' } });
    expect(spec.user).toBe('10001:10001');
    expect(spec.limits).toMatchObject({
      memoryBytes: 256 * 1024 * 1024,
      nanoCpus: 1_500_000_000,
      pidsLimit: 64,
      tmpfsBytes: 32 * 1024 * 1024,
      nofile: 1024,
      fileSizeBytes: 256 * 1024 * 1024,
    });
    expect(spec.runtime).toBeUndefined();
  });

  it('applies the configured file size cap and OCI runtime', () => {
    const spec = buildContainerSpec(
      { ...base, request: { mode: 'code', network: 'none', language: 'bash', code: 'x' } },
      { ...limits, SANDBOX_FILE_MAX_MB: 8, SANDBOX_RUNTIME: 'runsc' },
    );
    expect(spec.limits.fileSizeBytes).toBe(8 * 1024 * 1024);
    expect(spec.runtime).toBe('runsc');
  });

  it("runs an image on its catalogue id's own runtime (SANDBOX_IMAGE_RUNTIMES)", () => {
    const request = { mode: 'code', network: 'none', language: 'bash', code: 'x' } as const;
    const config = { ...limits, SANDBOX_RUNTIME: 'runsc', SANDBOX_IMAGES: { minimal: limits.SANDBOX_IMAGE }, SANDBOX_IMAGE_RUNTIMES: { minimal: 'runc' } } as const;
    expect(buildContainerSpec({ ...base, request }, config).runtime).toBe('runc');
    expect(buildContainerSpec({ ...base, request }, { ...config, SANDBOX_IMAGE_RUNTIMES: {} }).runtime).toBe('runsc');
  });

  it("leaves gVisor's own threads room in the pids cgroup on runsc", () => {
    const request = { mode: 'code', network: 'none', language: 'bash', code: 'x' } as const;
    expect(buildContainerSpec({ ...base, request }, { ...limits, SANDBOX_RUNTIME: 'runsc' }).limits.pidsLimit).toBe(64 + GVISOR_PIDS_ALLOWANCE);
    expect(buildContainerSpec({ ...base, request }, { ...limits, SANDBOX_RUNTIME: 'runc' }).limits.pidsLimit).toBe(64);
  });

  it('labels the container with a deadline past its timeout', () => {
    const spec = build({ request: { mode: 'code', network: 'none', language: 'bash', code: 'x' } });
    expect(spec.labels['weft.sandbox']).toBe('1');
    expect(Number(spec.labels['weft.sandbox.deadline'])).toBeGreaterThan(base.now + base.timeoutMs);
  });
});

describe('buildWarmSpec', () => {
  const warm = buildWarmSpec({ now: 1_000, idleMs: 60_000, maxRunMs: 5_000 }, limits);
  const cold = build({ request: { mode: 'code', network: 'none', language: 'python', code: 'x' } });

  it('confines a pooled container exactly like a cold snippet run', () => {
    expect(warm).toMatchObject({ image: cold.image, user: cold.user, workingDir: '/tmp', limits: cold.limits });
    expect(warm.mount).toBeUndefined();
  });

  it('runs the one-shot command server as PID 1 with stdin open, telling it how long to wait', () => {
    expect(warm.cmd).toEqual(['/usr/local/bin/node-server', '--disable-sigusr1', '/usr/local/bin/weft-serve']);
    expect(warm.init).toBeUndefined();
    expect(warm.openStdin).toBe(true);
    expect(warm.sharedStdin).toBeUndefined();
    expect(warm.env).toEqual({ ...cold.env, WEFT_IDLE_SECONDS: '60', WEFT_ONE_SHOT: '1' });
  });

  it('labels it as pooled, with a deadline past its idle time and its longest run', () => {
    expect(warm.labels['weft.sandbox.pool']).toBe('1');
    expect(Number(warm.labels['weft.sandbox.deadline'])).toBeGreaterThan(1_000 + 60_000 + 5_000);
  });
});
