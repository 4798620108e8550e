import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { INFERENCE_CONFIG, INFERENCE_METRICS, LOGGER } from '../tokens';
import type { InferenceMetrics } from './inference-metrics';
import { MetricsServer } from './metrics-server';

/** Serves `/metrics` on METRICS_PORT while the worker runs (0 turns it off). */
@Injectable()
export class MetricsLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: MetricsServer;

  constructor(
    @Inject(INFERENCE_CONFIG) private readonly config: InferenceConfig,
    @Inject(INFERENCE_METRICS) metrics: InferenceMetrics,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.server = new MetricsServer(metrics, log);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.METRICS_PORT === 0) return;
    const port = await this.server.listen(this.config.METRICS_PORT, this.config.METRICS_HOST);
    this.log.info({ port }, 'metrics listening');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server.close();
  }
}
