import { describe, expect, it } from 'vitest';
import type { ContainerSpec } from './container-runtime';
import { toCreateOptions } from './create-options';
import { seccompProfile } from './seccomp-profile';

const spec: ContainerSpec = {
  image: 'weft/sandbox-runtime:latest',
  cmd: ['bash', '-c', 'true'],
  user: '10001:10001',
  workingDir: '/workspace',
  env: { HOME: '/tmp' },
  labels: { 'weft.sandbox': '1' },
  mount: { hostPath: '/srv/ws/ws_abcdefgh', target: '/workspace', readOnly: true },
  limits: {
    memoryBytes: 256 * 1024 * 1024,
    nanoCpus: 500_000_000,
    pidsLimit: 64,
    tmpfsBytes: 16 * 1024 * 1024,
    nofile: 1024,
    fileSizeBytes: 1024 * 1024,
  },
  openStdin: false,
};

describe('toCreateOptions', () => {
  const options = toCreateOptions(spec);
  const host = options.HostConfig ?? {};

  it('drops every capability, forbids new privileges and is never privileged', () => {
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.CapAdd).toBeUndefined();
    expect(host.SecurityOpt?.[0]).toBe('no-new-privileges');
    expect(host.Privileged).toBe(false);
  });

  it("applies Weft's seccomp profile: Docker's default without ptrace and its kin", () => {
    const seccomp = (host.SecurityOpt ?? []).filter((opt: string) => opt.startsWith('seccomp='));
    expect(seccomp).toEqual([`seccomp=${seccompProfile()}`]);
    const profile = JSON.parse(seccomp[0]!.slice('seccomp='.length)) as { defaultAction: string; syscalls: { names: string[]; args?: { value: number }[] }[] };
    expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
    const allowed = new Set(profile.syscalls.flatMap((rule) => rule.names));
    for (const name of ['ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_getfd', 'keyctl', 'add_key', 'request_key', 'userfaultfd', 'perf_event_open', 'bpf', 'io_uring_setup']) {
      expect(allowed.has(name), name).toBe(false);
    }
    for (const name of ['read', 'clone', 'execve', 'mmap', 'socket', 'wait4']) expect(allowed.has(name), name).toBe(true);
    const personality = profile.syscalls.filter((rule) => rule.names.includes('personality')).map((rule) => rule.args?.[0]?.value);
    expect(personality.sort()).toEqual([0, 0xffffffff]);
  });

  it('writes no container log, so output never lands on the host disk', () => {
    expect(host.LogConfig).toEqual({ Type: 'none', Config: {} });
  });

  it("uses the engine's default OCI runtime unless one is set", () => {
    expect(host.Runtime).toBeUndefined();
    expect(toCreateOptions({ ...spec, runtime: 'runsc' }).HostConfig?.Runtime).toBe('runsc');
  });

  it('runs without a network as the unprivileged user', () => {
    expect(host.NetworkMode).toBe('none');
    expect(options.NetworkDisabled).toBe(true);
    expect(options.User).toBe('10001:10001');
  });

  it('has a read-only root with a size-limited tmpfs owned by the sandbox user', () => {
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Tmpfs).toEqual({ '/tmp': 'rw,nosuid,nodev,size=16777216,nr_inodes=8192,uid=10001,gid=10001,mode=1777' });
  });

  it('sets memory without swap, cpu, pids and ulimits', () => {
    expect(host.Memory).toBe(256 * 1024 * 1024);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(500_000_000);
    expect(host.PidsLimit).toBe(64);
    expect(host.Ulimits).toEqual([
      { Name: 'nofile', Soft: 1024, Hard: 1024 },
      { Name: 'fsize', Soft: 1024 * 1024, Hard: 1024 * 1024 },
    ]);
  });

  it('mounts exactly the one workspace by its host path', () => {
    expect(host.Binds).toBeUndefined();
    expect(host.Mounts).toEqual([
      { Type: 'bind', Source: '/srv/ws/ws_abcdefgh', Target: '/workspace', ReadOnly: true },
    ]);
  });

  it('opens stdin only when asked to', () => {
    expect(options.OpenStdin).toBe(false);
    const withStdin = toCreateOptions({ ...spec, openStdin: true });
    expect(withStdin).toMatchObject({ AttachStdin: true, OpenStdin: true, StdinOnce: true, Tty: false });
  });

  it('has no network but loopback unless the spec names the egress network', () => {
    expect(options.NetworkDisabled).toBe(true);
    expect(host.NetworkMode).toBe('none');
  });

  it('joins only the named egress network, with every other setting unchanged', () => {
    const egress = toCreateOptions({ ...spec, network: 'weft-sandbox-egress' });
    expect(egress.NetworkDisabled).toBe(false);
    expect(egress.HostConfig?.NetworkMode).toBe('weft-sandbox-egress');
    expect({ ...egress.HostConfig, NetworkMode: 'none' }).toEqual(host);
  });
});
