import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import Docker from 'dockerode';
import { CappedOutput } from './capped-output';
import type { ContainerRuntime, ContainerSpec, RunOptions, RunOutcome } from './container-runtime';
import { SandboxLabels } from './container-runtime';
import { toCreateOptions } from './create-options';
import { isEngineUnreachable, isGone, statusOf } from './engine-errors';

/** How long output may keep draining after the process exited. */
const OUTPUT_DRAIN_MS = 2_000;

/** The only place that talks to the Docker engine. */
export class DockerAdapter implements ContainerRuntime {
  private readonly docker: Docker;
  /** Containers this process created and has not removed yet. */
  private readonly own = new Set<string>();

  constructor(socketPath: string, private readonly logger: Logger) {
    this.docker = new Docker({ socketPath });
  }

  async run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome> {
    const container = await this.engine(() => this.docker.createContainer(toCreateOptions(spec)), spec.image);
    this.own.add(container.id);
    try {
      return await this.engine(() => this.execute(container, spec, options), spec.image);
    } finally {
      await this.remove(container.id);
    }
  }

  async volumeMountpoint(name: string): Promise<string> {
    const info = await this.engine(() => this.docker.getVolume(name).inspect());
    return info.Mountpoint;
  }

  async removeExpired(now: number): Promise<number> {
    const list = await this.engine(() =>
      this.docker.listContainers({ all: true, filters: { label: [`${SandboxLabels.marker}=1`] } }),
    );
    const expired = list.filter((c) => !(Number(c.Labels[SandboxLabels.deadline]) > now));
    await Promise.all(expired.map((c) => this.remove(c.Id)));
    return expired.length;
  }

  async removeOwn(): Promise<void> {
    await Promise.all([...this.own].map((id) => this.remove(id)));
  }

  private async execute(container: Docker.Container, spec: ContainerSpec, options: RunOptions) {
    const stdout = new CappedOutput(options.outputMaxBytes);
    const stderr = new CappedOutput(options.outputMaxBytes);
    // Attach before start so no early output is lost; hijack gives a socket we can half-close.
    const stream = await container.attach({
      stream: true,
      stdin: spec.openStdin,
      stdout: true,
      stderr: true,
      hijack: spec.openStdin,
    });
    const drained = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    this.docker.modem.demuxStream(stream, stdout.writable(), stderr.writable());
    await container.start();
    const startedAt = performance.now();
    if (spec.openStdin) stream.end(options.stdin ?? '');
    const timedOut = await this.waitOrKill(container, options.timeoutMs);
    const durationMs = Math.round(performance.now() - startedAt);
    await Promise.race([drained, delay(OUTPUT_DRAIN_MS)]);
    const { State } = await container.inspect();
    return {
      exitCode: timedOut ? null : State.ExitCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      timedOut,
      oomKilled: State.OOMKilled,
      durationMs,
    };
  }

  /** Waits for the process; past the deadline kills it. Resolves true when it was killed. */
  private async waitOrKill(container: Docker.Container, timeoutMs: number): Promise<boolean> {
    const exited = container.wait() as Promise<unknown>;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const first = await Promise.race([exited.then(() => 'exited' as const), deadline]);
    clearTimeout(timer);
    if (first === 'exited') return false;
    await container.kill().catch((error: unknown) => {
      // 409: it exited on its own between the deadline and the kill.
      if (statusOf(error) !== 409) throw error;
    });
    await exited;
    return true;
  }

  private async remove(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      if (!isGone(error)) this.logger.warn({ err: error, containerId: id }, 'could not remove sandbox container');
    } finally {
      this.own.delete(id);
    }
  }

  /** Turns the engine's failures into domain errors. */
  private async engine<T>(work: () => Promise<T>, image?: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isEngineUnreachable(error)) {
        throw new AppError(ErrorCode.SandboxUnavailable, 'The container engine is unreachable', {}, true, {
          cause: error,
        });
      }
      if (image && statusOf(error) === 404 && /image/i.test(String((error as Error).message))) {
        throw new AppError(ErrorCode.SandboxUnavailable, `Sandbox image ${image} is not on the engine`, { image }, false, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
