import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { CONTAINER_RUNTIME, type ContainerRuntime } from '../docker/container-runtime';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';

/**
 * The bridge network egress runs join (SANDBOX_EGRESS_NETWORK). Created at start-up; an engine
 * that is down then is asked again by the first egress run, which fails if it still cannot.
 */
@Injectable()
export class EgressNetwork implements OnApplicationBootstrap {
  private ready?: Promise<string>;

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: Pick<SandboxConfig, 'SANDBOX_EGRESS_NETWORK'>,
    @Inject(CONTAINER_RUNTIME) private readonly runtime: Pick<ContainerRuntime, 'ensureEgressNetwork'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.name().catch((error: unknown) =>
      this.logger.warn({ err: error, network: this.config.SANDBOX_EGRESS_NETWORK }, 'could not create the egress network'),
    );
  }

  /** The network's name, once it exists. */
  name(): Promise<string> {
    const name = this.config.SANDBOX_EGRESS_NETWORK;
    this.ready ??= this.runtime.ensureEgressNetwork(name).then(
      () => name,
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }
}
