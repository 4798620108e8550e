/**
 * What running one command takes and gives back, in a throwaway container, a warm one, a session
 * container's command channel or `docker exec`. Apart from the port (container-runtime.ts), which
 * re-exports it, so that the command channel the port hands out can use it without a cycle.
 */

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
  stdoutCutBytes: number;
  stderrCutBytes: number;
  timedOut: boolean;
  oomKilled: boolean;
  /** From start to exit (or kill). */
  durationMs: number;
}

/** The container stopped (its idle timer ran out) before the command started; nothing ran. */
export class ContainerNotRunningError extends Error {
  constructor(readonly containerId: string) {
    super(`container ${containerId} is not running`);
    this.name = 'ContainerNotRunningError';
  }
}
