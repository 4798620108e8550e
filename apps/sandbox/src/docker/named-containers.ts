import type { Duplex } from 'node:stream';
import type { Logger } from '@weft/logging';
import type Docker from 'dockerode';
import { CommandChannel } from './command-channel';
import { type ContainerSpec, type NamedContainer, SandboxLabels } from './container-runtime';
import type { DockerEngine } from './docker-engine';
import { isGone, statusOf } from './engine-errors';
import { delay } from './run-deadline';

/** A removed container's name is taken until the engine finishes removing it: wait this often, this long. */
const NAME_RELEASE_TRIES = 20;
const NAME_RELEASE_WAIT_MS = 100;

/** Long-lived containers under a name (a session's): found or made, listed, attached, awaited. */
export class NamedContainers {
  constructor(
    private readonly engine: DockerEngine,
    private readonly logger: Logger,
  ) {}

  async ensure(spec: ContainerSpec & { name: string }): Promise<NamedContainer & { created: boolean }> {
    let container: Docker.Container | undefined;
    for (let attempt = 0; !container; attempt++) {
      try {
        container = await this.engine.create(spec);
      } catch (error) {
        // 409: the name is taken, by another replica's container or one of ours from before.
        if (statusOf(error) !== 409) throw error;
        const found = await this.inspect(spec.name);
        if (found) return { ...found, created: false };
        // Taken, yet not found: the old one is being removed. Its name is free in a moment.
        if (attempt >= NAME_RELEASE_TRIES) throw error;
        await delay(NAME_RELEASE_WAIT_MS);
      }
    }
    try {
      await this.engine.engine(() => container.start(), spec.image);
    } catch (error) {
      await this.engine.remove(container.id);
      throw error;
    }
    return { id: container.id, running: true, labels: { ...spec.labels, [SandboxLabels.instance]: this.engine.instanceId }, created: true };
  }

  async listLabelled(key: string, value: string): Promise<NamedContainer[]> {
    const list = await this.engine.engine(() =>
      this.engine.docker.listContainers({ all: true, filters: { label: [`${SandboxLabels.marker}=1`, `${key}=${value}`] } }),
    );
    return list.map((c) => ({ id: c.Id, running: c.State === 'running', labels: c.Labels }));
  }

  async openChannel(containerId: string, readyTimeoutMs: number): Promise<CommandChannel | undefined> {
    const container = this.engine.docker.getContainer(containerId);
    const stream = (await this.engine.engine(() => container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true }))) as Duplex;
    const channel = new CommandChannel(stream, this.engine.demultiplex, () => this.engine.remove(containerId), this.logger);
    if (await channel.ping(readyTimeoutMs)) return channel;
    channel.close();
    return undefined;
  }

  async whenStopped(containerId: string): Promise<void> {
    await this.engine.docker
      .getContainer(containerId)
      .wait()
      .catch((error: unknown) => {
        if (!isGone(error)) this.logger.debug({ err: error, containerId }, 'waiting on a sandbox container failed');
      });
  }

  private async inspect(name: string): Promise<NamedContainer | undefined> {
    const info = await this.engine.engine(() => this.engine.docker.getContainer(name).inspect()).catch((error: unknown) => {
      if (statusOf(error) === 404) return undefined;
      throw error;
    });
    return info ? { id: info.Id, running: info.State.Running, labels: info.Config.Labels ?? {} } : undefined;
  }
}
