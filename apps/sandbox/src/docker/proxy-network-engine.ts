import { AppError, ErrorCode } from '@weft/contracts';
import type Docker from 'dockerode';
import { SandboxLabels } from './container-runtime';
import { isGone, isSubnetTaken, statusOf } from './engine-errors';
import type { SubnetPool } from './subnet-pool';

/**
 * Docker gives a bridge network's gateway address to the host, and `Internal` only drops what
 * the host would forward: a connection to the host itself (that address, or any other of the
 * host's, by the default route through it) was accepted by every service listening on 0.0.0.0.
 * With no address of the host's on the bridge, a run has no next hop but its own subnet: the
 * proxy and the user's other containers. (Engine 20.10 and later; measured in
 * attacks/proxy-network.int-spec.ts.)
 */
export const HOSTLESS_OPTION = 'com.docker.network.bridge.inhibit_ipv4';

type Engine = <T>(work: () => Promise<T>) => Promise<T>;

type NetworkInfo = { Options?: Record<string, string>; Containers?: Record<string, unknown> };

/** A user's proxy network on the engine: made hostless, joined by the proxy. */
export class ProxyNetworkEngine {
  constructor(
    private readonly docker: Docker,
    private readonly engine: Engine,
    private readonly subnets: SubnetPool,
  ) {}

  async ensure(name: string, proxyContainer: string, alias: string): Promise<void> {
    const network = this.docker.getNetwork(name);
    let info = await this.inspect(network);
    if (info && info.Options?.[HOSTLESS_OPTION] !== 'true') {
      await this.retire(network, info);
      info = undefined;
    }
    if (!info) {
      await this.create(name);
      info = (await this.inspect(network)) ?? {};
    }
    const proxy = await this.engine(() => this.docker.getContainer(proxyContainer).inspect());
    if (proxy.Id in (info.Containers ?? {})) return;
    await this.engine(() => network.connect({ Container: proxy.Id, EndpointConfig: { Aliases: [alias] } })).catch((error: unknown) => {
      // 403/409: connected meanwhile by another replica.
      const status = statusOf(error);
      if (status !== 403 && status !== 409) throw error;
    });
  }

  /**
   * Takes the first free subnet of the pool, searching from a slot derived from the network's
   * name (so users spread over the range and seldom race for one); a subnet another network took
   * meanwhile (another replica's, another stack's) sends it on to the next. Explicit subnets
   * never draw from the engine's default pools, which hold about 30 networks.
   */
  private async create(name: string): Promise<void> {
    const taken = await this.takenSubnets();
    for (const subnet of this.subnets.candidates(name, () => taken)) {
      try {
        await this.engine(() =>
          this.docker.createNetwork({
            Name: name,
            Driver: 'bridge',
            // No route out: the proxy, also on the network, is the only way to the outside.
            Internal: true,
            CheckDuplicate: true,
            IPAM: { Driver: 'default', Config: [{ Subnet: subnet }] },
            Options: { [HOSTLESS_OPTION]: 'true' },
            Labels: { [SandboxLabels.marker]: '1', [SandboxLabels.proxyNetwork]: '1' },
          }),
        );
        return;
      } catch (error) {
        // 409: made meanwhile under this name by another replica.
        if (statusOf(error) === 409) return;
        if (!isSubnetTaken(error)) throw error;
        taken.push(subnet);
      }
    }
    const { range, prefix, size } = this.subnets;
    throw new AppError(
      ErrorCode.SandboxUnavailable,
      `Every subnet for users' proxy networks is taken (SANDBOX_PROXY_SUBNETS=${range} holds ${size} networks of /${prefix}): ` +
        'an admin must give the sandbox a larger range (WEFT_SANDBOX_PROXY_SUBNETS, or a longer SANDBOX_PROXY_SUBNET_PREFIX) ' +
        'or remove unused networks (docker network prune --filter label=weft.sandbox.proxy-network=1)',
      { setting: 'SANDBOX_PROXY_SUBNETS', range, prefix, networks: size },
      false,
    );
  }

  private async takenSubnets(): Promise<string[]> {
    const networks = await this.engine(() => this.docker.listNetworks());
    return networks.flatMap((network) => (network.IPAM?.Config ?? []).map((config) => config.Subnet ?? '')).filter(Boolean);
  }

  /**
   * A network an older Weft made gives the host an address, and a network's options cannot be
   * changed: its sandbox containers go (their sessions' next commands get fresh ones, the
   * workspace is kept), anything else is disconnected, and the network is made again.
   */
  private async retire(network: Docker.Network, info: NetworkInfo): Promise<void> {
    await Promise.all(
      Object.keys(info.Containers ?? {}).map(async (id) => {
        const container = this.docker.getContainer(id);
        const labels = (await this.engine(() => container.inspect()).catch(() => undefined))?.Config.Labels ?? {};
        const leave =
          labels[SandboxLabels.marker] === '1'
            ? this.engine(() => container.remove({ force: true, v: true }))
            : this.engine(() => network.disconnect({ Container: id, Force: true }));
        await leave.catch((error: unknown) => {
          if (!isGone(error)) throw error;
        });
      }),
    );
    await this.engine(() => network.remove()).catch((error: unknown) => {
      // Another replica retired it first.
      if (!isGone(error)) throw error;
    });
  }

  private async inspect(network: Docker.Network): Promise<NetworkInfo | undefined> {
    return this.engine(() => network.inspect() as Promise<NetworkInfo>).catch((error: unknown) => {
      if (statusOf(error) === 404) return undefined;
      throw error;
    });
  }
}
