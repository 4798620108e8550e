import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import Docker from 'dockerode';
import { CappedOutput } from './capped-output';
import { CommandChannel } from './command-channel';
import type {
  ContainerRuntime,
  ContainerSpec,
  EngineInfo,
  ExecOptions,
  NamedContainer,
  OutputListener,
  RunOptions,
  RunOutcome,
  WarmContainer,
} from './container-runtime';
import { ContainerNotRunningError, PROXY_LABEL, SandboxLabels } from './container-runtime';
import { toCreateOptions } from './create-options';
import { isEngineUnreachable, isGone, statusOf } from './engine-errors';
import { ProxyNetworkEngine } from './proxy-network-engine';
import { DEFAULT_PROXY_SUBNETS, SubnetPool } from './subnet-pool';
import { WarmServers } from './warm-servers';

/** A removed container's name is taken until the engine finishes removing it: wait this often, this long. */
const NAME_RELEASE_TRIES = 20;
const NAME_RELEASE_WAIT_MS = 100;
/** How long output may keep draining after the process exited. */
const OUTPUT_DRAIN_MS = 2_000;

export interface DockerAdapterOptions {
  socketPath: string;
  /** Stamped on every container as `weft.sandbox.instance`. */
  instanceId: string;
  /** Where users' proxy networks take their subnets. */
  proxySubnets?: SubnetPool;
}

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

/** The only place that talks to the Docker engine. */
export class DockerAdapter implements ContainerRuntime {
  private readonly docker: Docker;
  /** Containers this process created and has not removed yet. */
  private readonly own = new Set<string>();
  /** Removals under way after a reply. */
  private readonly removals = new Set<Promise<void>>();
  private readonly proxyNetworks: ProxyNetworkEngine;
  private readonly warmServers: WarmServers;

  constructor(
    private readonly options: DockerAdapterOptions,
    private readonly logger: Logger,
  ) {
    this.docker = new Docker({ socketPath: options.socketPath });
    this.proxyNetworks = new ProxyNetworkEngine(
      this.docker,
      (work) => this.engine(work),
      options.proxySubnets ?? new SubnetPool(DEFAULT_PROXY_SUBNETS.range, DEFAULT_PROXY_SUBNETS.prefix),
    );
    this.warmServers = new WarmServers(
      this.docker,
      {
        create: (spec) => this.create(spec),
        remove: (id) => this.remove(id),
        removeSoon: (id) => this.removeSoon(id),
        engine: (work, image) => this.engine(work, image),
        demultiplex: (stream, stdout, stderr) => this.docker.modem.demuxStream(stream, stdout, stderr),
      },
      logger,
    );
  }

  async run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome> {
    const attached = await this.createAndStart(spec, options.outputMaxBytes, options.onOutput);
    try {
      if (spec.openStdin) attached.stream.end(options.stdin ?? '');
      return await this.engine(() => this.supervise(attached, options, performance.now()), spec.image);
    } finally {
      this.removeSoon(attached.container.id);
    }
  }

  startWarm(spec: ContainerSpec): Promise<WarmContainer> {
    return this.warmServers.start(spec);
  }

  runWarm(warm: WarmContainer, argv: string[], options: RunOptions): Promise<RunOutcome> {
    return this.warmServers.run(warm, argv, options);
  }

  discard(warm: WarmContainer): Promise<void> {
    return this.warmServers.discard(warm);
  }

  async describeEngine(): Promise<EngineInfo> {
    const info = (await this.engine(() => this.docker.info())) as {
      Runtimes?: Record<string, unknown>;
      SecurityOptions?: string[];
    };
    return { runtimes: Object.keys(info.Runtimes ?? {}), securityOptions: info.SecurityOptions ?? [] };
  }

  async volumeMountpoint(name: string): Promise<string> {
    const info = await this.engine(() => this.docker.getVolume(name).inspect());
    return info.Mountpoint;
  }

  async removeExpired(now: number): Promise<number> {
    const list = await this.engine(() =>
      this.docker.listContainers({ all: true, filters: { label: [`${SandboxLabels.marker}=1`] } }),
    );
    // A session container that stopped (idle) is done with, whoever started it.
    const stoppedSession = (c: Docker.ContainerInfo) => c.Labels[SandboxLabels.session] !== undefined && (c.State === 'exited' || c.State === 'dead');
    const expired = list.filter((c) => !(Number(c.Labels[SandboxLabels.deadline]) > now) || stoppedSession(c));
    await Promise.all(expired.map((c) => this.remove(c.Id)));
    return expired.length;
  }

  async removePredecessors(): Promise<number> {
    const list = await this.engine(() =>
      this.docker.listContainers({
        all: true,
        filters: { label: [`${SandboxLabels.marker}=1`, `${SandboxLabels.instance}=${this.options.instanceId}`] },
      }),
    );
    const left = list.filter((c) => !this.own.has(c.Id));
    await Promise.all(left.map((c) => this.remove(c.Id)));
    return left.length;
  }

  async removeOwn(): Promise<void> {
    this.warmServers.closeAll();
    await Promise.all([...this.own].map((id) => this.remove(id)));
    await Promise.all(this.removals);
  }

  async ensureEgressNetwork(name: string): Promise<void> {
    const existing = await this.engine(() => this.docker.getNetwork(name).inspect()).catch((error: unknown) => {
      if (statusOf(error) === 404) return undefined;
      throw error;
    });
    if (existing) return;
    try {
      await this.engine(() =>
        this.docker.createNetwork({
          Name: name,
          Driver: 'bridge',
          Internal: false,
          CheckDuplicate: true,
          Labels: { [SandboxLabels.marker]: '1', [SandboxLabels.egress]: '1' },
          // Runs on it reach the outside, not each other.
          Options: { 'com.docker.network.bridge.enable_icc': 'false' },
        }),
      );
    } catch (error) {
      // 409: another replica created it first.
      if (statusOf(error) !== 409) throw error;
    }
  }

  async ensureNamed(spec: ContainerSpec & { name: string }): Promise<NamedContainer & { created: boolean }> {
    let container: Docker.Container | undefined;
    for (let attempt = 0; !container; attempt++) {
      try {
        container = await this.create(spec);
      } catch (error) {
        // 409: the name is taken, by another replica's container or one of ours from before.
        if (statusOf(error) !== 409) throw error;
        const found = await this.inspectNamed(spec.name);
        if (found) return { ...found, created: false };
        // Taken, yet not found: the old one is being removed. Its name is free in a moment.
        if (attempt >= NAME_RELEASE_TRIES) throw error;
        await delay(NAME_RELEASE_WAIT_MS);
      }
    }
    try {
      await this.engine(() => container.start(), spec.image);
    } catch (error) {
      await this.remove(container.id);
      throw error;
    }
    return { id: container.id, running: true, labels: { ...spec.labels, [SandboxLabels.instance]: this.options.instanceId }, created: true };
  }

  async listLabelled(key: string, value: string): Promise<NamedContainer[]> {
    const list = await this.engine(() =>
      this.docker.listContainers({ all: true, filters: { label: [`${SandboxLabels.marker}=1`, `${key}=${value}`] } }),
    );
    return list.map((c) => ({ id: c.Id, running: c.State === 'running', labels: c.Labels }));
  }

  async exec(containerId: string, argv: string[], options: ExecOptions): Promise<RunOutcome> {
    const container = this.docker.getContainer(containerId);
    const exec = await this.engine(() =>
      container.exec({ Cmd: argv, WorkingDir: options.workingDir, AttachStdout: true, AttachStderr: true, Tty: false }),
    ).catch((error: unknown) => {
      if (statusOf(error) === 409 || statusOf(error) === 404) throw new ContainerNotRunningError(containerId);
      throw error;
    });
    const stdout = new CappedOutput(options.outputMaxBytes);
    const stderr = new CappedOutput(options.outputMaxBytes);
    const startedAt = performance.now();
    const stream = (await this.engine(() => exec.start({ hijack: true, stdin: false }))) as Duplex;
    const ended = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.on('error', (error) => {
        this.logger.debug({ err: error, containerId }, 'sandbox exec stream failed');
        resolve();
      });
    });
    this.docker.modem.demuxStream(
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
    const info = await this.engine(() => exec.inspect());
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

  async openChannel(containerId: string, readyTimeoutMs: number): Promise<CommandChannel | undefined> {
    const container = this.docker.getContainer(containerId);
    const stream = (await this.engine(() => container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true }))) as Duplex;
    const channel = new CommandChannel(
      stream,
      (attached, stdout, stderr) => this.docker.modem.demuxStream(attached, stdout, stderr),
      () => this.remove(containerId),
      this.logger,
    );
    if (await channel.ping(readyTimeoutMs)) return channel;
    channel.close();
    return undefined;
  }

  async whenStopped(containerId: string): Promise<void> {
    await this.docker
      .getContainer(containerId)
      .wait()
      .catch((error: unknown) => {
        if (!isGone(error)) this.logger.debug({ err: error, containerId }, 'waiting on a sandbox container failed');
      });
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.remove(containerId);
  }

  async ensureVolume(name: string, labels: Record<string, string>): Promise<void> {
    const existing = await this.engine(() => this.docker.getVolume(name).inspect()).catch((error: unknown) => {
      if (statusOf(error) === 404) return undefined;
      throw error;
    });
    if (!existing) await this.engine(() => this.docker.createVolume({ Name: name, Labels: { [SandboxLabels.marker]: '1', ...labels } }));
  }

  async ensureProxyNetwork(name: string, proxyContainer: string, alias: string): Promise<void> {
    await this.proxyNetworks.ensure(name, proxyContainer, alias);
  }

  async findComposeProxy(): Promise<string | undefined> {
    // In a container, the hostname is the container's id: our own compose project is on it.
    const self = await this.engine(() => this.docker.getContainer(hostname()).inspect()).catch(() => undefined);
    const project = self?.Config.Labels?.['com.docker.compose.project'];
    if (!project) return undefined;
    const list = await this.engine(() =>
      this.docker.listContainers({ filters: { label: [`${PROXY_LABEL}=1`, `com.docker.compose.project=${project}`] } }),
    );
    return list[0]?.Id;
  }

  private async inspectNamed(name: string): Promise<NamedContainer | undefined> {
    const info = await this.engine(() => this.docker.getContainer(name).inspect()).catch((error: unknown) => {
      if (statusOf(error) === 404) return undefined;
      throw error;
    });
    return info ? { id: info.Id, running: info.State.Running, labels: info.Config.Labels ?? {} } : undefined;
  }

  /** Creates a container stamped with this worker's instance id, tracked until removed. */
  private async create(spec: ContainerSpec): Promise<Docker.Container> {
    const options = toCreateOptions(spec);
    options.Labels = { ...options.Labels, [SandboxLabels.instance]: this.options.instanceId };
    const container = await this.engine(() => this.docker.createContainer(options), spec.image);
    this.own.add(container.id);
    return container;
  }

  private async createAndStart(spec: ContainerSpec, outputMaxBytes: number, onOutput?: OutputListener): Promise<Attached> {
    const container = await this.create(spec);
    try {
      return await this.engine(async () => {
        const attached = await this.attach(container, spec.openStdin, outputMaxBytes);
        attached.onOutput = onOutput;
        await container.start();
        return attached;
      }, spec.image);
    } catch (error) {
      await this.remove(container.id);
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
    this.docker.modem.demuxStream(
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
  private async waitOrKill(
    container: Docker.Container,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<'exited' | 'timeout' | 'cancelled'> {
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

  /**
   * Removes a finished container after the reply has gone. Safe to defer: its process tree is
   * already dead (PID 1 exited or was killed, taking its namespace with it) and no container
   * is ever reused; it only saves the caller the engine's removal time.
   */
  private removeSoon(id: string): void {
    const removal = this.remove(id).finally(() => this.removals.delete(removal));
    this.removals.add(removal);
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
      if (error instanceof AppError) throw error;
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

/** What `weft-exec` writes to stderr when a process of its run was killed for memory. */
export const OOM_MARKER = 'weft-exec: a process was killed for memory';

/** Whichever comes first: `done`, the deadline, or the abort. */
async function raceDeadline(done: Promise<void>, timeoutMs: number, signal?: AbortSignal): Promise<'exited' | 'timeout' | 'cancelled'> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const aborted = new Promise<'cancelled'>((resolve) => {
    onAbort = () => resolve('cancelled');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([done.then(() => 'exited' as const), deadline, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
