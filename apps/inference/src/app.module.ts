import { Global, Inject, Injectable, Module, type OnApplicationShutdown, type Type } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { CancelListener } from './cancel/cancel.listener';
import { HeartbeatService } from './fleet/heartbeat.service';
import { InferenceModule } from './generate/inference.module';
import { InferenceMetrics } from './metrics/inference-metrics';
import { MetricsLifecycle } from './metrics/metrics.lifecycle';
import type { ModelsConfig } from './registry/models-config.schema';
import {
  EVENT_BUS,
  INFERENCE_CONFIG,
  INFERENCE_METRICS,
  LOGGER,
  MODELS_CONFIG,
  SERVER_LINK,
  WORKER_IDENTITY,
  type ServerLink,
  type WorkerIdentity,
} from './tokens';
import { NatsEventBus } from '@weft/messaging';

/** Says goodbye on the heartbeat subject, then closes the event connection. */
@Injectable()
class EventBusCloser implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_BUS) private readonly bus: NatsEventBus,
    private readonly heartbeat: HeartbeatService,
    private readonly cancels: CancelListener,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    this.cancels.stop();
    await this.heartbeat.stop();
    await this.bus.close();
  }
}

export interface AppModuleDeps {
  config: InferenceConfig;
  models: ModelsConfig;
  logger: Logger;
  worker: WorkerIdentity;
  bus: NatsEventBus;
  server: ServerLink;
}

/** The root module, closed over the config and model registry parsed once at boot. */
export function createAppModule({ config, models, logger, worker, bus, server }: AppModuleDeps): Type<unknown> {
  @Global()
  @Module({
    providers: [
      { provide: INFERENCE_CONFIG, useValue: config },
      { provide: MODELS_CONFIG, useValue: models },
      { provide: LOGGER, useValue: logger },
      { provide: WORKER_IDENTITY, useValue: worker },
      { provide: EVENT_BUS, useValue: bus },
      { provide: SERVER_LINK, useValue: server },
      { provide: INFERENCE_METRICS, useValue: new InferenceMetrics(worker.workerId) },
    ],
    exports: [INFERENCE_CONFIG, MODELS_CONFIG, LOGGER, WORKER_IDENTITY, EVENT_BUS, SERVER_LINK, INFERENCE_METRICS],
  })
  class CoreModule {}

  const inference = InferenceModule.forWorker(worker.workerId);

  @Module({ imports: [inference], providers: [HeartbeatService, CancelListener, MetricsLifecycle, EventBusCloser] })
  class FleetModule {}

  @Module({ imports: [CoreModule, inference, FleetModule] })
  class AppModule {}
  return AppModule;
}
