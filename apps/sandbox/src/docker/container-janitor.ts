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
    @Inject(CONTAINER_RUNTIME) private readonly runtime: Pick<ContainerRuntime, 'removeExpired' | 'removeOwn' | 'removePredecessors'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.removePredecessors();
    await this.sweep();
    this.timer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.runtime.removeOwn();
  }

  /**
   * A session container outlives a worker killed mid-command, and its command runs on with no
   * deadline (the worker kept it): the caller was told the call's outcome is unknown, so it goes.
   */
  private async removePredecessors(): Promise<void> {
    try {
      const removed = await this.runtime.removePredecessors();
      if (removed > 0) this.logger.warn({ removed }, 'removed sandbox containers a crashed predecessor left');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not remove the containers a predecessor left');
    }
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
