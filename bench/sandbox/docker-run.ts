import { spawn } from 'node:child_process';
import type { ContainerSpec } from '../../apps/sandbox/src/docker/container-runtime';
import { SECCOMP_PROFILE_PATH } from '../../apps/sandbox/src/docker/seccomp-profile';

/**
 * `docker run --rm` flags for the very spec the worker would create, so the cold baseline has
 * the same image, user, limits and isolation.
 */
export function dockerRunArgs(spec: ContainerSpec): string[] {
  const { limits } = spec;
  const [uid, gid] = spec.user.split(':');
  return [
    'run',
    '--rm',
    '--network=none',
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    `--security-opt=seccomp=${SECCOMP_PROFILE_PATH}`,
    '--read-only',
    `--tmpfs=/tmp:rw,nosuid,nodev,size=${limits.tmpfsBytes},uid=${uid},gid=${gid},mode=1777`,
    `--memory=${limits.memoryBytes}`,
    `--memory-swap=${limits.memoryBytes}`,
    `--cpus=${limits.nanoCpus / 1e9}`,
    `--pids-limit=${limits.pidsLimit}`,
    `--ulimit=nofile=${limits.nofile}:${limits.nofile}`,
    `--ulimit=fsize=${limits.fileSizeBytes}:${limits.fileSizeBytes}`,
    '--log-driver=none',
    ...(spec.runtime ? [`--runtime=${spec.runtime}`] : []),
    `--user=${spec.user}`,
    `--workdir=${spec.workingDir}`,
    ...(spec.mount ? [`--mount=type=bind,src=${spec.mount.hostPath},dst=${spec.mount.target}${spec.mount.readOnly ? ',readonly' : ''}`] : []),
    ...Object.entries(spec.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
    ...Object.entries(spec.labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]),
    spec.image,
    ...spec.cmd,
  ];
}

/** Runs the docker CLI and resolves with its stdout; rejects on a non-zero exit. */
export function docker(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`docker exited ${code}: ${stderr}`))));
  });
}
