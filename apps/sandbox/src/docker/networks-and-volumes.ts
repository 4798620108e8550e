import { hostname } from 'node:os';
import { SandboxLabels } from './container-runtime';
import type { DockerEngine } from './docker-engine';
import { statusOf } from './engine-errors';
import { findOwnProxy } from './own-proxy';
import { ProxyNetworkEngine } from './proxy-network-engine';
import type { SubnetPool } from './subnet-pool';

/** What runs join and mount besides their container: the egress and proxy networks, named volumes. */
export class NetworksAndVolumes {
  private readonly proxyNetworks: ProxyNetworkEngine;

  constructor(
    private readonly engine: DockerEngine,
    proxySubnets: SubnetPool,
  ) {
    this.proxyNetworks = new ProxyNetworkEngine(engine.docker, (work) => engine.engine(work), proxySubnets);
  }

  async ensureEgressNetwork(name: string): Promise<void> {
    const { docker } = this.engine;
    const existing = await this.engine.engine(() => docker.getNetwork(name).inspect()).catch((error: unknown) => {
      if (statusOf(error) === 404) return undefined;
      throw error;
    });
    if (existing) return;
    try {
      await this.engine.engine(() =>
        docker.createNetwork({
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

  ensureProxyNetwork(name: string, proxyContainer: string, alias: string): Promise<void> {
    return this.proxyNetworks.ensure(name, proxyContainer, alias);
  }

  /** The proxy of this worker's own compose project or Swarm stack (own-proxy.ts). */
  findOwnProxy(): Promise<string | undefined> {
    // In a container, the hostname is the container's id (compose and Swarm alike).
    return this.engine.engine(() => findOwnProxy(this.engine.docker, hostname()));
  }

  async ensureVolume(name: string, labels: Record<string, string>): Promise<void> {
    const { docker } = this.engine;
    const existing = await this.engine.engine(() => docker.getVolume(name).inspect()).catch((error: unknown) => {
      if (statusOf(error) === 404) return undefined;
      throw error;
    });
    if (!existing) await this.engine.engine(() => docker.createVolume({ Name: name, Labels: { [SandboxLabels.marker]: '1', ...labels } }));
  }

  async volumeMountpoint(name: string): Promise<string> {
    const info = await this.engine.engine(() => this.engine.docker.getVolume(name).inspect());
    return info.Mountpoint;
  }
}
