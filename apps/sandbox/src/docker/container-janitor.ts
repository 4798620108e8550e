import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { LOGGER } from '../tokens';
import { CONTAINER_RUNTIME, type ContainerRuntime } from './container-runtime';

const SWEEP_EVERY_MS = 60_000;

/**
 * Removes containers nobody will remove: at boot those a crashed predecessor left, then
 * periodically any past their deadline (so replicas sharing an engine never race on live
 * ones); at shutdown the ones this process started.
 */
@Injectable()
export class ContainerJanitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(CONTAINER_RUNTIME) private readonly runtime: Pick<ContainerRuntime, 'removeExpired' | 'removeOwn'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.sweep();
    this.timer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.runtime.removeOwn();
  }

  private async sweep(): Promise<void> {
    try {
      const removed = await this.runtime.removeExpired(Date.now());
      if (removed > 0) this.logger.info({ removed }, 'removed expired sandbox containers');
    } catch (error) {
      this.logger.warn({ err: error }, 'sandbox container sweep failed');
    }
  }
}
