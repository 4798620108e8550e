import { type DynamicModule, Module } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { createDrivers } from '../drivers/create-drivers';
import type { InferenceMetrics } from '../metrics/inference-metrics';
import type { ModelsConfig } from '../registry/models-config.schema';
import { INFERENCE_CONFIG, INFERENCE_DRIVERS, INFERENCE_METRICS, LOGGER, MODELS_CONFIG, WORKER_IDENTITY, type WorkerIdentity } from '../tokens';
import { ModelRegistryService } from '../registry/model-registry.service';
import { ModelsAdminController } from '../registry/models-admin.controller';
import { createInferenceController } from './inference.controller';
import { InferenceService } from './inference.service';

@Module({})
export class InferenceModule {
  static forWorker(workerId: string): DynamicModule {
    return {
      module: InferenceModule,
      controllers: [createInferenceController(workerId), ModelsAdminController],
      providers: [
        InferenceService,
        ModelRegistryService,
        {
          provide: INFERENCE_DRIVERS,
          inject: [MODELS_CONFIG, INFERENCE_CONFIG, LOGGER, INFERENCE_METRICS, WORKER_IDENTITY],
          useFactory: (models: ModelsConfig, config: InferenceConfig, log: Logger, metrics: InferenceMetrics, worker: WorkerIdentity) =>
            createDrivers(models, log, {
              downloadDir: models.downloadDir ?? config.MODELS_DIR,
              kvState: config.KV_STATE_DIR
                ? { dir: config.KV_STATE_DIR, owner: worker.workerId, maxBytes: config.KV_STATE_MAX_BYTES }
                : undefined,
              binary: config.LLAMA_BINARY,
              generationLoop: config.INFERENCE_GENERATION_LOOP,
              grammarBudgetMs: config.INFERENCE_GRAMMAR_BUDGET_MS,
              memory: { maxLoadedBytes: config.MODELS_MAX_LOADED_BYTES || undefined, marginBytes: config.MODELS_MEMORY_MARGIN_BYTES, idleTtlMs: config.MODELS_IDLE_TTL_MS },
              hooks: {
                modelLoaded: (model, seconds) => metrics.modelLoaded(model, seconds),
                kvState: (model, event) => metrics.kvState(model, event),
              },
              apiKeys: config.PROVIDER_API_KEYS,
            }),
        },
      ],
      exports: [InferenceService],
    };
  }
}
