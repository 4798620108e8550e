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
}

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

export interface ContainerRuntime {
  /** Creates, runs and always removes one throwaway container. */
  run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome>;
  /** Where a named volume lives on the engine's host. */
  volumeMountpoint(name: string): Promise<string>;
  /** Removes labelled containers whose deadline has passed; returns how many. */
  removeExpired(now: number): Promise<number>;
  /** Removes the containers this process started and has not yet removed. */
  removeOwn(): Promise<void>;
}

export const CONTAINER_RUNTIME = Symbol('ContainerRuntime');

/** Every container the sandbox starts carries these; persisted on running engines, do not rename. */
export const SandboxLabels = {
  marker: 'weft.sandbox',
  /** Epoch ms after which the container is fair game for any replica's sweep. */
  deadline: 'weft.sandbox.deadline',
} as const;
