import { Inject, Injectable } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { AppError, ErrorCode } from '@weft/contracts';
import { CONTAINER_RUNTIME, type ContainerRuntime } from '../docker/container-runtime';
import { SANDBOX_CONFIG } from '../tokens';

/** The proxy's name on every proxy network: runs reach it as http://weft-proxy:<port>. */
export const PROXY_ALIAS = 'weft-proxy';

export interface ProxyRoute {
  network: string;
  url: string;
}

/**
 * Each user's runs sit on an internal network of that user's (no route out, and no other user's
 * containers), joined by the allow-listing proxy: their only way out. Networks are made on first
 * use and kept; the proxy is reconnected whenever a session container is made, so a proxy that
 * compose recreated is found again.
 */
@Injectable()
export class ProxyNetworks {
  /** The networks this process has made or joined: what the metrics report in use. */
  private readonly networks = new Set<string>();

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: Pick<SandboxConfig, 'SANDBOX_PROXY_CONTAINER' | 'SANDBOX_PROXY_PORT'>,
    @Inject(CONTAINER_RUNTIME) private readonly runtime: Pick<ContainerRuntime, 'ensureProxyNetwork' | 'findOwnProxy'>,
  ) {}

  get count(): number {
    return this.networks.size;
  }

  async routeFor(ownerId: string): Promise<ProxyRoute> {
    const proxy = this.config.SANDBOX_PROXY_CONTAINER ?? (await this.runtime.findOwnProxy());
    if (!proxy) {
      throw new AppError(
        ErrorCode.SandboxUnavailable,
        'No package proxy is running for sandbox runs (the compose or Swarm service "proxy" beside this worker, or SANDBOX_PROXY_CONTAINER); ' +
          'create the session with sandboxNetwork "none"',
        {},
        true,
      );
    }
    // The proxy's id keeps two stacks on one engine from sharing a user's network.
    const network = `weft-proxy-${proxy.slice(0, 12)}-${ownerId}`;
    await this.runtime.ensureProxyNetwork(network, proxy, PROXY_ALIAS);
    this.networks.add(network);
    return { network, url: `http://${PROXY_ALIAS}:${this.config.SANDBOX_PROXY_PORT}` };
  }
}
