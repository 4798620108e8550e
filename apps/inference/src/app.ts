import type { INestMicroservice } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import { QueueGroups } from '@weft/contracts';
import { createLogger, type Logger } from '@weft/logging';
import { createNatsMicroservice } from '@weft/messaging';
import { createAppModule } from './app.module';
import { loadModelsConfig } from './registry/load-models-config';

/** Builds the inference microservice; `listen()` starts it, `close()` disposes the models. */
export async function createInferenceApp(
  config: InferenceConfig,
  logger: Logger = createLogger('inference', config.LOG_LEVEL),
): Promise<INestMicroservice> {
  const models = loadModelsConfig(config.MODELS_CONFIG, config.MODELS_DIR);
  const app = await createNatsMicroservice(createAppModule(config, models, logger), {
    natsUrl: config.NATS_URL,
    queue: QueueGroups.inference,
    logger,
  });
  return app;
}
