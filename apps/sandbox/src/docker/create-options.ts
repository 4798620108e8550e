import type { ContainerCreateOptions } from 'dockerode';
import type { ContainerSpec } from './container-runtime';
import { seccompProfile } from './seccomp-profile';

/**
 * Maps a spec to the engine's create body. The isolation settings are fixed here, not in the
 * spec, so no caller can loosen them: no capabilities, no new privileges, Weft's seccomp profile
 * (Docker's default less ptrace and the calls around it: `seccomp-profile.ts`; never
 * `unconfined`), no network (or only the dedicated egress network, when the spec names it), a
 * read-only root with a small tmpfs, hard memory, CPU, pids and file limits, and no log driver:
 * output is read from the attach stream alone, so a chatty run cannot fill the host's disk with
 * container logs.
 */
export function toCreateOptions(spec: ContainerSpec): ContainerCreateOptions {
  const { limits } = spec;
  const [uid, gid] = spec.user.split(':');
  return {
    ...(spec.name ? { name: spec.name } : {}),
    Image: spec.image,
    Cmd: spec.cmd,
    User: spec.user,
    WorkingDir: spec.workingDir,
    Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
    Labels: spec.labels,
    Tty: false,
    AttachStdin: spec.openStdin,
    OpenStdin: spec.openStdin,
    StdinOnce: spec.openStdin && !spec.sharedStdin,
    AttachStdout: true,
    AttachStderr: true,
    NetworkDisabled: !spec.network,
    HostConfig: {
      NetworkMode: spec.network ?? 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges', `seccomp=${seccompProfile()}`],
      Privileged: false,
      ReadonlyRootfs: true,
      Tmpfs: {
        '/tmp': `rw,nosuid,nodev,size=${limits.tmpfsBytes},nr_inodes=${tmpfsInodes(limits.tmpfsBytes)},uid=${uid},gid=${gid},mode=1777`,
      },
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      NanoCpus: limits.nanoCpus,
      PidsLimit: limits.pidsLimit,
      Ulimits: [
        { Name: 'nofile', Soft: limits.nofile, Hard: limits.nofile },
        { Name: 'fsize', Soft: limits.fileSizeBytes, Hard: limits.fileSizeBytes },
      ],
      // Order matters: `.weft/` read-only is mounted over the writable workspace.
      Mounts: [
        ...(spec.mount ? [{ Type: 'bind' as const, Source: spec.mount.hostPath, Target: spec.mount.target, ReadOnly: spec.mount.readOnly }] : []),
        ...(spec.extraMounts ?? []).map((mount) =>
          mount.type === 'bind'
            ? { Type: 'bind' as const, Source: mount.hostPath, Target: mount.target, ReadOnly: mount.readOnly }
            : { Type: 'volume' as const, Source: mount.volume, Target: mount.target, ReadOnly: mount.readOnly ?? false },
        ),
      ],
      LogConfig: { Type: 'none', Config: {} },
      ...(spec.runtime ? { Runtime: spec.runtime } : {}),
      ...(spec.init ? { Init: true } : {}),
      AutoRemove: false,
    },
  };
}

/**
 * Files the tmpfs may hold: one per 2 KiB of its size. Left to the kernel, the count is half the
 * host's memory pages whatever the size, so half a million empty files fit in 64 MB and the run
 * ends killed for kernel memory instead of with a clean "No space left on device".
 */
export function tmpfsInodes(tmpfsBytes: number): number {
  return Math.max(1024, Math.floor(tmpfsBytes / 2048));
}
