import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Weft's seccomp profile (apps/sandbox/seccomp/weft-seccomp.json, made by generate.mjs beside it):
 * Docker's default less ptrace, process_vm_readv/writev, kcmp, pidfd_getfd, personality changes,
 * io_uring, the key calls, userfaultfd, perf_event_open and bpf. From `src/docker` and from
 * `dist/docker` alike the file is two folders up.
 */
export const SECCOMP_PROFILE_PATH = join(__dirname, '..', '..', 'seccomp', 'weft-seccomp.json');

let loaded: string | undefined;

/**
 * The profile as the engine takes it in `SecurityOpt` (`seccomp=<json>`), read once. A missing or
 * broken file throws: a sandbox must never fall back to a looser profile.
 */
export function seccompProfile(): string {
  if (loaded === undefined) {
    const profile: unknown = JSON.parse(readFileSync(SECCOMP_PROFILE_PATH, 'utf8'));
    if (!isProfile(profile)) throw new Error(`${SECCOMP_PROFILE_PATH} is not a seccomp profile (defaultAction and syscalls)`);
    loaded = JSON.stringify(profile);
  }
  return loaded;
}

function isProfile(value: unknown): value is { defaultAction: string; syscalls: unknown[] } {
  if (typeof value !== 'object' || value === null) return false;
  const { defaultAction, syscalls } = value as Record<string, unknown>;
  return defaultAction === 'SCMP_ACT_ERRNO' && Array.isArray(syscalls);
}
