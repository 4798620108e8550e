import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { Registry } from 'prom-client';
import { MetricsServer } from './metrics-server';

export interface MetricsEndpointSettings {
  /** 0 turns the endpoint off. */
  port: number;
  host: string;
}

/**
 * A Nest provider that serves a registry on `/metrics` while the app runs: bound at bootstrap,
 * closed at shutdown. Provide it with `useFactory` in the app's module.
 */
export class MetricsEndpoint implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: MetricsServer;

  constructor(
    registry: Pick<Registry, 'metrics' | 'contentType'>,
    private readonly settings: MetricsEndpointSettings,
    private readonly log: Logger,
  ) {
    this.server = new MetricsServer(registry, log);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.settings.port === 0) return;
    const port = await this.server.listen(this.settings.port, this.settings.host);
    this.log.info({ port }, 'metrics listening');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server.close();
  }
}
