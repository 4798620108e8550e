import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { MetricsServer, volumeFreeBytesGauge } from '@weft/metrics';
import { INFERENCE_CONFIG, INFERENCE_METRICS, LOGGER } from '../tokens';
import type { InferenceMetrics } from './inference-metrics';

/** Serves `/metrics` on METRICS_PORT while the worker runs (0 turns it off), with its volumes' free bytes. */
@Injectable()
export class MetricsLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: MetricsServer;

  constructor(
    @Inject(INFERENCE_CONFIG) private readonly config: InferenceConfig,
    @Inject(INFERENCE_METRICS) metrics: InferenceMetrics,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.server = new MetricsServer(metrics.registry, log);
    // Models are pulled into MODELS_DIR and evicted KV caches saved in KV_STATE_DIR: either filling stops the worker.
    const volumes: Record<string, string> = { models: config.MODELS_DIR };
    if (config.KV_STATE_DIR) volumes['kv-state'] = config.KV_STATE_DIR;
    volumeFreeBytesGauge(metrics.registry, 'weft_inference_volume_free_bytes', volumes);
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
