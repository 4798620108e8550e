import type { Logger } from '@weft/logging';
import type { CommandChannel } from './command-channel';
import { ContainerExec } from './container-exec';
import type {
  ContainerRuntime,
  ContainerSpec,
  EngineInfo,
  ExecOptions,
  NamedContainer,
  RunOptions,
  RunOutcome,
  WarmContainer,
} from './container-runtime';
import { ContainerSweeps } from './container-sweeps';
import { DockerEngine } from './docker-engine';
import { NamedContainers } from './named-containers';
import { NetworksAndVolumes } from './networks-and-volumes';
import { OneOffRuns } from './one-off-runs';
import { DEFAULT_PROXY_SUBNETS, SubnetPool } from './subnet-pool';
import { WarmServers } from './warm-servers';

export { OOM_MARKER } from './container-exec';

export interface DockerAdapterOptions {
  socketPath: string;
  /** Stamped on every container as `weft.sandbox.instance`. */
  instanceId: string;
  /** Where users' proxy networks take their subnets. */
  proxySubnets?: SubnetPool;
}

/**
 * The only place that talks to the Docker engine: the sandbox's ContainerRuntime, put together
 * from one part per job, which share one engine connection and its tracked containers.
 */
export class DockerAdapter implements ContainerRuntime {
  private readonly engine: DockerEngine;
  private readonly oneOff: OneOffRuns;
  private readonly warmServers: WarmServers;
  private readonly named: NamedContainers;
  private readonly execs: ContainerExec;
  private readonly resources: NetworksAndVolumes;
  private readonly sweeps: ContainerSweeps;

  constructor(options: DockerAdapterOptions, logger: Logger) {
    this.engine = new DockerEngine(options.socketPath, options.instanceId, logger);
    this.oneOff = new OneOffRuns(this.engine, logger);
    this.warmServers = new WarmServers(this.engine.docker, this.engine, logger);
    this.named = new NamedContainers(this.engine, logger);
    this.execs = new ContainerExec(this.engine, logger);
    this.resources = new NetworksAndVolumes(this.engine, options.proxySubnets ?? new SubnetPool(DEFAULT_PROXY_SUBNETS.range, DEFAULT_PROXY_SUBNETS.prefix));
    this.sweeps = new ContainerSweeps(this.engine);
  }

  // One-off runs and the warm pool.
  run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome> {
    return this.oneOff.run(spec, options);
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

  // Named (session) containers.
  ensureNamed(spec: ContainerSpec & { name: string }): Promise<NamedContainer & { created: boolean }> {
    return this.named.ensure(spec);
  }

  listLabelled(key: string, value: string): Promise<NamedContainer[]> {
    return this.named.listLabelled(key, value);
  }

  openChannel(containerId: string, readyTimeoutMs: number): Promise<CommandChannel | undefined> {
    return this.named.openChannel(containerId, readyTimeoutMs);
  }

  exec(containerId: string, argv: string[], options: ExecOptions): Promise<RunOutcome> {
    return this.execs.exec(containerId, argv, options);
  }

  whenStopped(containerId: string): Promise<void> {
    return this.named.whenStopped(containerId);
  }

  removeContainer(containerId: string): Promise<void> {
    return this.engine.remove(containerId);
  }

  // Networks, volumes and the proxy.
  ensureEgressNetwork(name: string): Promise<void> {
    return this.resources.ensureEgressNetwork(name);
  }

  ensureProxyNetwork(name: string, proxyContainer: string, alias: string): Promise<void> {
    return this.resources.ensureProxyNetwork(name, proxyContainer, alias);
  }

  findOwnProxy(): Promise<string | undefined> {
    return this.resources.findOwnProxy();
  }

  ensureVolume(name: string, labels: Record<string, string>): Promise<void> {
    return this.resources.ensureVolume(name, labels);
  }

  volumeMountpoint(name: string): Promise<string> {
    return this.resources.volumeMountpoint(name);
  }

  // The engine itself, and cleaning up.
  describeEngine(): Promise<EngineInfo> {
    return this.engine.describe();
  }

  removeExpired(now: number): Promise<number> {
    return this.sweeps.removeExpired(now);
  }

  removePredecessors(): Promise<number> {
    return this.sweeps.removePredecessors();
  }

  async removeOwn(): Promise<void> {
    this.warmServers.closeAll();
    await this.engine.removeOwn();
  }
}
