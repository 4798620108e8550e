import type Docker from 'dockerode';
import { SandboxLabels } from './container-runtime';
import { isGone, statusOf } from './engine-errors';

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
  ) {}

  async ensure(name: string, proxyContainer: string, alias: string): Promise<void> {
    const network = this.docker.getNetwork(name);
    let info = await this.inspect(network);
    if (info && info.Options?.[HOSTLESS_OPTION] !== 'true') {
      await this.retire(network, info);
      info = undefined;
    }
    if (!info) {
      await this.engine(() =>
        this.docker.createNetwork({
          Name: name,
          Driver: 'bridge',
          // No route out: the proxy, also on the network, is the only way to the outside.
          Internal: true,
          CheckDuplicate: true,
          Options: { [HOSTLESS_OPTION]: 'true' },
          Labels: { [SandboxLabels.marker]: '1', [SandboxLabels.proxyNetwork]: '1' },
        }),
      ).catch((error: unknown) => {
        if (statusOf(error) !== 409) throw error;
      });
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
