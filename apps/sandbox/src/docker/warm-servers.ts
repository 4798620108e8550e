import type { Duplex } from 'node:stream';
import type { Logger } from '@weft/logging';
import type Docker from 'dockerode';
import { CommandChannel, type Demultiplex } from './command-channel';
import {
  ContainerNotRunningError,
  type ContainerSpec,
  type RunOptions,
  type RunOutcome,
  type WarmContainer,
  WarmContainerGoneError,
} from './container-runtime';
import { isGone } from './engine-errors';

/** How long a new pooled container's server may take to answer: Node's start, on a busy host. */
const SERVER_READY_MS = 10_000;
/** A snippet runs in the scratch tmpfs, as a cold one does. */
const SCRATCH_DIR = '/tmp';

/** What the engine connection lends (docker-engine.ts): its labelled, tracked create, its removals and error mapping. */
export interface WarmServerHost {
  create(spec: ContainerSpec): Promise<Docker.Container>;
  remove(id: string): Promise<void>;
  /** Removal after the reply has gone. */
  removeSoon(id: string): void;
  engine<T>(work: () => Promise<T>, image?: string): Promise<T>;
  demultiplex: Demultiplex;
}

/**
 * The warm pool's containers: started ahead of need, each running the command server one-shot
 * as its PID 1, which takes one snippet and reports its end only once every process of it is
 * dead. The reply goes out on that report, without waiting for the engine to stop the container;
 * the container is removed right after. Where the server cannot be believed (a timeout, a cancel,
 * a server that died) the engine kills the container and the reply waits until it has stopped.
 */
export class WarmServers {
  /** Started and not yet handed a snippet, by container id. */
  private readonly idle = new Map<string, CommandChannel>();

  constructor(
    private readonly docker: Docker,
    private readonly host: WarmServerHost,
    private readonly logger: Logger,
  ) {}

  async start(spec: ContainerSpec): Promise<WarmContainer> {
    if (!spec.openStdin) throw new Error('a warm container needs stdin to receive its snippet');
    const container = await this.host.create(spec);
    try {
      const channel = await this.host.engine(async () => {
        const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
        const opened = new CommandChannel(stream, this.host.demultiplex, () => this.host.remove(container.id), this.logger, 'snippet container');
        await container.start();
        return opened;
      }, spec.image);
      const hello = await channel.hello(SERVER_READY_MS);
      if (!hello?.oneShot) {
        channel.close();
        throw new Error(
          hello
            ? `the command server of ${spec.image} does not run one-shot: its node-server must be execute-only (0711) and the server this image's (npm run images)`
            : `no command server answered in ${spec.image} within ${SERVER_READY_MS} ms`,
        );
      }
      this.idle.set(container.id, channel);
      return { id: container.id, stopped: channel.whenClosed };
    } catch (error) {
      await this.host.remove(container.id);
      throw error;
    }
  }

  async run(warm: WarmContainer, argv: string[], options: RunOptions): Promise<RunOutcome> {
    const channel = this.idle.get(warm.id);
    if (!channel) throw new Error(`warm container ${warm.id} is unknown or already used`);
    this.idle.delete(warm.id);
    const container = this.docker.getContainer(warm.id);
    try {
      const outcome = await channel.run(argv, SCRATCH_DIR, options);
      // An exit code is the server's report, made once every process was dead. Without one (a
      // timeout, or the server gone: killed for memory) only the container's stop says so.
      if (outcome.exitCode !== null) return outcome;
      const stopped = await this.stop(container);
      return {
        ...outcome,
        exitCode: outcome.timedOut ? null : stopped.exitCode,
        oomKilled: outcome.oomKilled || stopped.oomKilled,
      };
    } catch (error) {
      // Nothing ran: the caller may start it cold.
      if (error instanceof ContainerNotRunningError) throw new WarmContainerGoneError(warm.id);
      // Cancelled: the reply waits until the engine has it stopped.
      await this.stop(container).catch((stopError: unknown) => this.logger.warn({ err: stopError, containerId: warm.id }, 'could not stop a cancelled snippet container'));
      throw error;
    } finally {
      channel.close();
      this.host.removeSoon(warm.id);
    }
  }

  async discard(warm: WarmContainer): Promise<void> {
    this.idle.get(warm.id)?.close();
    this.idle.delete(warm.id);
    await this.host.remove(warm.id);
  }

  /** Lets go of every idle container's channel (the adapter removes the containers). */
  closeAll(): void {
    for (const channel of this.idle.values()) channel.close();
    this.idle.clear();
  }

  /** Kills the container and waits until it stopped: then no process of it is left. */
  private async stop(container: Docker.Container): Promise<{ exitCode: number | null; oomKilled: boolean }> {
    return this.host.engine(async () => {
      await container.kill().catch(ignoreGone);
      await container.wait().catch(ignoreGone);
      // Removed already (the channel gave up on a server that did not answer a kill): nothing to say.
      const info = await container.inspect().catch(ignoreGone);
      return { exitCode: info?.State.ExitCode ?? null, oomKilled: info?.State.OOMKilled ?? false };
    });
  }
}

/** 409: not running any more; 404: already removed. */
function ignoreGone(error: unknown): undefined {
  if (!isGone(error)) throw error;
  return undefined;
}
