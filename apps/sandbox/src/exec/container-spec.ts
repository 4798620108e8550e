import { assertUnreachable } from '@weft/contracts';
import type { SandboxConfig } from '@weft/config';
import type { ContainerSpec } from '../docker/container-runtime';
import { SandboxLabels } from '../docker/container-runtime';
import type { ParsedExecRequest } from './exec-request';

export const SANDBOX_USER = '10001:10001';
export const WORKSPACE_TARGET = '/workspace';
const MAX_OPEN_FILES = 1024;
const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Past its deadline plus this, any replica may remove a container. */
const SWEEP_GRACE_MS = 60_000;
const MIB = 1024 * 1024;

export type SpecLimits = Pick<
  SandboxConfig,
  'SANDBOX_IMAGE' | 'SANDBOX_MEMORY_MB' | 'SANDBOX_CPUS' | 'SANDBOX_PIDS_LIMIT' | 'SANDBOX_TMPFS_MB'
>;

export interface SpecInput {
  request: ParsedExecRequest;
  /** Host path of the request's workspace, when it has one. */
  workspaceHostPath?: string;
  /** Normalised cwd relative to the workspace ('' for its root). */
  cwd: string;
  timeoutMs: number;
  now: number;
}

export function buildContainerSpec(input: SpecInput, config: SpecLimits): ContainerSpec {
  const { request } = input;
  const mount = input.workspaceHostPath
    ? { hostPath: input.workspaceHostPath, target: WORKSPACE_TARGET, readOnly: !isWritable(request) }
    : undefined;
  return {
    image: config.SANDBOX_IMAGE,
    cmd: commandLine(request),
    user: SANDBOX_USER,
    workingDir: mount && input.cwd ? `${WORKSPACE_TARGET}/${input.cwd}` : mount ? WORKSPACE_TARGET : '/tmp',
    env: { HOME: '/tmp', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1' },
    labels: {
      [SandboxLabels.marker]: '1',
      [SandboxLabels.deadline]: String(input.now + input.timeoutMs + SWEEP_GRACE_MS),
    },
    mount,
    limits: {
      memoryBytes: config.SANDBOX_MEMORY_MB * MIB,
      nanoCpus: Math.round(config.SANDBOX_CPUS * 1e9),
      pidsLimit: config.SANDBOX_PIDS_LIMIT,
      tmpfsBytes: config.SANDBOX_TMPFS_MB * MIB,
      nofile: MAX_OPEN_FILES,
      fileSizeBytes: MAX_FILE_BYTES,
    },
    openStdin: request.mode === 'code' && request.stdin !== undefined,
  };
}

function isWritable(request: ParsedExecRequest): boolean {
  return request.mode === 'command' && request.writable;
}

function commandLine(request: ParsedExecRequest): string[] {
  if (request.mode === 'command') return ['bash', '-lc', request.command];
  switch (request.language) {
    case 'python':
      return ['python3', '-c', request.code];
    case 'node':
      return ['node', '-e', request.code];
    case 'bash':
      return ['bash', '-c', request.code];
    default:
      return assertUnreachable(request.language);
  }
}
