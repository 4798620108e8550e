import type { Duplex } from 'node:stream';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { CappedOutput } from './capped-output';
import { ContainerNotRunningError, type ExecOptions, type RunOutcome } from './container-runtime';
import type { DockerEngine } from './docker-engine';
import { statusOf } from './engine-errors';
import { OUTPUT_DRAIN_MS, delay, raceDeadline } from './run-deadline';

/** What `weft-exec` writes to stderr when a process of its run was killed for memory. */
export const OOM_MARKER = 'weft-exec: a process was killed for memory';

/** A command in a running container (`docker exec`), for images whose command server cannot run. */
export class ContainerExec {
  constructor(
    private readonly engine: DockerEngine,
    private readonly logger: Logger,
  ) {}

  async exec(containerId: string, argv: string[], options: ExecOptions): Promise<RunOutcome> {
    const container = this.engine.docker.getContainer(containerId);
    const exec = await this.engine
      .engine(() => container.exec({ Cmd: argv, WorkingDir: options.workingDir, AttachStdout: true, AttachStderr: true, Tty: false }))
      .catch((error: unknown) => {
        if (statusOf(error) === 409 || statusOf(error) === 404) throw new ContainerNotRunningError(containerId);
        throw error;
      });
    const stdout = new CappedOutput(options.outputMaxBytes);
    const stderr = new CappedOutput(options.outputMaxBytes);
    const startedAt = performance.now();
    const stream = (await this.engine.engine(() => exec.start({ hijack: true, stdin: false }))) as Duplex;
    const ended = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.on('error', (error) => {
        this.logger.debug({ err: error, containerId }, 'sandbox exec stream failed');
        resolve();
      });
    });
    this.engine.demultiplex(
      stream,
      stdout.writable((chunk) => options.onOutput?.('stdout', chunk)),
      stderr.writable((chunk) => options.onOutput?.('stderr', chunk)),
    );
    const ending = await raceDeadline(ended, options.timeoutMs, options.signal);
    if (ending !== 'exited') {
      // Kill the command's process group; its output ends when the last of it dies.
      await this.exec(containerId, options.killArgv, { ...options, killArgv: [], signal: undefined, onOutput: undefined, timeoutMs: OUTPUT_DRAIN_MS }).catch(
        (error: unknown) => this.logger.warn({ err: error, containerId }, 'could not kill a sandbox command'),
      );
      await Promise.race([ended, delay(OUTPUT_DRAIN_MS)]);
      stream.destroy();
      if (ending === 'cancelled') throw new AppError(ErrorCode.SandboxCancelled, 'The run was cancelled and its processes killed');
    }
    const durationMs = Math.round(performance.now() - startedAt);
    const info = await this.engine.engine(() => exec.inspect());
    const timedOut = ending === 'timeout';
    const stderrText = stderr.text();
    return {
      exitCode: timedOut ? null : (info.ExitCode ?? null),
      stdout: stdout.text(),
      stderr: stderrText,
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      stdoutCutBytes: stdout.cutBytes,
      stderrCutBytes: stderr.cutBytes,
      timedOut,
      oomKilled: stderrText.includes(OOM_MARKER),
      durationMs,
    };
  }
}
