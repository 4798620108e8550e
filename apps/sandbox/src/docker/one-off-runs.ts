import type { Duplex } from 'node:stream';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type Docker from 'dockerode';
import { CappedOutput } from './capped-output';
import type { ContainerSpec, OutputListener, RunOptions, RunOutcome } from './container-runtime';
import type { DockerEngine } from './docker-engine';
import { statusOf } from './engine-errors';
import { OUTPUT_DRAIN_MS, type RunEnding, delay, raceDeadline } from './run-deadline';

/** A started container with its output attached. */
interface Attached {
  container: Docker.Container;
  stream: Duplex;
  stdout: CappedOutput;
  stderr: CappedOutput;
  /** Resolves once the output stream has ended (the container stopped). */
  drained: Promise<void>;
  /** Sees the output as it arrives; set when the run's listener is known. */
  onOutput?: OutputListener;
}

/** One command in a throwaway container: created, run to its end or deadline, always removed. */
export class OneOffRuns {
  constructor(
    private readonly engine: DockerEngine,
    private readonly logger: Logger,
  ) {}

  async run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome> {
    const attached = await this.createAndStart(spec, options.outputMaxBytes, options.onOutput);
    try {
      if (spec.openStdin) attached.stream.end(options.stdin ?? '');
      return await this.engine.engine(() => this.supervise(attached, options, performance.now()), spec.image);
    } finally {
      this.engine.removeSoon(attached.container.id);
    }
  }

  private async createAndStart(spec: ContainerSpec, outputMaxBytes: number, onOutput?: OutputListener): Promise<Attached> {
    const container = await this.engine.create(spec);
    try {
      return await this.engine.engine(async () => {
        const attached = await this.attach(container, spec.openStdin, outputMaxBytes);
        attached.onOutput = onOutput;
        await container.start();
        return attached;
      }, spec.image);
    } catch (error) {
      await this.engine.remove(container.id);
      throw error;
    }
  }

  /** Attaches before start so no early output is lost; hijack gives a socket we can half-close. */
  private async attach(container: Docker.Container, stdin: boolean, outputMaxBytes: number): Promise<Attached> {
    const stdout = new CappedOutput(outputMaxBytes);
    const stderr = new CappedOutput(outputMaxBytes);
    const stream = (await container.attach({ stream: true, stdin, stdout: true, stderr: true, hijack: stdin })) as Duplex;
    const attached: Attached = { container, stream, stdout, stderr, drained: Promise.resolve() };
    attached.drained = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      // A reset socket ends the run's output; it must not crash the worker.
      stream.on('error', (error) => {
        this.logger.debug({ err: error, containerId: container.id }, 'sandbox attach stream failed');
        resolve();
      });
    });
    this.engine.demultiplex(
      stream,
      stdout.writable((chunk) => attached.onOutput?.('stdout', chunk)),
      stderr.writable((chunk) => attached.onOutput?.('stderr', chunk)),
    );
    return attached;
  }

  /** Waits for the job (killing it at the deadline), then collects output and the exit state. */
  private async supervise(attached: Attached, options: RunOptions, startedAt: number): Promise<RunOutcome> {
    const { container, stdout, stderr } = attached;
    const ending = await this.waitOrKill(
      container,
      Math.max(0, options.timeoutMs - (performance.now() - startedAt)),
      options.signal,
    );
    if (ending === 'cancelled') throw new AppError(ErrorCode.SandboxCancelled, 'The run was cancelled and its container killed');
    const timedOut = ending === 'timeout';
    const durationMs = Math.round(performance.now() - startedAt);
    await Promise.race([attached.drained, delay(OUTPUT_DRAIN_MS)]);
    const { State } = await container.inspect();
    return {
      exitCode: timedOut ? null : State.ExitCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      stdoutCutBytes: stdout.cutBytes,
      stderrCutBytes: stderr.cutBytes,
      timedOut,
      oomKilled: State.OOMKilled,
      durationMs,
    };
  }

  /**
   * Waits for the process; past the deadline, or when `signal` aborts, kills it. The kill hits
   * PID 1, and when PID 1 of a PID namespace dies the kernel kills every other process in it,
   * background and `setsid` ones included.
   */
  private async waitOrKill(container: Docker.Container, timeoutMs: number, signal?: AbortSignal): Promise<RunEnding> {
    const exited = container.wait() as Promise<unknown>;
    const first = await raceDeadline(exited.then(() => undefined), timeoutMs, signal);
    if (first === 'exited') return first;
    await container.kill().catch((error: unknown) => {
      // 409: it exited on its own between the deadline and the kill.
      if (statusOf(error) !== 409) throw error;
    });
    await exited;
    return first;
  }
}
