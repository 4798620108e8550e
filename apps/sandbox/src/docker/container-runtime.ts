import type { CommandChannel } from './command-channel';
import type { RunOptions, RunOutcome } from './run-types';

export { ContainerNotRunningError, type OutputListener, type OutputStream, type RunOptions, type RunOutcome } from './run-types';

/**
 * The sandbox's port onto a container engine. Only plain data crosses it, so the Docker adapter
 * can be swapped for a fake in unit tests and its types never leak out.
 */
export interface ContainerSpec {
  image: string;
  cmd: string[];
  /** `uid:gid` the process runs as. */
  user: string;
  workingDir: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  /** The one workspace bind-mounted into the container, by its path on the engine's host. */
  mount?: { hostPath: string; target: string; readOnly: boolean };
  limits: ContainerLimits;
  /** Keep stdin open for the caller to write to. */
  openStdin: boolean;
  /** Stdin stays open across attaches (a session container's command server); else the first attach's end closes it. */
  sharedStdin?: boolean;
  /** OCI runtime (for example `runsc`); the engine's default when absent. */
  runtime?: string;
  /** The network to join (egress, or a user's proxy network); absent, loopback only. */
  network?: string;
  /** Mounts besides the workspace: `.weft/` read-only over a writable workspace, the package cache. */
  extraMounts?: ExtraMount[];
  /** A name on the engine; a second create of the same name is refused by the engine. */
  name?: string;
  /** Run an init as PID 1 that reaps orphans (long-lived containers). */
  init?: boolean;
}

export type ExtraMount =
  | { type: 'bind'; hostPath: string; target: string; readOnly: boolean }
  | { type: 'volume'; volume: string; target: string; readOnly?: boolean };

/** A long-lived container found on the engine. */
export interface NamedContainer {
  id: string;
  running: boolean;
  labels: Record<string, string>;
}

/** What `exec` needs besides RunOptions. */
export interface ExecOptions extends RunOptions {
  workingDir: string;
  /** Run in the same container to kill the command's process group on timeout or cancel. */
  killArgv: string[];
}

export interface ContainerLimits {
  memoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  tmpfsBytes: number;
  /** Max open file descriptors. */
  nofile: number;
  /** Largest file the process may write. */
  fileSizeBytes: number;
}

/** A started container whose runner waits, already confined, for the one job it will run. */
export interface WarmContainer {
  readonly id: string;
  /** Resolves when the container stops: after its job, or on its own while still idle. */
  readonly stopped: Promise<void>;
}

/** A warm container stopped before it got its job; nothing ran, so a cold start is safe. */
export class WarmContainerGoneError extends Error {
  constructor(readonly containerId: string) {
    super(`warm container ${containerId} stopped before it got its job`);
    this.name = 'WarmContainerGoneError';
  }
}

/** What the engine says about itself, for the boot-time checks. */
export interface EngineInfo {
  /** OCI runtimes the engine can start containers with. */
  runtimes: string[];
  /** e.g. `name=seccomp,profile=default`. */
  securityOptions: string[];
}

export interface ContainerRuntime {
  /**
   * Creates, runs and always removes one throwaway container. When it resolves every process of
   * the run is dead; the container's removal may finish just after.
   */
  run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome>;
  /**
   * Attaches to a running session container's command server; undefined when none answers
   * within `readyTimeoutMs` (an image without Node): commands then go through `exec`.
   */
  openChannel(containerId: string, readyTimeoutMs: number): Promise<CommandChannel | undefined>;
  /** Creates and starts a container running the warm runner; `spec.cmd` must be that runner. */
  startWarm(spec: ContainerSpec): Promise<WarmContainer>;
  /**
   * Hands a warm container its one job, waits for it like `run`, and always removes it. Rejects
   * with WarmContainerGoneError, having run nothing, when the container already stopped.
   */
  runWarm(container: WarmContainer, argv: string[], options: RunOptions): Promise<RunOutcome>;
  /** Removes a warm container that will not be used. */
  discard(container: WarmContainer): Promise<void>;
  describeEngine(): Promise<EngineInfo>;
  /** Where a named volume lives on the engine's host. */
  volumeMountpoint(name: string): Promise<string>;
  /** Removes labelled containers whose deadline has passed; returns how many. */
  removeExpired(now: number): Promise<number>;
  /** Removes the containers this process started and waits for removals under way. */
  removeOwn(): Promise<void>;
  /**
   * Removes containers stamped with this worker's instance id that this process did not start:
   * a predecessor in its place (the same container, restarted after a crash) left them, with
   * whatever they ran and nobody left to hold its deadline. Returns how many.
   */
  removePredecessors(): Promise<number>;
  /**
   * Creates the bridge network egress runs join, unless it exists: inter-container traffic off,
   * labelled as the sandbox's. Never removed: other replicas on the engine share it.
   */
  ensureEgressNetwork(name: string): Promise<void>;
  /**
   * Creates and starts a long-lived container under `spec.name`, or finds the one of that name
   * (another replica's, or this one's from before); `created` says which.
   */
  ensureNamed(spec: ContainerSpec & { name: string }): Promise<NamedContainer & { created: boolean }>;
  /** Long-lived sandbox containers whose label `key` has `value`. */
  listLabelled(key: string, value: string): Promise<NamedContainer[]>;
  /**
   * Runs argv in a running container (`docker exec`) as `run` does in a fresh one. Rejects with
   * ContainerNotRunningError, having run nothing, when the container has stopped.
   */
  exec(containerId: string, argv: string[], options: ExecOptions): Promise<RunOutcome>;
  /** Resolves when the container stops (or is gone). */
  whenStopped(containerId: string): Promise<void>;
  /** Removes one container, running or not. */
  removeContainer(containerId: string): Promise<void>;
  /** Creates a labelled named volume unless it exists. */
  ensureVolume(name: string, labels: Record<string, string>): Promise<void>;
  /**
   * Creates an internal network (no route out) unless it exists, and connects `proxyContainer`
   * to it under `alias`: the only way out of the network is that proxy.
   */
  ensureProxyNetwork(name: string, proxyContainer: string, alias: string): Promise<void>;
  /** The container labelled `weft.proxy=1` in this process's own compose project or Swarm stack, if any. */
  findOwnProxy(): Promise<string | undefined>;
}

export const CONTAINER_RUNTIME = Symbol('ContainerRuntime');

/** Every container the sandbox starts carries these; persisted on running engines, do not rename. */
export const SandboxLabels = {
  marker: 'weft.sandbox',
  /** Epoch ms after which the container is fair game for any replica's sweep. */
  deadline: 'weft.sandbox.deadline',
  /** The worker process that started it (SANDBOX_INSTANCE_ID). */
  instance: 'weft.sandbox.instance',
  /** `1` on containers started ahead of need by the warm pool. */
  pool: 'weft.sandbox.pool',
  /** `1` on the egress network the sandbox created. */
  egress: 'weft.sandbox.egress',
  /** The session a long-lived container belongs to. */
  session: 'weft.sandbox.session',
  /** The workspace, owner and image id a session container was made for. */
  workspace: 'weft.sandbox.workspace',
  owner: 'weft.sandbox.owner',
  image: 'weft.sandbox.image',
  /** `1` on a user's proxy network and package cache volume. */
  proxyNetwork: 'weft.sandbox.proxy-network',
  cache: 'weft.sandbox.cache',
} as const;

/** The label compose's proxy service carries (docker-compose.yml). */
export const PROXY_LABEL = 'weft.proxy';
