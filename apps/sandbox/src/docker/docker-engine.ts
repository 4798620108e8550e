import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import Docker from 'dockerode';
import type { Demultiplex } from './command-channel';
import { type ContainerSpec, type EngineInfo, SandboxLabels } from './container-runtime';
import { toCreateOptions } from './create-options';
import { isEngineUnreachable, isGone, statusOf } from './engine-errors';

/**
 * The sandbox's one connection to the Docker engine, shared by the adapter's parts: the engine's
 * failures as domain errors, and every container this process creates, stamped with its instance
 * id and tracked until removed.
 */
export class DockerEngine {
  readonly docker: Docker;
  /** Containers this process created and has not removed yet. */
  private readonly own = new Set<string>();
  /** Removals under way after a reply. */
  private readonly removals = new Set<Promise<void>>();

  constructor(
    socketPath: string,
    /** Stamped on every container as `weft.sandbox.instance`. */
    readonly instanceId: string,
    private readonly logger: Logger,
  ) {
    this.docker = new Docker({ socketPath });
  }

  readonly demultiplex: Demultiplex = (stream, stdout, stderr) => this.docker.modem.demuxStream(stream, stdout, stderr);

  /** Turns the engine's failures into domain errors. */
  async engine<T>(work: () => Promise<T>, image?: string): Promise<T> {
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

  async describe(): Promise<EngineInfo> {
    const info = (await this.engine(() => this.docker.info())) as {
      Runtimes?: Record<string, unknown>;
      SecurityOptions?: string[];
    };
    return { runtimes: Object.keys(info.Runtimes ?? {}), securityOptions: info.SecurityOptions ?? [] };
  }

  /** Creates a container stamped with this worker's instance id, tracked until removed. */
  async create(spec: ContainerSpec): Promise<Docker.Container> {
    const options = toCreateOptions(spec);
    options.Labels = { ...options.Labels, [SandboxLabels.instance]: this.instanceId };
    const container = await this.engine(() => this.docker.createContainer(options), spec.image);
    this.own.add(container.id);
    return container;
  }

  /** Whether this process created the container and has not removed it. */
  owns(id: string): boolean {
    return this.own.has(id);
  }

  /**
   * Removes a finished container after the reply has gone. Safe to defer: its process tree is
   * already dead (PID 1 exited or was killed, taking its namespace with it) and no container
   * is ever reused; it only saves the caller the engine's removal time.
   */
  removeSoon(id: string): void {
    const removal = this.remove(id).finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  async remove(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      if (!isGone(error)) this.logger.warn({ err: error, containerId: id }, 'could not remove sandbox container');
    } finally {
      this.own.delete(id);
    }
  }

  /** Removes the containers this process created and waits for removals under way. */
  async removeOwn(): Promise<void> {
    await Promise.all([...this.own].map((id) => this.remove(id)));
    await Promise.all(this.removals);
  }
}
