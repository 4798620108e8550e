import { Inject, Injectable } from '@nestjs/common';
import { WarmPool } from '../pool/warm-pool';
import { ProxyNetworks } from '../sessions/proxy-networks';
import { SessionContainers } from '../sessions/session-containers';
import { SandboxMetrics } from './sandbox-metrics';

/** Points the sandbox's gauges at the warm pool, the session containers and the proxy networks. */
@Injectable()
export class SandboxGauges {
  constructor(
    @Inject(SandboxMetrics) metrics: SandboxMetrics,
    pool: WarmPool,
    sessions: SessionContainers,
    proxies: ProxyNetworks,
  ) {
    metrics.watch({
      warmIdle: () => pool.idleCount,
      warmTarget: () => pool.target,
      sessionContainers: () => sessions.count,
      proxyNetworks: () => proxies.count,
    });
  }
}
