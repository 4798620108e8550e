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
  /** OCI runtime (for example `runsc`); the engine's default when absent. */
  runtime?: string;
  /** The egress network to join; absent, the container has no network but loopback. */
  egressNetwork?: string;
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

export interface RunOptions {
  stdin?: string;
  timeoutMs: number;
  /** Cap applied to stdout and to stderr separately. */
  outputMaxBytes: number;
  /** Kills the run at once; the run then rejects with `SANDBOX.CANCELLED`. */
  signal?: AbortSignal;
  /** Every piece of output as it arrives, before any cap. */
  onOutput?: OutputListener;
}

export type OutputStream = 'stdout' | 'stderr';
export type OutputListener = (stream: OutputStream, chunk: Buffer) => void;

export interface RunOutcome {
  /** null when the run was killed on timeout. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  oomKilled: boolean;
  /** From start to exit (or kill). */
  durationMs: number;
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
   * Creates the bridge network egress runs join, unless it exists: inter-container traffic off,
   * labelled as the sandbox's. Never removed: other replicas on the engine share it.
   */
  ensureEgressNetwork(name: string): Promise<void>;
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
} as const;
