import { assertUnreachable, type ExecSession } from '@weft/contracts';
import type { SandboxConfig } from '@weft/config';
import type { ContainerLimits, ContainerSpec } from '../docker/container-runtime';
import { SandboxLabels } from '../docker/container-runtime';
import { runtimeFor } from '../docker/runtime-choice';
import type { ParsedExecRequest } from './exec-request';

/** Weft's own settings in a workspace; never writable from a run. */
export const PROTECTED_FOLDER = '.weft';

export const SANDBOX_USER = '10001:10001';
export const SANDBOX_UID = 10001;
export const WORKSPACE_TARGET = '/workspace';
const SCRATCH_DIR = '/tmp';
const MAX_OPEN_FILES = 1024;
/** Past its deadline plus this, any replica may remove a container. */
export const SWEEP_GRACE_MS = 60_000;
const MIB = 1024 * 1024;
const RUN_ENV = { HOME: '/tmp', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1' } as const;
/** How long a container's main process waits, idle, before it exits on its own. */
const IDLE_SECONDS_ENV = 'WEFT_IDLE_SECONDS';
/**
 * A pooled container's main process: the command server, one-shot, as PID 1 (no init), run by
 * the runtime image's execute-only `node-server`, so it is non-dumpable. Without
 * `--disable-sigusr1` a snippet's SIGUSR1 would open Node's inspector on the server.
 */
export const POOL_SERVER_CMD = ['/usr/local/bin/node-server', '--disable-sigusr1', '/usr/local/bin/weft-serve'];

export type SpecLimits = Pick<
  SandboxConfig,
  'SANDBOX_IMAGE' | 'SANDBOX_MEMORY_MB' | 'SANDBOX_CPUS' | 'SANDBOX_PIDS_LIMIT' | 'SANDBOX_TMPFS_MB'
> &
  Partial<Pick<SandboxConfig, 'SANDBOX_FILE_MAX_MB' | 'SANDBOX_RUNTIME' | 'SANDBOX_IMAGE_RUNTIMES' | 'SANDBOX_IMAGES'>>;

export type CodeRequest = Extract<ParsedExecRequest, { mode: 'code' }>;

export interface SpecInput {
  request: ParsedExecRequest;
  /** Host path of the request's workspace, when it has one. */
  workspaceHostPath?: string;
  /** Normalised cwd relative to the workspace ('' for its root). */
  cwd: string;
  timeoutMs: number;
  now: number;
}

/** The spec of a cold run: the job's command is the container's command. */
export function buildContainerSpec(input: SpecInput, config: SpecLimits): ContainerSpec {
  const { request } = input;
  const mount = input.workspaceHostPath
    ? { hostPath: input.workspaceHostPath, target: WORKSPACE_TARGET, readOnly: !isWritable(request) }
    : undefined;
  return {
    ...baseSpec(config, input.now + input.timeoutMs),
    cmd: commandLine(request),
    workingDir: mount && input.cwd ? `${WORKSPACE_TARGET}/${input.cwd}` : mount ? WORKSPACE_TARGET : SCRATCH_DIR,
    mount,
    // As in a session's container: a writable run cannot grant itself permissions or edit its chains.
    ...(mount && !mount.readOnly ? { extraMounts: [protectedFolderMount(mount.hostPath)] } : {}),
    openStdin: request.mode === 'code' && request.stdin !== undefined,
  };
}

export interface WarmSpecInput {
  now: number;
  /** How long the server waits for its snippet before it gives up. */
  idleMs: number;
  /** The longest run the container may be handed. */
  maxRunMs: number;
}

/**
 * The spec of a pooled container: the same image, user, limits and isolation as a cold code run
 * without a workspace, but its command is the one-shot command server, which waits on stdin for
 * the snippet (whose processes then share the container's limits with it).
 */
export function buildWarmSpec(input: WarmSpecInput, config: SpecLimits): ContainerSpec {
  const base = baseSpec(config, input.now + input.idleMs + input.maxRunMs);
  return {
    ...base,
    cmd: POOL_SERVER_CMD,
    workingDir: SCRATCH_DIR,
    env: { ...base.env, [IDLE_SECONDS_ENV]: String(Math.ceil(input.idleMs / 1000)), WEFT_ONE_SHOT: '1' },
    labels: { ...base.labels, [SandboxLabels.pool]: '1' },
    openStdin: true,
  };
}

export interface SessionSpecInput {
  /** The container's name on the engine (see sessionContainerName). */
  name: string;
  image: { id: string; image: string };
  session: ExecSession;
  workspaceId: string;
  workspaceHostPath: string;
  writable: boolean;
  /** The user's proxy network and the proxy's URL on it; absent, no network. */
  proxy?: { network: string; url: string };
  /** The egress network, for sessions allowed direct egress. */
  egressNetwork?: string;
  /** The user's package cache volume, mounted at /cache. */
  cacheVolume?: string;
  /** A CA bundle on the engine's host to trust instead of the image's. */
  caCertsHostPath?: string;
  idleMs: number;
  maxLifetimeMs: number;
  now: number;
}

export const CACHE_TARGET = '/cache';
export const SESSION_RUNNER_PATH = '/usr/local/bin/weft-idle';
export const SESSION_EXEC_PATH = '/usr/local/bin/weft-exec';

/**
 * A session's long-lived container: the same user, limits and isolation as a cold run, its
 * workspace mounted (`.weft/` always read-only), and `weft-idle` as its main process, which
 * stops it after `idleMs` without a command. With Node in the image that is the command server
 * (`weft-serve`), fed over the attached stdin; without, commands run in it with `docker exec`.
 */
export function buildSessionSpec(input: SessionSpecInput, config: SpecLimits): ContainerSpec & { name: string } {
  const base = baseSpec({ ...config, SANDBOX_IMAGE: input.image.image }, input.now + input.maxLifetimeMs);
  const proxyEnv = input.proxy ? proxyVariables(input.proxy.url) : {};
  const caEnv = input.caCertsHostPath ? caVariables(CA_TARGET) : {};
  return {
    ...base,
    name: input.name,
    init: true,
    cmd: [SESSION_RUNNER_PATH],
    workingDir: WORKSPACE_TARGET,
    env: {
      ...base.env,
      ...proxyEnv,
      ...caEnv,
      [IDLE_SECONDS_ENV]: String(Math.max(1, Math.ceil(input.idleMs / 1000))),
      // weft-serve may kill every other process of the sandbox user once no run is going.
      WEFT_SWEEP_STRAGGLERS: '1',
    },
    labels: {
      ...base.labels,
      [SandboxLabels.session]: input.session.sessionId,
      [SandboxLabels.owner]: input.session.ownerId,
      [SandboxLabels.workspace]: input.workspaceId,
      [SandboxLabels.image]: input.image.id,
    },
    mount: { hostPath: input.workspaceHostPath, target: WORKSPACE_TARGET, readOnly: !input.writable },
    extraMounts: [
      ...(input.writable ? [protectedFolderMount(input.workspaceHostPath)] : []),
      ...(input.cacheVolume ? [{ type: 'volume' as const, volume: input.cacheVolume, target: CACHE_TARGET }] : []),
      ...(input.caCertsHostPath ? [{ type: 'bind' as const, hostPath: input.caCertsHostPath, target: CA_TARGET, readOnly: true }] : []),
    ],
    ...(input.proxy ? { network: input.proxy.network } : input.egressNetwork ? { network: input.egressNetwork } : {}),
    // The command server (weft-serve) reads its requests there, from whichever worker attaches.
    openStdin: true,
    sharedStdin: true,
  };
}

/** `.weft/` bind-mounted read-only over a writable workspace (ensureProtectedFolder makes it first). */
function protectedFolderMount(workspaceHostPath: string) {
  return { type: 'bind' as const, hostPath: `${workspaceHostPath}/${PROTECTED_FOLDER}`, target: `${WORKSPACE_TARGET}/${PROTECTED_FOLDER}`, readOnly: true };
}

/** Where SANDBOX_CA_CERTS is mounted, and the variables that make each toolchain trust it. */
const CA_TARGET = '/etc/weft/ca-certificates.pem';
function caVariables(path: string): Record<string, string> {
  return {
    SSL_CERT_FILE: path,
    CURL_CA_BUNDLE: path,
    REQUESTS_CA_BUNDLE: path,
    PIP_CERT: path,
    NODE_EXTRA_CA_CERTS: path,
    npm_config_cafile: path,
    GIT_SSL_CAINFO: path,
    CARGO_HTTP_CAINFO: path,
  };
}

/** Every spelling package managers read (npm, pip, Go and cargo take the usual variables). */
function proxyVariables(url: string): Record<string, string> {
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
  };
}

/** The argv that runs a command or a snippet. */
export function commandLine(request: ParsedExecRequest): string[] {
  // Not a login shell (-l): Debian's /etc/profile resets PATH, dropping the image's own additions
  // (the polyglot image's /cache/cargo/bin), and costs a fork of `id` on every command.
  if (request.mode === 'command') return ['bash', '-c', request.command];
  switch (request.language) {
    case 'python':
      return ['python3', '-c', request.code];
    case 'node':
      return ['node', '-e', request.code];
    case 'bash':
      return ['bash', '-c', request.code];
    case 'lua':
      return ['lua5.4', '-e', request.code];
    default:
      return assertUnreachable(request.language);
  }
}

export function containerLimits(config: SpecLimits): ContainerLimits {
  return {
    memoryBytes: config.SANDBOX_MEMORY_MB * MIB,
    nanoCpus: Math.round(config.SANDBOX_CPUS * 1e9),
    pidsLimit: config.SANDBOX_PIDS_LIMIT,
    tmpfsBytes: config.SANDBOX_TMPFS_MB * MIB,
    nofile: MAX_OPEN_FILES,
    fileSizeBytes: (config.SANDBOX_FILE_MAX_MB ?? 256) * MIB,
  };
}

/**
 * Under gVisor the container's pids cgroup also holds gVisor's own threads and processes (the
 * Sentry's, the gofer's, a stub per address space on the ptrace platform): an idle Node server
 * takes 43 there against 7 on runc. The run keeps SANDBOX_PIDS_LIMIT for itself on top of these.
 */
export const GVISOR_PIDS_ALLOWANCE = 128;

export function baseSpec(config: SpecLimits, runsUntil: number): Omit<ContainerSpec, 'cmd' | 'workingDir' | 'openStdin'> {
  const runtime = runtimeFor(config, config.SANDBOX_IMAGE);
  const limits = containerLimits(config);
  return {
    image: config.SANDBOX_IMAGE,
    user: SANDBOX_USER,
    env: { ...RUN_ENV },
    labels: {
      [SandboxLabels.marker]: '1',
      [SandboxLabels.deadline]: String(runsUntil + SWEEP_GRACE_MS),
    },
    limits: runtime === 'runsc' ? { ...limits, pidsLimit: limits.pidsLimit + GVISOR_PIDS_ALLOWANCE } : limits,
    ...(runtime ? { runtime } : {}),
  };
}

function isWritable(request: ParsedExecRequest): boolean {
  return request.mode === 'command' && request.writable;
}
