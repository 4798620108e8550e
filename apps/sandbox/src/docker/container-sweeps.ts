import type Docker from 'dockerode';
import { SandboxLabels } from './container-runtime';
import type { DockerEngine } from './docker-engine';

/** Sweeps of labelled containers that nobody will remove otherwise. */
export class ContainerSweeps {
  constructor(private readonly engine: DockerEngine) {}

  /** Containers past their deadline, and session containers that stopped; returns how many. */
  async removeExpired(now: number): Promise<number> {
    const list = await this.listSandbox([]);
    // A session container that stopped (idle) is done with, whoever started it.
    const stoppedSession = (c: Docker.ContainerInfo) => c.Labels[SandboxLabels.session] !== undefined && (c.State === 'exited' || c.State === 'dead');
    const expired = list.filter((c) => !(Number(c.Labels[SandboxLabels.deadline]) > now) || stoppedSession(c));
    await Promise.all(expired.map((c) => this.engine.remove(c.Id)));
    return expired.length;
  }

  /** Containers stamped with this worker's instance id that this process did not start. */
  async removePredecessors(): Promise<number> {
    const list = await this.listSandbox([`${SandboxLabels.instance}=${this.engine.instanceId}`]);
    const left = list.filter((c) => !this.engine.owns(c.Id));
    await Promise.all(left.map((c) => this.engine.remove(c.Id)));
    return left.length;
  }

  private listSandbox(moreLabels: string[]): Promise<Docker.ContainerInfo[]> {
    return this.engine.engine(() =>
      this.engine.docker.listContainers({ all: true, filters: { label: [`${SandboxLabels.marker}=1`, ...moreLabels] } }),
    );
  }
}
